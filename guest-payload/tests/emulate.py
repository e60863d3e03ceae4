#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
Run the payloads under the unicorn CPU emulator (Debian: python3-unicorn),
playing the VMM side of the ABI: params block, ucalls, work port, LAPIC
writes, hand-delivered timer interrupts. No KVM involved. It checks the
payload logic only: paging, the real LAPIC timer and KVM exits are not
emulated (unicorn runs flat 64-bit code).
"""
import os
import struct
import subprocess
import sys
from unicorn import *
from unicorn.x86_const import *

GP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..') + '/'
LOAD, PARAMS, MEM = 0x100000, 0x8000, 4 << 20
UCALL_PORT, WORK_PORT = 0x510, 0x511
MAGIC = 0x534d56696e694d00
LAPIC = 0xfee00000

VCPU_AREA_SIZE = 80     # payload.h

class Vm:
    def __init__(self, name, iterations, progress_every, vcpu=0, nr=1, timer=1000000,
                 area=0, busy=0, flags=0, period_tsc=0, samples=0, samples_max=0):
        self.uc = uc = Uc(UC_ARCH_X86, UC_MODE_64)
        uc.mem_map(0, MEM)
        uc.mem_map(LAPIC, 0x1000)
        img = open(GP + name + '.bin', 'rb').read()
        uc.mem_write(LOAD, img)
        uc.mem_write(PARAMS, struct.pack('<QQQQIIQQQQQQ', MAGIC, iterations, progress_every, timer,
                                         nr, 0, area, busy, flags, period_tsc, samples,
                                         samples_max))
        # GDT like minivmm
        uc.mem_write(0x1000, struct.pack('<QQQ', 0, 0x00af9b000000ffff, 0x00cf93000000ffff))
        uc.reg_write(UC_X86_REG_GDTR, (0, 0x1000, 23, 0))
        uc.reg_write(UC_X86_REG_RSP, MEM - vcpu * 16384)
        uc.reg_write(UC_X86_REG_RDI, vcpu)
        uc.reg_write(UC_X86_REG_RSI, vcpu)
        uc.reg_write(UC_X86_REG_RFLAGS, 2)     # interrupts off, like minivmm
        self.vcpu = vcpu
        self.work = 0
        self.progress = []
        self.done = None
        self.dup_irqs = []
        self.shadow_irqs = []
        self.areas = []
        self.boost_seen = []
        self.on_work = None     # called at each work port write
        self.fail = None
        self.lapic = {}
        self.stopped = False
        self.on_ucall = None    # called with (vm, cmd, arg) at each ucall
        uc.hook_add(UC_HOOK_INSN, self.on_out, None, 1, 0, UC_X86_INS_OUT)
        uc.hook_add(UC_HOOK_MEM_WRITE, self.on_lapic, None, LAPIC, LAPIC + 0xfff)
        self.rip = LOAD

    def on_lapic(self, uc, access, addr, size, value, data):
        self.lapic[addr - LAPIC] = value

    def on_out(self, uc, port, size, value, data):
        if port == WORK_PORT and size == 1:
            assert value == (self.work & 0xff), (value, self.work)
            if self.on_work:
                self.on_work(self)
            self.work += 1
        elif port == UCALL_PORT and size == 4:
            cmd, arg = struct.unpack('<QQ', uc.mem_read(value, 16))
            if self.on_ucall:
                self.on_ucall(self, cmd, arg)
            if cmd == 1:
                self.progress.append(arg)
            elif cmd == 2:
                self.done = arg; uc.emu_stop(); self.stopped = True
            elif cmd == 3:
                self.fail = arg; uc.emu_stop(); self.stopped = True
            elif cmd == 4:
                assert self.done is None, 'DUP_IRQS after DONE'
                self.dup_irqs.append(arg)
            elif cmd == 5:
                assert self.work == 0 and not self.areas, 'AREA not first'
                self.areas.append(arg)
            elif cmd == 6:
                assert self.done is None, 'BOOST_SEEN after DONE'
                self.boost_seen.append(arg)
            elif cmd == 7:
                assert self.done is None, 'SHADOW_IRQS after DONE'
                self.shadow_irqs.append(arg)
            else:
                raise Exception('bad ucall %d' % cmd)
        else:
            raise Exception('unexpected out port %#x size %d' % (port, size))

    def run(self, count=0):
        self.uc.emu_start(self.rip, 1 << 40, count=count)
        self.rip = self.uc.reg_read(UC_X86_REG_RIP)

def check_loop(name, n, every, work):
    vm = Vm(name, n, every)
    vm.run()
    assert vm.fail is None, vm.fail
    assert vm.done == n, (vm.done, n)
    assert vm.progress == (list(range(every, n + 1, every)) if every else []), vm.progress[:5]
    if work:
        assert vm.work == n
    print('%s: DONE(%d), %d PROGRESS, %d work writes: ok' % (name, vm.done, len(vm.progress), vm.work))

check_loop('io', 1000, 100, True)
check_loop('io', 7, 0, True)
check_loop('cpuid', 1000, 250, False)

# --seconds: iterations 0, run a while, then set stop
vm = Vm('io', 0, 50)
vm.run(count=5000)
assert vm.done is None
vm.uc.mem_write(PARAMS + 36, struct.pack('<I', 1))
vm.run()
assert vm.done == vm.work and vm.done > 0, (vm.done, vm.work)
print('io --seconds: stop flag -> DONE(%d) ok' % vm.done)

# bad params
vm = Vm('cpuid', 10, 0)
vm.uc.mem_write(PARAMS, b'\0' * 8)
vm.run()
assert vm.fail == 1, vm.fail
print('bad magic -> FAIL(1) ok')

# halt: run to the first hlt, check the IDT and LAPIC programming
vm = Vm('halt', 3, 1, vcpu=1, nr=2)
def run_to_hlt(vm):
    # single-step until the next instruction is hlt (0xf4)
    while True:
        rip = vm.uc.reg_read(UC_X86_REG_RIP) if vm.rip is None else vm.rip
        if vm.uc.mem_read(rip, 1) == b'\xf4':
            return rip
        vm.run(count=1)
        if vm.stopped:
            return None
rip = run_to_hlt(vm)
lidt = vm.uc.reg_read(UC_X86_REG_IDTR)
print('IDTR', hex(lidt[1]), hex(lidt[2]), 'LAPIC writes', {hex(k): hex(v) for k, v in vm.lapic.items()})
assert vm.lapic == {0xf0: 0x1ff, 0x3e0: 0xb, 0x320: 0x20020, 0x380: 1000000}
idt = vm.uc.mem_read(lidt[1], 4096)
def gate(v):
    lo, hi = struct.unpack('<QQ', idt[v*16:v*16+16])
    off = (lo & 0xffff) | (((lo >> 48) & 0xffff) << 16) | (hi << 32)
    sel = (lo >> 16) & 0xffff
    typ = (lo >> 40) & 0xff
    return off, sel, typ
syms = {}
for l in subprocess.check_output(['nm', GP + 'halt.elf']).decode().split('\n'):
    p = l.split()
    if len(p) == 3: syms[p[2]] = int(p[0], 16)
for v in range(256):
    off, sel, typ = gate(v)
    assert sel == 8 and typ == 0x8e, (v, sel, typ)
    want = syms['exc_stubs'] + 16 * v if v < 32 else syms['timer_isr'] if v == 0x20 else syms['spurious_isr'] if v == 0xff else syms['unexpected_irq']
    assert off == want, (v, hex(off), hex(want))
print('IDT: 256 gates ok')

# simulate timer interrupts: at each hlt, deliver vector 0x20 by hand
ticks = 0
while not vm.stopped:
    rip = run_to_hlt(vm)
    if rip is None:
        break
    uc = vm.uc
    rsp = uc.reg_read(UC_X86_REG_RSP)
    frame = struct.pack('<QQQQQ', rip + 1, 8, uc.reg_read(UC_X86_REG_RFLAGS), rsp, 0x10)
    rsp = (rsp - 40)
    uc.mem_write(rsp, frame)
    uc.reg_write(UC_X86_REG_RSP, rsp)
    vm.rip = gate(0x20)[0]
    ticks += 1
    vm.lapic.pop(0xb0, None)
    # run the ISR up to and including iretq
    while True:
        insn = uc.mem_read(vm.rip, 2)
        last = insn[:2] == b'\x48\xcf'
        vm.run(count=1)
        if last:
            break
    assert vm.lapic.get(0xb0) == 0, 'no EOI'
    assert vm.rip == rip + 1, (hex(vm.rip), hex(rip))
print('halt: %d simulated ticks, PROGRESS %s, DONE(%s), LVTT at end %#x' % (ticks, vm.progress, vm.done, vm.lapic[0x320]))
assert vm.done == 3 and vm.progress == [1, 2, 3] and vm.lapic[0x320] == 0x10000
assert vm.dup_irqs == [], vm.dup_irqs

# halt: QEMU's duplicate delivery (see timer_isr): the timer vector again,
# at the handler's first instruction, on top of the original frame. It is
# no tick and gets no EOI; DUP_IRQS(1) comes before DONE.
vm = Vm('halt', 2, 0)
ticks = 0
while not vm.stopped:
    rip = run_to_hlt(vm)
    if rip is None:
        break
    uc = vm.uc
    isr = gate(0x20)[0]
    rsp = uc.reg_read(UC_X86_REG_RSP) - 40
    uc.mem_write(rsp, struct.pack('<QQQQQ', rip + 1, 8, 2, rsp + 40, 0x10))
    if ticks == 0:
        rsp -= 40
        uc.mem_write(rsp, struct.pack('<QQQQQ', isr, 8, 2, rsp + 40, 0x10))
    uc.reg_write(UC_X86_REG_RSP, rsp)
    vm.rip = isr
    vm.lapic.pop(0xb0, None)
    eois = 0
    for iret in range(2 if ticks == 0 else 1):
        while True:
            insn = uc.mem_read(vm.rip, 2)
            last = insn[:2] == b'\x48\xcf'
            vm.run(count=1)
            if 0xb0 in vm.lapic:
                eois += 1
                vm.lapic.pop(0xb0)
            if last:
                break
        if ticks == 0 and iret == 0:
            assert vm.rip == isr and eois == 0, (hex(vm.rip), eois)
    assert eois == 1 and vm.rip == rip + 1, (eois, hex(vm.rip), hex(rip))
    ticks += 1
assert vm.done == 2 and vm.dup_irqs == [1], (vm.done, vm.dup_irqs)
print('halt: a duplicate delivery is no tick, no EOI: DUP_IRQS(1), DONE(2) ok')

# exception: #UD in the halt payload reported as FAIL(0x106)
vm = Vm('halt', 3, 1)
run_to_hlt(vm)
uc = vm.uc
rsp = uc.reg_read(UC_X86_REG_RSP) - 40
uc.mem_write(rsp, struct.pack('<QQQQQ', 0, 8, 2, rsp + 40, 0x10))
uc.reg_write(UC_X86_REG_RSP, rsp)
vm.rip = gate(6)[0]
vm.run()
assert vm.fail == 0x106, vm.fail
print('exception stub 6 -> FAIL(0x106) ok')

# boost: vCPU 1 of 2, its area at 0x9000 + 64. At each work port write
# the flag must be up; the "host" then sets PVSCHED_HOST_BOOSTED on odd
# bursts only. At each hlt the flag must be down. BOOST_SEEN counts the
# bursts that saw HOST_BOOSTED, before DONE.
AREA_BASE, AREA_SIZE = 0x9000, 64
GUEST_FLAGS, HOST_FLAGS = 8, 4

def area_u32(vm, gpa, off):
    return struct.unpack('<I', vm.uc.mem_read(gpa + off, 4))[0]

def deliver_tick(vm, rip):
    uc = vm.uc
    base = uc.reg_read(UC_X86_REG_IDTR)[1]
    lo, hi = struct.unpack('<QQ', uc.mem_read(base + 16 * 0x20, 16))
    isr = (lo & 0xffff) | (((lo >> 48) & 0xffff) << 16) | (hi << 32)
    rsp = uc.reg_read(UC_X86_REG_RSP) - 40
    uc.mem_write(rsp, struct.pack('<QQQQQ', rip + 1, 8, 2, rsp + 40, 0x10))
    uc.reg_write(UC_X86_REG_RSP, rsp)
    vm.rip = isr
    while True:
        last = uc.mem_read(vm.rip, 2) == b'\x48\xcf'
        vm.run(count=1)
        if last:
            break
    assert vm.rip == rip + 1, (hex(vm.rip), hex(rip))

def run_boost(vm, gpa):
    halts = 0
    while not vm.stopped:
        rip = run_to_hlt(vm)
        if rip is None:
            break
        if gpa:
            assert area_u32(vm, gpa, GUEST_FLAGS) & 1 == 0, 'flag up at hlt'
        halts += 1
        deliver_tick(vm, rip)
    return halts

def boost_host(vm):
    flags = area_u32(vm, vm.area_gpa, GUEST_FLAGS)
    assert flags & 1, ('flag not up at the work exit', flags)
    vm.uc.mem_write(vm.area_gpa + HOST_FLAGS, struct.pack('<I', vm.work % 2))

gpa = AREA_BASE + AREA_SIZE
vm = Vm('boost', 6, 2, vcpu=1, nr=2, area=AREA_BASE, busy=50)
vm.area_gpa = gpa
vm.uc.mem_write(gpa, struct.pack('<I', 1))
vm.uc.mem_write(gpa + GUEST_FLAGS, struct.pack('<I', 0x80))  # unknown bit
vm.on_work = boost_host
halts = run_boost(vm, gpa)
assert vm.fail is None, vm.fail
assert vm.areas == [gpa] and vm.done == 6 and vm.work == 6 and halts == 6, \
    (vm.areas, vm.done, vm.work, halts)
assert vm.progress == [2, 4, 6] and vm.boost_seen == [3], (vm.progress, vm.boost_seen)
assert area_u32(vm, gpa, GUEST_FLAGS) == 0x80, 'other guest flag bits changed'
assert vm.lapic[0x320] == 0x10000
print('boost: AREA(%#x), 6 bursts with the flag up at each exit and down at each hlt, '
      'BOOST_SEEN(3), DONE(6) ok' % gpa)

# boost without an area: AREA(0), no flag, no BOOST_SEEN
vm = Vm('boost', 4, 0, area=0, busy=1)
halts = run_boost(vm, 0)
assert vm.fail is None and vm.areas == [0] and vm.done == 4 and vm.work == 4, \
    (vm.fail, vm.areas, vm.done, vm.work)
assert vm.boost_seen == [] and halts == 4, (vm.boost_seen, halts)
assert vm.uc.mem_read(AREA_BASE, 2 * AREA_SIZE) == b'\0' * 2 * AREA_SIZE
print('boost without an area: AREA(0), DONE(4), no BOOST_SEEN ok')

# boost: an area whose version is not 1 is FAIL(FAIL_BAD_AREA)
vm = Vm('boost', 4, 0, area=AREA_BASE, busy=1)
vm.run()
assert vm.fail == 2 and vm.areas == [] and vm.work == 0, (vm.fail, vm.areas)
print('boost: area version 0 -> FAIL(2) ok')

# irq: like halt, each tick an iteration. params.flags: SPIN (bit 0)
# waits with "sti", a loop and "cli" instead of "sti; hlt"; BOOST_IRQ
# (bit 1) keeps PVSCHED_GUEST_BOOST_IRQ (guest flag bit 1) up in its area
# from before the first wait to after the last. The timer handler counts
# the ticks that find PVSCHED_HOST_BOOSTED set, sent as BOOST_SEEN.
IRQ_SPIN, IRQ_BOOST_IRQ = 1, 2
GUEST_BOOST_IRQ = 2
IF = 1 << 9

def run_to_wait(vm):
    """Single-step to the next wait for a tick: ('hlt', rip of the hlt),
    ('spin', rip) after an sti that no hlt follows, or (None, None)."""
    while True:
        insn = vm.uc.mem_read(vm.rip, 1)
        if insn == b'\xf4':
            return 'hlt', vm.rip
        vm.run(count=1)
        if vm.stopped:
            return None, None
        if insn == b'\xfb' and vm.uc.mem_read(vm.rip, 1) != b'\xf4':
            assert vm.uc.reg_read(UC_X86_REG_RFLAGS) & IF
            return 'spin', vm.rip

def vcpu_ticks(vm):
    rsp0 = MEM - vm.vcpu * 16384
    return struct.unpack('<Q', vm.uc.mem_read(rsp0 - VCPU_AREA_SIZE + 16, 8))[0]

def deliver_irq(vm, ret, dup=False, back=None):
    """The timer vector, returning to @ret with the current RFLAGS; with
    @dup, QEMU's duplicate delivery on top of it first (see halt above).
    The handler's iretq must land at @back (default @ret)."""
    uc = vm.uc
    isr = gate_of(vm, 0x20)
    flags = uc.reg_read(UC_X86_REG_RFLAGS)
    rsp = uc.reg_read(UC_X86_REG_RSP) - 40
    uc.mem_write(rsp, struct.pack('<QQQQQ', ret, 8, flags, rsp + 40, 0x10))
    irets = 1
    if dup:
        rsp -= 40
        uc.mem_write(rsp, struct.pack('<QQQQQ', isr, 8, flags & ~IF, rsp + 40, 0x10))
        irets = 2
    uc.reg_write(UC_X86_REG_RSP, rsp)
    uc.reg_write(UC_X86_REG_RFLAGS, flags & ~IF)
    vm.rip = isr
    vm.lapic.pop(0xb0, None)
    for _ in range(irets):
        while True:
            last = uc.mem_read(vm.rip, 2) == b'\x48\xcf'
            vm.run(count=1)
            if last:
                break
    back = ret if back is None else back
    assert vm.rip == back, (hex(vm.rip), hex(back))
    assert vm.lapic.get(0xb0) == 0, 'no EOI'

