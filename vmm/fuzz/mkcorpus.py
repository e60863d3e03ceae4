#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# fuzz/mkcorpus.py [DIR]: write the seed corpus of the fuzz targets
# (default fuzz/corpus/), in the input formats that fuzz/fuzz_*.c
# describe. The seeds are synthetic: the setup header of an x86_64
# bzImage as Documentation/arch/x86/boot.rst has it (protocol 2.15, a
# 6.12 kernel's fields; one setup sector and 1 KiB of "kernel", not a
# whole kernel), the port and MMIO accesses a Linux guest makes at boot
# (the 8250's probe and console, the PCI probe of arch/x86/pci/, the
# i8042 and CMOS, the debug exit, MSR_KVM_PVSCHED), a payload's ucalls,
# and the command lines of vmm/README.md; and the regression inputs
# (regress-*) of the bugs the targets found, each failing before its fix.

import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), 'corpus')


def write(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


# --- linux: mem byte, u16 cmdline length, cmdline, u32 initrd length,
# initrd, bzImage.

def bzimage(version=0x020f, loadflags=0x81, xloadflags=0x7f,
            init_size=0x169c000, pref_address=0x1000000,
            cmdline_size=2047, initrd_addr_max=0x7fffffff,
            magic=b'HdrS', setup_sects=1, kernel=1024):
    b = bytearray((setup_sects + 1) * 512 + kernel)
    b[0x1f1] = setup_sects
    struct.pack_into('<H', b, 0x1fe, 0xaa55)
    b[0x200] = 0xeb
    b[0x201] = 0x6a                      # the header ends at 0x26c
    b[0x202:0x206] = magic
    struct.pack_into('<H', b, 0x206, version)
    b[0x211] = loadflags
    struct.pack_into('<I', b, 0x214, 0x100000)     # code32_start
    struct.pack_into('<I', b, 0x22c, initrd_addr_max)
    struct.pack_into('<I', b, 0x230, 0x200000)     # kernel_alignment
    b[0x234] = 1                                   # relocatable_kernel
    b[0x235] = 0x15                                # min_alignment
    struct.pack_into('<H', b, 0x236, xloadflags)
    struct.pack_into('<I', b, 0x238, cmdline_size)
    struct.pack_into('<Q', b, 0x258, pref_address)
    struct.pack_into('<I', b, 0x260, init_size)
    for i in range((setup_sects + 1) * 512, len(b)):
        b[i] = i & 0xff
    return bytes(b)


def newc(name, data):
    hdr = '070701' + ''.join('%08x' % v for v in (
        1, 0o100755, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0))
    b = hdr.encode() + name.encode() + b'\0'
    b += b'\0' * (-len(b) % 4) + data
    return b + b'\0' * (-len(b) % 4)


def linux(mem_mib, cmdline, initrd, image):
    return (bytes([(mem_mib - 1) % 64]) +
            struct.pack('<H', len(cmdline)) + cmdline +
            struct.pack('<I', len(initrd)) + initrd + image)


INITRD = newc('init', b'#!/bin/sh\nexec /bin/sh\n')
CMDLINE = b'console=ttyS0 quiet'

write('linux', 'boot-6.12', linux(64, CMDLINE, INITRD, bzimage()))
write('linux', 'no-initrd', linux(40, b'console=ttyS0', b'', bzimage()))
write('linux', 'mem-just-enough',
      linux(39, CMDLINE, b'', bzimage()))
write('linux', 'mem-too-small', linux(38, CMDLINE, b'', bzimage()))
write('linux', 'initrd-addr-max', linux(
    64, CMDLINE, INITRD, bzimage(initrd_addr_max=0x1800fff)))
write('linux', 'cmdline-too-long',
      linux(64, b'x' * 2048, b'', bzimage()))
write('linux', 'protocol-2.11', linux(64, CMDLINE, b'',
                                      bzimage(version=0x020b)))
write('linux', 'not-64-bit', linux(64, CMDLINE, b'',
                                   bzimage(xloadflags=0)))
write('linux', 'zimage', linux(64, CMDLINE, b'', bzimage(loadflags=0)))
write('linux', 'no-hdrs', linux(64, CMDLINE, b'', bzimage(magic=b'ELF!')))
write('linux', 'truncated', linux(64, CMDLINE, b'', bzimage(kernel=0)))
write('linux', 'init-size-small', linux(64, CMDLINE, b'',
                                        bzimage(init_size=100)))
write('linux', 'pref-address-low', linux(64, CMDLINE, b'',
                                         bzimage(pref_address=0x1000)))



# The review's case (issue 37): pref_address 0xfffffffffffff000 passed
# the checks, pref_address + init_size wrapped below --mem, and the
# kernel was copied to 4 KiB below guest RAM.
write('linux', 'regress-pref-address-wrap', linux(
    64, CMDLINE, b'', bzimage(pref_address=0xfffffffffffff000,
                              init_size=0x2000000)))
# What fuzz_linux found first on the same code: the sum wraps too.
write('linux', 'regress-pref-address-wrap-init-size', linux(
    64, CMDLINE, b'', bzimage(pref_address=0xffffffff01000000,
                              init_size=0xffffffff)))
write('linux', 'regress-pref-address-wrap-initrd', linux(
    64, CMDLINE, INITRD, bzimage(pref_address=0xfffffffffffff000,
                                 init_size=0x2000000)))


# --- io: machine byte, then records: u8 kind, u8 vcpu, u8 size,
# u8 count, u32 port or length, u64 address or value.
PIO, MMIO, WRMSR, RAM, MAIN = range(5)
SIZE = {1: 0, 2: 1, 4: 2}


def outp(port, val, size=1, vcpu=0, count=1):
    return struct.pack('<BBBBIQ', PIO, vcpu, SIZE[size], count - 1,
                       port | 0x10000, val)


def inp(port, size=1, vcpu=0, count=1):
    return struct.pack('<BBBBIQ', PIO, vcpu, SIZE[size], count - 1, port, 0)


def mmio(addr, val=0, size=4, write=False, vcpu=0):
    return struct.pack('<BBBBIQ', MMIO, vcpu, size - 1, int(write),
                       val & 0xffffffff, addr)


def wrmsr(val, vcpu=0):
    return struct.pack('<BBBBIQ', WRMSR, vcpu, 0, 0, 0, val)


def ram(gpa, val):
    return struct.pack('<BBBBIQ', RAM, 0, 0, 0, gpa, val)


def main(op, val=0, n=0, vcpu=0):
    return struct.pack('<BBBBIQ', MAIN, vcpu, n, op, 0, val)


def machine(linux=True, refuse=False, vcpus=2, bar_shift=0):
    return bytes([int(linux) | int(refuse) << 1 | (vcpus - 1) << 2 |
                  bar_shift << 4])


COM1 = 0x3f8


def serial_probe():
    # drivers/tty/serial/8250: autoconfig(), then the console.
    r = inp(COM1 + 1) + outp(COM1 + 1, 0) + inp(COM1 + 1)
    r += outp(COM1 + 1, 0x0f) + inp(COM1 + 1) + outp(COM1 + 1, 0)
    r += outp(COM1 + 7, 0xa5) + inp(COM1 + 7)          # scratch
    r += outp(COM1 + 4, 0x10) + inp(COM1 + 6)          # loopback MSR
    r += outp(COM1 + 4, 0x1f) + inp(COM1 + 6) + outp(COM1 + 4, 0)
    r += outp(COM1 + 3, 0xbf) + outp(COM1 + 2, 0) + outp(COM1 + 3, 0)
    r += outp(COM1 + 2, 0x01) + inp(COM1 + 2)          # FIFO bits
    r += outp(COM1 + 2, 0x07) + outp(COM1 + 2, 0)
    r += outp(COM1 + 3, 0x83) + outp(COM1, 0x01) + outp(COM1 + 1, 0)
    r += outp(COM1 + 3, 0x03) + outp(COM1 + 4, 0x0b)
    r += outp(COM1 + 1, 0x02) + inp(COM1 + 2) + inp(COM1 + 5)
    for c in b'Linux version 6.12\r\n':
        r += inp(COM1 + 5) + outp(COM1, c)
    r += outp(COM1 + 1, 0x05) + main(0, 0x0d0a6c73, 4) + inp(COM1 + 2)
    r += inp(COM1) + inp(COM1) + inp(COM1 + 5) + main(1)
    r += outp(COM1, 0x6c736c73, 1, count=4)             # string OUT
    return r


def pci_probe():
    # arch/x86/pci/direct.c pci_check_type1(), pci_sanity_check(), then
    # the scan of bus 0 and the BAR sizing of 00:01.0.
    r = outp(0xcfb, 0x01) + inp(0xcf8, 4)
    r += outp(0xcf8, 0x80000000, 4) + inp(0xcf8, 4)
    r += outp(0xcf8, 0x80000008, 4) + inp(0xcfe, 2)
    r += outp(0xcf8, 0x80000000, 4) + inp(0xcfc, 2)
    for slot in range(4):
        a = 0x80000000 | slot << 11
        r += outp(0xcf8, a, 4) + inp(0xcfc, 4)
        r += outp(0xcf8, a | 0x0c, 4) + inp(0xcfe, 1)
    bar = 0x80000000 | 1 << 11 | 0x10
    r += outp(0xcf8, bar, 4) + inp(0xcfc, 4)
    r += outp(0xcfc, 0xffffffff, 4) + inp(0xcfc, 4)
    r += outp(0xcfc, 0xe0000000, 4)
    r += outp(0xcf8, 0x80000000 | 1 << 11 | 0x04, 4) + inp(0xcfc, 2)
    r += outp(0xcfc, 0x0002, 2)
    r += mmio(0xe0000000) + mmio(0xe0000ffc, 0x1234, 4, True)
    r += mmio(0xe0000ffe, 0, 8) + mmio(0xfed00000) + mmio(0x1000)
    r += outp(0xcf8, 0x81000000, 4) + inp(0xcfc, 4)    # ext. register
    r += outp(0xcf8, 0x80010000, 4) + inp(0xcfc, 4)    # bus 1
    return r


def legacy():
    r = b''
    for _ in range(4):
        r += inp(0x64) + inp(0x60)
    r += outp(0x70, 0x0a) + inp(0x71) + outp(0x70, 0x0b) + inp(0x71)
    r += outp(0x80, 0) + inp(0x2f8 + 5) + inp(0x3e8 + 5) + inp(0x61)
    r += outp(0x64, 0xfd) + outp(0x501, 12) + outp(0x501, 7)
    return r


def msr():
    r = wrmsr(0x9000 | 1, 0) + wrmsr(0x9040 | 1, 1)
    r += ram(0x9000 + 8, 0x0000000a00000001) + main(2, vcpu=0)
    r += wrmsr(0x9040 | 1, 0)                           # taken by vCPU 1
    r += wrmsr(0x9080, 0) + wrmsr(0x9081 | 2, 0)        # versions 0, 2
    r += wrmsr(0x9044 | 1, 0) + wrmsr(0x3ffc1, 0)       # unaligned, beyond
    r += main(3, vcpu=1) + wrmsr(0, 0) + main(3, vcpu=0)
    return r


write('io', 'linux-serial', machine() + serial_probe())
write('io', 'linux-pci', machine(bar_shift=1) + pci_probe())
write('io', 'linux-legacy', machine() + legacy())
write('io', 'linux-reboot', machine() + inp(0x64) + outp(0x64, 0xfe) +
      outp(0x501, 3, vcpu=1))
write('io', 'linux-msr', machine(vcpus=4) + msr())
write('io', 'linux-msr-refused', machine(refuse=True) + wrmsr(0x9001) +
      wrmsr(0))
write('io', 'linux-boot', machine(vcpus=2) + legacy()[:-32] +
      pci_probe() + serial_probe() + msr() + outp(0x501, 0))
# The io payload: its params, a PROGRESS and a DONE ucall, work writes.
payload = machine(linux=False, vcpus=1)
payload += ram(0x8000, 0x534d56696e694d00)
payload += ram(0x8100, 1) + ram(0x8108, 2) + outp(0x510, 0x8100, 4)
payload += outp(0x511, 0) + outp(0x511, 1) + outp(0x511, 7)
payload += ram(0x8100, 2) + outp(0x510, 0x8100, 4)
payload += outp(0x510, 0xfffffff8, 4) + ram(0x8100, 3) + ram(0x8108, 0x10d)
payload += outp(0x510, 0x8100, 4) + inp(0x3f8) + mmio(0x1000) + wrmsr(1)
write('io', 'payload-io', payload)
# Issue 37's review case: the UART wrote to the console with its lock
# held; fuzz_io's console blocks (a full pipe), so the first THR write
# hung, and the main thread's serial__rx_room() behind it.
write('io', 'regress-serial-blocked-stdout', machine(vcpus=2) +
      outp(COM1, ord('A')) + main(1, vcpu=1) + outp(COM1, ord('B'), vcpu=1) +
      main(0, 0x0a, 1) + inp(COM1 + 5, vcpu=1) + inp(COM1) +
      outp(COM1, 0x44434241, 4, count=8))
# What fuzz_io found first: the fake's KVM_SET_PVSCHED_AREA and
# MSR_KVM_PVSCHED check gpa + 64 > guest memory wrapped, and it took an
# area 64 bytes below guest RAM (and wrote its version there).
write('io', 'regress-fake-area-gpa-wrap', machine(vcpus=1) +
      wrmsr(0xffffffffffffffc1) + main(2) + main(3) + wrmsr(0))


# --- options: argv[1..], NUL-separated.

def argv(*args):
    return b'\0'.join(a.encode() for a in args)


for i, args in enumerate([
    ('--pvsched=pvsched_count', '--vcpus=2', '--payload=halt',
     '--iterations=500'),
    ('--pvsched=pvsched_count', '--vcpus=2', '--payload=halt',
     '--period-us=20000', '--iterations=50', '--json'),
    ('--pvsched=', '--payload=io', '--seconds=3',
     '--switch=pvsched_count@1', '--switch=@2'),
    ('--no-pvsched', '--vcpus=2', '--payload=io', '--iterations=100000'),
    ('--pvsched=pvsched_boost', '--vcpus=2', '--payload=boost',
     '--iterations=20', '--period-us=5000', '--busy-loops=100'),
    ('--pvsched=pvsched_boost', '--vcpus=2', '--payload=irq',
     '--boost-irq', '--wait=spin', '--iterations=200'),
    ('--pvsched=pvsched_boost', '--payload=latency', '--boost=wait',
     '--iterations=20000', '--latency-samples', '--vcpu-fifo=50'),
    ('--payload=toggle', '--boost=hold', '--touch=16', '--no-area'),
    ('--kernel=build/bzImage', '--initrd=initrd.cpio',
     '--append=console=ttyS0 quiet', '--mem=512', '--vcpus=2',
     '--reboots=3', '--refuse-areas'),
    ('--kernel', 'bzImage', '--payload=io'),
    ('--list-drivers',), ('-h',), ('-V',), ('--mem=0',),
    ('--iterations=1', '--seconds=1'), ('--vcpus',), ('-x', 'stray'),
]):
    write('options', 'argv-%02d' % i, argv(*args))

# What fuzz_options found: an unknown short option in a cluster was
# reported as the argument before it ('-p' after --pvsched=x named
# '--pvsched=x'; '-xy' alone named 'minivmm'), and a byte above 0x7f
# in a cluster too (glibc's optopt is negative for it).
write('options', 'regress-unknown-in-cluster', argv('--pvsched=x', '-pq'))
write('options', 'regress-unknown-high-byte',
      argv('--json', 'stray') + b'\0-\xffa')