def gate_of(vm, v):
    base = vm.uc.reg_read(UC_X86_REG_IDTR)[1]
    lo, hi = struct.unpack('<QQ', vm.uc.mem_read(base + 16 * v, 16))
    return (lo & 0xffff) | (((lo >> 48) & 0xffff) << 16) | (hi << 32)

# halt: a tick in the sti shadow, the hlt not executed yet: the handler
# returns past the hlt, SHADOW_IRQS(1) before DONE.
vm = Vm('halt', 2, 0)
ticks = 0
while not vm.stopped:
    rip = run_to_hlt(vm)
    if rip is None:
        break
    deliver_irq(vm, rip if ticks == 0 else rip + 1, back=rip + 1)
    ticks += 1
assert vm.done == 2 and ticks == 2 and vm.shadow_irqs == [1] and vm.dup_irqs == [], \
    (vm.done, ticks, vm.shadow_irqs, vm.dup_irqs)
print('halt: a tick in the sti shadow returns past the hlt: SHADOW_IRQS(1), DONE(2) ok')

def run_irq(vm, gpa, flags, boosted, dups=()):
    """Deliver a tick at each wait; before tick i (from 0) the "host" sets
    HOST_BOOSTED to boosted(i). Checks the wait kind and the guest flag at
    each wait. Returns the number of ticks."""
    want = 'spin' if flags & IRQ_SPIN else 'hlt'
    ticks = 0
    while not vm.stopped:
        kind, rip = run_to_wait(vm)
        if kind is None:
            break
        assert kind == want, (kind, want, hex(rip))
        if kind == 'spin':
            # it keeps spinning, interrupts on, until a tick comes
            before = vcpu_ticks(vm)
            vm.run(count=30)
            assert not vm.stopped and vcpu_ticks(vm) == before
            assert vm.uc.reg_read(UC_X86_REG_RFLAGS) & IF
            assert vm.uc.mem_read(vm.rip, 1) != b'\xf4'
            ret = vm.rip
        else:
            ret = rip + 1
        if gpa:
            up = area_u32(vm, gpa, GUEST_FLAGS) & GUEST_BOOST_IRQ
            assert bool(up) == bool(flags & IRQ_BOOST_IRQ), ('BOOST_IRQ at a wait', up)
            vm.uc.mem_write(gpa + HOST_FLAGS, struct.pack('<I', boosted(ticks)))
        deliver_irq(vm, ret, dup=ticks in dups)
        ticks += 1
    return ticks

for flags in (0, IRQ_BOOST_IRQ, IRQ_SPIN, IRQ_SPIN | IRQ_BOOST_IRQ):
    vm = Vm('irq', 6, 2, vcpu=1, nr=2, area=AREA_BASE, flags=flags)
    vm.uc.mem_write(gpa, struct.pack('<I', 1))
    vm.uc.mem_write(gpa + GUEST_FLAGS, struct.pack('<I', 0x80))  # unknown bit
    ticks = run_irq(vm, gpa, flags, lambda i: i % 2)
    assert vm.fail is None, vm.fail
    assert vm.areas == [gpa] and vm.done == 6 and ticks == 6 and vm.work == 0, \
        (vm.areas, vm.done, ticks, vm.work)
    assert vm.progress == [2, 4, 6] and vm.boost_seen == [3] and vm.dup_irqs == [], \
        (vm.progress, vm.boost_seen, vm.dup_irqs)
    assert area_u32(vm, gpa, GUEST_FLAGS) == 0x80, 'flag left up or other bits changed'
    assert vm.lapic[0x320] == 0x10000
    print('irq flags %d: AREA(%#x), 6 ticks by %s, BOOST_IRQ %s, BOOST_SEEN(3), DONE(6) ok'
          % (flags, gpa, 'spin' if flags & IRQ_SPIN else 'hlt',
             'up at each wait' if flags & IRQ_BOOST_IRQ else 'never raised'))

# irq: a duplicate delivery with HOST_BOOSTED set is no tick and no
# BOOST_SEEN
def always_boosted(i):
    return 1

vm = Vm('irq', 3, 0, area=AREA_BASE, flags=IRQ_SPIN)
vm.uc.mem_write(AREA_BASE, struct.pack('<I', 1))
ticks = run_irq(vm, AREA_BASE, IRQ_SPIN, always_boosted, dups=(0, 1))
assert vm.done == 3 and ticks == 3 and vm.dup_irqs == [2] and vm.boost_seen == [3], \
    (vm.done, ticks, vm.dup_irqs, vm.boost_seen)
print('irq: duplicate deliveries count no tick and no BOOST_SEEN: DUP_IRQS(2), BOOST_SEEN(3), DONE(3) ok')

# irq without BOOST_IRQ leaves a bit 1 it did not raise alone
vm = Vm('irq', 2, 0, area=AREA_BASE, flags=0)
vm.uc.mem_write(AREA_BASE, struct.pack('<III', 1, 0, GUEST_BOOST_IRQ))
while not vm.stopped:
    kind, rip = run_to_wait(vm)
    if kind is None:
        break
    deliver_irq(vm, rip + 1)
assert vm.done == 2 and vm.boost_seen == [0], (vm.done, vm.boost_seen)
assert area_u32(vm, AREA_BASE, GUEST_FLAGS) == GUEST_BOOST_IRQ
print('irq without BOOST_IRQ: a guest flag it did not raise stays, BOOST_SEEN(0) ok')

# irq without an area: AREA(0), the handler touches no area, no BOOST_SEEN
vm = Vm('irq', 4, 0, area=0, flags=IRQ_BOOST_IRQ)
ticks = run_irq(vm, 0, IRQ_BOOST_IRQ, always_boosted)
assert vm.fail is None and vm.areas == [0] and vm.done == 4 and ticks == 4, \
    (vm.fail, vm.areas, vm.done, ticks)
assert vm.boost_seen == [] and vm.uc.mem_read(AREA_BASE, 2 * AREA_SIZE) == b'\0' * 2 * AREA_SIZE
print('irq without an area: AREA(0), DONE(4), no BOOST_SEEN ok')

# irq: an area whose version is not 1 is FAIL(FAIL_BAD_AREA)
vm = Vm('irq', 4, 0, area=AREA_BASE, flags=IRQ_BOOST_IRQ)
vm.run()
assert vm.fail == 2 and vm.areas == [] and \
    vm.uc.mem_read(AREA_BASE, AREA_SIZE) == b'\0' * AREA_SIZE, (vm.fail, vm.areas)
print('irq: area version 0 -> FAIL(2), no flag raised ok')

# halt and boost: the handler's area stays 0, so HOST_BOOSTED in an area
# changes nothing for them (halt sends no BOOST_SEEN at all)
vm = Vm('halt', 2, 0, area=AREA_BASE)
vm.uc.mem_write(AREA_BASE, struct.pack('<II', 1, 1))
while not vm.stopped:
    kind, rip = run_to_wait(vm)
    if kind is None:
        break
    deliver_irq(vm, rip + 1)
assert vm.done == 2 and vm.boost_seen == [] and vm.areas == [], (vm.done, vm.boost_seen)
assert vcpu_ticks(vm) == 2
print('halt with an area: no BOOST_SEEN, DONE(2) ok')

# latency: the TSC, CPUID and WRMSR played here (a code hook: unicorn
# cannot hook RDTSC or WRMSR, and its own IA32_TSC_DEADLINE goes nowhere).
# Each sample: RDTSC, WRMSR(IA32_TSC_DEADLINE, TSC + period), a wait; the
# "host" then moves the TSC to deadline + latency and delivers the timer
# vector, whose handler stores the latency (0 if negative, saturated to 32
# bits) while the array has room.
LAT_BOOST_WAIT, LAT_BOOST_HOLD = 4, 8
GUEST_BOOST = 1
MSR_TSC_DEADLINE = 0x6e0
SAMPLES = 0x200000
PERIOD = 1000

def latency_vm(n, every, vcpu=0, nr=1, area=AREA_BASE, flags=0, period=PERIOD,
               samples=SAMPLES, samples_max=16, tsc_deadline=True):
    vm = Vm('latency', n, every, vcpu=vcpu, nr=nr, area=area, flags=flags,
            period_tsc=period, samples=samples, samples_max=samples_max)
    vm.tsc = 1 << 40
    vm.msrs = []
    vm.cpuid_1 = 0

    def on_cpuid(uc, data):
        leaf = uc.reg_read(UC_X86_REG_RAX) & 0xffffffff
        ecx = (1 << 24) if leaf == 1 and tsc_deadline else 0
        vm.cpuid_1 += leaf == 1
        for reg, val in ((UC_X86_REG_RAX, 0), (UC_X86_REG_RBX, 0),
                         (UC_X86_REG_RCX, ecx), (UC_X86_REG_RDX, 0)):
            uc.reg_write(reg, val)
        return 1

    def on_code(uc, addr, size, data):
        op = uc.mem_read(addr, 2)
        if op == b'\x0f\x31':                           # rdtsc
            uc.reg_write(UC_X86_REG_RAX, vm.tsc & 0xffffffff)
            uc.reg_write(UC_X86_REG_RDX, vm.tsc >> 32)
            uc.reg_write(UC_X86_REG_RIP, addr + 2)
        elif op == b'\x0f\x30':                         # wrmsr
            ecx = uc.reg_read(UC_X86_REG_RCX) & 0xffffffff
            val = (uc.reg_read(UC_X86_REG_RAX) & 0xffffffff) | \
                  (uc.reg_read(UC_X86_REG_RDX) & 0xffffffff) << 32
            vm.msrs.append((ecx, val))
            if vm.on_wrmsr:
                vm.on_wrmsr(vm, ecx, val)
            uc.reg_write(UC_X86_REG_RIP, addr + 2)

    vm.on_wrmsr = None
    vm.uc.hook_add(UC_HOOK_INSN, on_cpuid, None, 1, 0, UC_X86_INS_CPUID)
    vm.uc.hook_add(UC_HOOK_CODE, on_code)
    return vm

def samples_of(vm, base, count):
    return list(struct.unpack('<%dI' % count, vm.uc.mem_read(base, 4 * count)))

def run_latency(vm, gpa, lats, boosted=lambda i: 0, dups=(), want='hlt',
                flags_at_wait=None, shadow=()):
    """At each wait: check the deadline just armed, the wait kind and the
    guest flags; then TSC := deadline + lats[i] and the timer vector. For
    the samples in @shadow the vector comes in the shadow of the "sti"
    before the hlt, interrupting the hlt itself (as QEMU delivers it when
    it emulates SVM for a nested KVM): the handler must return past it."""
    i = 0
    while not vm.stopped:
        armed = len(vm.msrs)
        kind, rip = run_to_wait(vm)
        if kind is None:
            break
        assert kind == want, (kind, want)
        assert len(vm.msrs) == armed + 1, 'no WRMSR before the wait'
        msr, deadline = vm.msrs[-1]
        assert msr == MSR_TSC_DEADLINE and deadline == vm.tsc + PERIOD, (hex(msr), deadline)
        assert vm.lapic[0x320] == 0x40020, hex(vm.lapic[0x320])
        if kind == 'spin':
            before = vcpu_ticks(vm)
            vm.run(count=30)
            assert not vm.stopped and vcpu_ticks(vm) == before
            ret = vm.rip
        else:
            ret = rip + 1
        if gpa:
            if flags_at_wait is not None:
                got = area_u32(vm, gpa, GUEST_FLAGS)
                assert got == flags_at_wait, ('guest flags at a wait', got, flags_at_wait)
            vm.uc.mem_write(gpa + HOST_FLAGS, struct.pack('<I', boosted(i)))
        vm.tsc = deadline + lats[i]
        if kind == 'hlt' and i in shadow:
            deliver_irq(vm, rip, dup=i in dups, back=rip + 1)
        else:
            deliver_irq(vm, ret, dup=i in dups)
        vm.tsc += 5000          # the guest goes on some time later
        i += 1
    return i

# vCPU 1 of 2, 6 samples in an array of 8: late, exactly on time, late,
# beyond 32 bits (saturated), early (0), late.
gpa = AREA_BASE + AREA_SIZE
lats = [5, 0, 123456, 1 << 33, -10, 77]
vm = latency_vm(6, 2, vcpu=1, nr=2, samples_max=8)
vm.uc.mem_write(gpa, struct.pack('<I', 1))
vm.uc.mem_write(gpa + GUEST_FLAGS, struct.pack('<I', 0x80))   # unknown bit
n = run_latency(vm, gpa, lats, boosted=lambda i: i % 2, flags_at_wait=0x80)
assert vm.fail is None, vm.fail
assert n == 6 and vm.done == 6 and vm.progress == [2, 4, 6], (n, vm.done, vm.progress)
assert vm.areas == [gpa] and vm.boost_seen == [3] and vm.dup_irqs == [], \
    (vm.areas, vm.boost_seen, vm.dup_irqs)
assert vm.cpuid_1 == 1
arr = SAMPLES + 1 * 8 * 4
assert samples_of(vm, arr, 8) == [5, 0, 123456, 0xffffffff, 0, 77, 0, 0], samples_of(vm, arr, 8)
assert samples_of(vm, SAMPLES, 8) == [0] * 8, 'vCPU 0\'s array written'
assert vm.msrs[-1] == (MSR_TSC_DEADLINE, 0) and len(vm.msrs) == 7, vm.msrs[-2:]
assert vm.lapic[0x320] == 0x10000 and vm.lapic[0xf0] == 0x1ff and 0x3e0 not in vm.lapic
assert area_u32(vm, gpa, GUEST_FLAGS) == 0x80
lidt = vm.uc.reg_read(UC_X86_REG_IDTR)
syms = {}
for l in subprocess.check_output(['nm', GP + 'latency.elf']).decode().split('\n'):
    p = l.split()
    if len(p) == 3: syms[p[2]] = int(p[0], 16)
assert gate_of(vm, 0x20) == syms['latency_isr'] and gate_of(vm, 0xff) == syms['spurious_isr']
print('latency: AREA(%#x), 6 samples %s stored as %s, TSC deadline armed each time and '
      'disarmed at the end, BOOST_SEEN(3), DONE(6) ok' % (gpa, lats, samples_of(vm, arr, 6)))

# No room: samples_max 3 of 5 samples; the rest are counted, not stored.
vm = latency_vm(5, 0, area=0, samples_max=3)
n = run_latency(vm, 0, [10, 20, 30, 40, 50])
assert vm.done == 5 and n == 5 and vm.areas == [0] and vm.boost_seen == [], \
    (vm.done, n, vm.areas, vm.boost_seen)
assert samples_of(vm, SAMPLES, 6) == [10, 20, 30, 0, 0, 0], samples_of(vm, SAMPLES, 6)
assert vm.uc.mem_read(AREA_BASE, AREA_SIZE) == b'\0' * AREA_SIZE
print('latency without an area, 5 samples, room for 3: %s, DONE(5) ok' % samples_of(vm, SAMPLES, 3))

# The flags: at each WRMSR, at each wait, at each PROGRESS (after the
# sample) and at the end, which guest flags are up. BOOST_WAIT raises
# PVSCHED_GUEST_BOOST after the WRMSR, so that the WRMSR's exit shows the
# driver the last sample's request dropped.
def check_latency_flags(flags, want_wrmsr, want_wait, want_progress):
    vm = latency_vm(4, 1, area=AREA_BASE, flags=flags)
    vm.uc.mem_write(AREA_BASE, struct.pack('<I', 1))
    seen = {'wrmsr': [], 'progress': []}
    def on_wrmsr(vm, ecx, val):
        if val:
            seen['wrmsr'].append(area_u32(vm, AREA_BASE, GUEST_FLAGS))
    def on_ucall(vm, cmd, arg):
        if cmd == 1:
            seen['progress'].append(area_u32(vm, AREA_BASE, GUEST_FLAGS))
    vm.on_wrmsr = on_wrmsr
    vm.on_ucall = on_ucall
    n = run_latency(vm, AREA_BASE, [1, 2, 3, 4], boosted=lambda i: 1,
                    want='spin' if flags & IRQ_SPIN else 'hlt', flags_at_wait=want_wait)
    assert vm.fail is None and n == 4 and vm.done == 4 and vm.boost_seen == [4], \
        (vm.fail, n, vm.done, vm.boost_seen)
    assert seen['wrmsr'] == [want_wrmsr] * 4, (flags, seen)
    assert seen['progress'] == [want_progress] * 4, (flags, seen)
    assert area_u32(vm, AREA_BASE, GUEST_FLAGS) == 0, 'flags left up'
    assert samples_of(vm, SAMPLES, 4) == [1, 2, 3, 4]

for flags, wrmsr, wait, progress in (
        (0, 0, 0, 0),
        (IRQ_SPIN, 0, 0, 0),
        (IRQ_BOOST_IRQ, GUEST_BOOST_IRQ, GUEST_BOOST_IRQ, GUEST_BOOST_IRQ),
        # Down at the WRMSR, whose exit ends the last sample's boost.
        (LAT_BOOST_WAIT, 0, GUEST_BOOST, 0),
        (LAT_BOOST_WAIT | IRQ_SPIN, 0, GUEST_BOOST, 0),
        (LAT_BOOST_HOLD, GUEST_BOOST, GUEST_BOOST, GUEST_BOOST),
        (LAT_BOOST_HOLD | LAT_BOOST_WAIT, GUEST_BOOST, GUEST_BOOST, GUEST_BOOST),
        (LAT_BOOST_WAIT | IRQ_BOOST_IRQ, GUEST_BOOST_IRQ, 3, GUEST_BOOST_IRQ)):
    check_latency_flags(flags, wrmsr, wait, progress)
    print('latency flags %#x: guest flags %#x at each WRMSR and wait, %#x after each '
          'sample, 0 at the end ok' % (flags, wrmsr, progress))

# Without an area the flags touch nothing.
vm = latency_vm(2, 0, area=0, flags=LAT_BOOST_WAIT | LAT_BOOST_HOLD | IRQ_BOOST_IRQ)
assert run_latency(vm, 0, [1, 2]) == 2 and vm.done == 2 and vm.areas == [0]
assert vm.uc.mem_read(AREA_BASE, AREA_SIZE) == b'\0' * AREA_SIZE
print('latency without an area: boost flags touch no memory, DONE(2) ok')

# A duplicate delivery is no sample, no EOI; a spurious interrupt wakes
# the hlt but the guest halts again for its sample.
vm = latency_vm(3, 0, area=0)
n = run_latency(vm, 0, [7, 8, 9], dups=(1,))
assert vm.done == 3 and n == 3 and vm.dup_irqs == [1], (vm.done, n, vm.dup_irqs)
assert samples_of(vm, SAMPLES, 4) == [7, 8, 9, 0]
vm = latency_vm(1, 0, area=0)
kind, rip = run_to_wait(vm)
uc = vm.uc
rsp = uc.reg_read(UC_X86_REG_RSP) - 40
uc.mem_write(rsp, struct.pack('<QQQQQ', rip + 1, 8, 2, rsp + 40, 0x10))
uc.reg_write(UC_X86_REG_RSP, rsp)
vm.rip = gate_of(vm, 0xff)
vm.run(count=1)                                  # spurious_isr: iretq
assert vm.rip == rip + 1
kind, rip2 = run_to_wait(vm)
assert kind == 'hlt' and rip2 == rip and len(vm.msrs) == 1, (kind, hex(rip2), vm.msrs)
vm.tsc = vm.msrs[-1][1] + 42
deliver_irq(vm, rip2 + 1)
vm.run()
assert vm.done == 1 and samples_of(vm, SAMPLES, 1) == [42]
print('latency: duplicate delivery DUP_IRQS(1) and no sample; a spurious wake-up halts '
      'again, no sample ok')

# The tick in the shadow of "sti", the hlt not executed yet (QEMU's TCG
# emulating SVM for a nested KVM does that): the handler returns past the
# hlt, as a CPU whose hlt the tick woke, instead of halting with the
# one-shot timer spent; counted as SHADOW_IRQS, with a duplicate too.
vm = latency_vm(4, 0, area=0)
n = run_latency(vm, 0, [3, 4, 5, 6], dups=(2,), shadow=(0, 2))
assert vm.fail is None and vm.done == 4 and n == 4, (vm.fail, vm.done, n)
assert vm.shadow_irqs == [2] and vm.dup_irqs == [1], (vm.shadow_irqs, vm.dup_irqs)
assert samples_of(vm, SAMPLES, 4) == [3, 4, 5, 6], samples_of(vm, SAMPLES, 4)
print('latency: ticks in the sti shadow return past the hlt: SHADOW_IRQS(2), '
      'DUP_IRQS(1), 4 samples, DONE(4) ok')

# --seconds: params.stop ends the loop after the sample in progress.
vm = latency_vm(0, 0, area=0)
for i in range(3):
    kind, rip = run_to_wait(vm)
    vm.tsc = vm.msrs[-1][1] + i
    deliver_irq(vm, rip + 1)
vm.uc.mem_write(PARAMS + 36, struct.pack('<I', 1))
vm.run()
assert vm.done == 3 and len(vm.msrs) == 4 and samples_of(vm, SAMPLES, 4) == [0, 1, 2, 0]
print('latency --seconds: stop flag -> DONE(3) ok')

# FAILs: no TSC-deadline timer, bad params, bad area; nothing armed, no
# flag raised.
vm = latency_vm(3, 0, tsc_deadline=False, flags=LAT_BOOST_HOLD)
vm.uc.mem_write(AREA_BASE, struct.pack('<I', 1))
vm.run()
assert vm.fail == 3 and vm.areas == [] and vm.msrs == [] and \
    area_u32(vm, AREA_BASE, GUEST_FLAGS) == 0, (vm.fail, vm.areas, vm.msrs)
print('latency without CPUID.1:ECX.TSC_DEADLINE -> FAIL(3) ok')
for kw in ({'period': 0}, {'samples': 0}, {'samples_max': 0}):
    vm = latency_vm(3, 0, **kw)
    vm.run()
    assert vm.fail == 1 and vm.areas == [] and vm.msrs == [], (kw, vm.fail)
print('latency: period_tsc, samples_gpa or samples_max 0 -> FAIL(1) ok')
vm = latency_vm(3, 0, flags=LAT_BOOST_HOLD | IRQ_BOOST_IRQ)
vm.run()
assert vm.fail == 2 and vm.areas == [] and vm.msrs == [] and \
    vm.uc.mem_read(AREA_BASE, AREA_SIZE) == b'\0' * AREA_SIZE, (vm.fail, vm.areas)
print('latency: area version 0 -> FAIL(2), no flag raised ok')

print('payload emulation: all checks passed')
