// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what a guest reaches. A sequence of accesses, each
 * as KVM hands it to minivmm in a vCPU's kvm_run, driven into
 * kvm_cpu__handle_exit(), the I/O dispatch of kvm-cpu.c: port I/O (the
 * port bus of ioport.c with the debug exit, the keyboard controller,
 * CMOS, the 16550A of serial.c and PCI configuration mechanism #1 of
 * pci.c), MMIO (PCI BARs), WRMSR of MSR_KVM_PVSCHED (the guest's pvsched
 * area, made with KVM_SET_MSRS on the fake /dev/kvm of tests/fake-kvm.c,
 * which checks it as KVM does), the guest's own writes to its RAM (ucall
 * blocks, areas), and what the main thread does meanwhile (console input
 * into the UART, sampling the areas). minivmm's PCI bus has no function
 * with a BAR: the target puts one in slot 1, whose callback checks what
 * reaches it. The UART's output goes to a console (serial__console_tx())
 * whose stdout blocks for ever: a pipe nobody reads.
 *
 * The input: byte 0 is the machine, then records of 16 bytes:
 *
 *   machine  bit 0: a Linux guest (else a payload: ucall and work ports
 *            only), bit 1: --refuse-areas, bits 2-3: vCPUs - 1,
 *            bits 4-6: the BAR's size, 4 KiB << n
 *   record   u8 kind, u8 vcpu, u8 size, u8 count, u32 port or length,
 *            u64 address or value (little-endian)
 *
 * kind % 5: 0 port I/O of @size (1, 2 or 4: size % 3) bytes, @count
 * (1..64) times (string I/O), at @port (low 16 bits), OUT if bit 16 of
 * @port, the data @value's bytes over and over; 1 MMIO of 1 + @size % 15
 * bytes (KVM gives 1..8; minivmm clamps) at @address, a write if @count is odd;
 * 2 WRMSR of MSR_KVM_PVSCHED with @value; 3 a guest write of @value's 8
 * bytes at GPA @port; 4 the main thread: serial__receive() of @size % 9
 * of @value's bytes, serial__rx_room(), or the area sampled or read
 * after the run (@count % 4).
 *
 * Invariants, after every access, besides no crash and no sanitizer
 * report (guest RAM is a malloc()ed buffer of exactly its size):
 * - an access writes no byte of kvm_run's data beyond its own;
 * - a port IN nobody decodes, and an MMIO read no BAR decodes, read all
 *   ones; the port bus counts the first as unhandled;
 * - CONFIG_ADDRESS reads back what the last 32-bit OUT wrote; CONFIG_DATA
 *   reads of an absent function are all ones, of the host bridge its
 *   IDs and class; a BAR keeps its low bits clear and the command
 *   register no bit but memory space enable;
 * - the BAR's callback sees an offset inside the BAR, at most 8 bytes,
 *   only while memory decode is on and the BAR is outside guest RAM and
 *   KVM's pages;
 * - the UART: IIR one of the documented values (FIFO bits only with the
 *   FIFO on), IER and MCR no reserved bit, the receive FIFO no deeper
 *   than its size, LSR.DR exactly when it holds data, the IRQ line as
 *   IIR says and as last signalled, every byte sent counted once; an
 *   access returns although the console's stdout blocks (a hang is
 *   libFuzzer's timeout);
 * - the debug exit and the keyboard controller's reset end the run on
 *   the access that makes them (KVM_CPU_EXITED), and the first one
 *   wins, with its status (the byte written) and vCPU;
 * - a registered pvsched area (cpu->area_gpa) is always 0 or 64-byte
 *   aligned and whole inside guest RAM, what KVM took last; a refused
 *   write (#GP) changes nothing; with --refuse-areas nothing but 0 is
 *   taken;
 * - a payload's vCPU: a write of its work port is RUNNING only with the
 *   expected byte; anything else but the ucall port is ERROR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fuzz.h"
#include "ioport.h"
#include "kvm-cpu.h"
#include "kvm.h"
#include "pci.h"
#include "serial.h"
#include "../guest-payload/minivmm-guest.h"

#define FUZZ_MEM_SIZE		0x40000ULL	/* 256 KiB of guest RAM */
#define FUZZ_MAX_VCPUS		4
#define FUZZ_RECORD		16
#define FUZZ_MAX_COUNT		64
#define FUZZ_RUN_SIZE		(3 * 4096)	/* kvm_run, PIO page, guard */
#define FUZZ_PIO_OFFSET		4096
#define FUZZ_GUARD		0xa5	/* the bytes after an access's data */
#define FUZZ_GUARD_BYTES	64
#define FUZZ_BAR_SLOT		1

enum { OP_PIO, OP_MMIO, OP_WRMSR, OP_RAM, OP_MAIN, OP_KINDS };

static struct kvm kvm;
static struct kvm_cpu cpus[FUZZ_MAX_VCPUS];
static struct kvm_run *runs[FUZZ_MAX_VCPUS];
static unsigned int nr_cpus;
static char *mem;

static struct serial serial;
static struct ioport_bus io_bus;
static struct pci_bus pci;
static struct pci_func bar_func;
static int stop;

/* What the callbacks saw. */
static unsigned long long tx_seen;
static int irq_level;
static struct {
	bool hit;
	unsigned int vcpu;
	__u64 addr;
	unsigned int len;
} bar_access;

/* The model's expectations. */
static __u32 config_address;
static bool config_address_set;
static enum guest_exit_reason exit_reason;
static int exit_status;
static unsigned int exit_vcpu;

/*
 * The UART's output goes to a console as minivmm's does, whose stdout
 * blocks: a pipe, filled at start, that nobody reads. Issue 37: the
 * UART wrote to it with its lock held, and every vCPU and the main
 * thread stalled; a THR write must return (libFuzzer's -timeout).
 */
static struct serial_console console;

static void fuzz_tx(void *opaque, __u8 byte)
{
	(void)opaque;
	tx_seen++;
	serial__console_tx(&console, byte);
}

static void fuzz_console_start(void)
{
	static char buf[4096];
	int out[2], in;

	FUZZ_CHECK(!pipe(out), "pipe");
	fcntl(out[1], F_SETFL, O_NONBLOCK);
	while (write(out[1], buf, sizeof(buf)) > 0)
		;
	while (write(out[1], buf, 1) == 1)
		;
	fcntl(out[1], F_SETFL, 0);
	in = open("/dev/null", O_RDONLY);
	FUZZ_CHECK(in >= 0, "/dev/null");
	serial__console_start(&console, in, out[1]);
}

static void fuzz_set_irq(void *opaque, bool level)
{
	(void)opaque;
	FUZZ_CHECK(level != irq_level, "IRQ line set to %d twice", level);
	irq_level = level;
	kvm__irq_line(&kvm, SERIAL_COM1_IRQ, level);
}

static void fuzz_bar_mmio(void *priv, unsigned int vcpu, __u32 offset,
			  __u8 *data, unsigned int len, bool is_write)
{
	struct pci_func *f = priv;

	FUZZ_CHECK(offset < f->bar_size, "BAR offset %#x beyond its %#x bytes",
		   offset, f->bar_size);
	FUZZ_CHECK(len && len <= 8, "BAR access of %u bytes", len);
	FUZZ_CHECK(f->command & PCI_COMMAND_MEMORY,
		   "BAR access with memory decode off");
	FUZZ_CHECK(pci__bar_usable(&pci, f->bar, f->bar_size),
		   "BAR at %#x decodes over RAM or KVM's pages", f->bar);
	FUZZ_CHECK(f->bar + (__u64)offset == bar_access.addr,
		   "BAR offset %#x for address %#llx", offset,
		   (unsigned long long)bar_access.addr);
	bar_access.hit = true;
	bar_access.vcpu = vcpu;
	if (!is_write)
		memset(data, 0x42, len);
}

/* Once: the fake /dev/kvm, a VM, its vCPUs; guest RAM is ours. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct kvm_userspace_memory_region region = { 0 };
	struct kvm_cpuid2 *cpuid;
	unsigned int i;

	(void)argc;
	(void)argv;
	/*
	 * minivmm's one line per bad exit (vcpu_err()) on every input
	 * would bury libFuzzer's: silenced unless $FUZZ_VERBOSE is set.
	 * FUZZ_CHECK() and the sanitizers write to fd 2 themselves.
	 */
	if (!getenv("FUZZ_VERBOSE"))
		stderr = fopen("/dev/null", "w");
	/* The fake offers KVM_FEATURE_PVSCHED and takes the MSR. */
	setenv("FAKE_KVM_LINUX_PVSCHED", "msr", 1);
	kvm__init(&kvm);
	FUZZ_CHECK(!kvm__open(&kvm), "the fake /dev/kvm");
	kvm.vm_fd = __kvm_sys_ioctl(&kvm, KVM_CREATE_VM, 0);
	FUZZ_CHECK(kvm.vm_fd >= 0, "KVM_CREATE_VM on the fake");
	FUZZ_CHECK(!__kvm_vm_ioctl(&kvm, KVM_CREATE_IRQCHIP, 0),
		   "KVM_CREATE_IRQCHIP");
	kvm.irqchip = true;
	mem = malloc(FUZZ_MEM_SIZE);
	FUZZ_CHECK(mem, "guest memory");
	kvm.mem = mem;
	kvm.mem_size = FUZZ_MEM_SIZE;
	region.memory_size = FUZZ_MEM_SIZE;
	region.userspace_addr = (unsigned long)mem;
	FUZZ_CHECK(!__kvm_vm_ioctl(&kvm, KVM_SET_USER_MEMORY_REGION, &region),
		   "KVM_SET_USER_MEMORY_REGION");

	cpuid = calloc(1, sizeof(*cpuid) + 3 * sizeof(cpuid->entries[0]));
	FUZZ_CHECK(cpuid, "cpuid");
	for (i = 0; i < FUZZ_MAX_VCPUS; i++) {
		FUZZ_CHECK(!kvm_cpu__init(&cpus[i], &kvm, i), "vcpu%u", i);
		/* Our own kvm_run: a PIO page after it, a guard page. */
		runs[i] = aligned_alloc(4096, FUZZ_RUN_SIZE);
		FUZZ_CHECK(runs[i], "kvm_run");
		cpus[i].run = runs[i];
		cpus[i].stop = &stop;
		/* What KVM_SET_MSRS of MSR_KVM_PVSCHED needs on the fake. */
		cpuid->nent = 3;
		cpuid->entries[1].function = 1;
		cpuid->entries[1].ebx = i << 24;
		cpuid->entries[2].function = KVM_CPUID_FEATURES_LEAF;
		cpuid->entries[2].eax = 1U << KVM_FEATURE_PVSCHED;
		FUZZ_CHECK(!__kvm_cpu_ioctl(&cpus[i], KVM_SET_CPUID2, cpuid),
			   "KVM_SET_CPUID2");
	}
	free(cpuid);
	fuzz_console_start();
	return 0;
}

/* A new machine for each input. */
static void fuzz_reset(__u8 machine)
{
	unsigned int i;

	memset(mem, 0, FUZZ_MEM_SIZE);
	nr_cpus = 1 + (machine >> 2) % FUZZ_MAX_VCPUS;
	kvm.linux_guest = machine & 1;
	kvm.refuse_areas = machine & 2;
	kvm.pvsched_msr = kvm.linux_guest;
	memset(&kvm.exit, 0, sizeof(kvm.exit));
	for (i = 0; i < FUZZ_MAX_VCPUS; i++) {
		struct kvm_cpu *c = &cpus[i];

		/* Nothing registered in the fake from the last input. */
		FUZZ_CHECK(!kvm_cpu__set_guest_pvsched_msr(c, 0),
			   "unregistering vcpu%u", i);
		c->area_gpa = 0;
		c->area_registrations = 0;
		c->area_unregistrations = 0;
		c->area_refusals = 0;
		c->work_writes = 0;
		c->progress = 0;
		c->done = 0;
		memset(&c->exits, 0, sizeof(c->exits));
		memset(&c->guest_seen, 0, sizeof(c->guest_seen));
	}

	if (serial.tx)
		serial__destroy(&serial);
	serial__init(&serial, fuzz_tx, fuzz_set_irq, NULL);
	tx_seen = 0;
	irq_level = 0;
	ioport__init(&io_bus, &kvm.exit);
	FUZZ_CHECK(!ioport__register_legacy(&io_bus, &serial), "legacy ports");
	if (pci.host_bridge.vendor)
		pci__destroy(&pci);
	pci__init(&pci, FUZZ_MEM_SIZE);
	FUZZ_CHECK(!pci__register_host_bridge(&pci) &&
		   !pci__register_ports(&pci, &io_bus), "PCI bus");
	memset(&bar_func, 0, sizeof(bar_func));
	bar_func.vendor = 0x1234;
	bar_func.device = 0xf022;
	bar_func.class_rev = 0xff0000;
	bar_func.bar_size = 0x1000U << ((machine >> 4) & 7);
	bar_func.mmio = fuzz_bar_mmio;
	bar_func.priv = &bar_func;
	FUZZ_CHECK(!pci__register(&pci, FUZZ_BAR_SLOT, &bar_func, 0xe0000000),
		   "the BAR's function");
	kvm.io_bus = kvm.linux_guest ? &io_bus : NULL;
	kvm.pci = kvm.linux_guest ? &pci : NULL;

	config_address = 0;
	config_address_set = true;
	exit_reason = GUEST_EXIT_NONE;
	exit_status = 0;
	exit_vcpu = 0;
}

static __u64 get_le(const uint8_t *p, unsigned int bytes)
{
	__u64 v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (__u64)p[i] << 8 * i;
	return v;
}

static void check_serial(void)
{
	__u8 iir = serial__iir(&serial), id = iir & 0x0f;
	bool fifo = serial.fcr & UART_FCR_ENABLE_FIFO;

	FUZZ_CHECK(id == UART_IIR_NO_INT || id == UART_IIR_MSI ||
		   id == UART_IIR_THRI || id == UART_IIR_RDI ||
		   id == UART_IIR_RLSI, "IIR %#x", iir);
	FUZZ_CHECK((iir & 0xf0) == (fifo ? UART_IIR_FIFO_ENABLED : 0),
		   "IIR %#x with FCR %#x", iir, serial.fcr);
	FUZZ_CHECK(!(serial.ier & ~UART_IER_MASK) &&
		   !(serial.mcr & ~UART_MCR_MASK), "IER %#x MCR %#x",
		   serial.ier, serial.mcr);
	FUZZ_CHECK(serial.rx_count <= (fifo ? SERIAL_FIFO_SIZE : 1U) &&
		   serial.rx_head < SERIAL_FIFO_SIZE,
		   "receive FIFO: %u bytes from %u", serial.rx_count,
		   serial.rx_head);
	FUZZ_CHECK(!(serial.lsr & UART_LSR_DR) == !serial.rx_count,
		   "LSR %#x with %u bytes received", serial.lsr,
		   serial.rx_count);
	FUZZ_CHECK(serial.irq == serial__irq_line(&serial) &&
		   serial.irq == irq_level, "IRQ line %d, IIR %#x, signalled %d",
		   serial.irq, iir, irq_level);
	FUZZ_CHECK(serial.tx_bytes == tx_seen, "%llu bytes sent, %llu seen",
		   serial.tx_bytes, tx_seen);
}

static void check_areas(void)
{
	unsigned int i, j;
	__u64 gpa;

	for (i = 0; i < nr_cpus; i++) {
		gpa = cpus[i].area_gpa;
		if (!gpa)
			continue;
		FUZZ_CHECK(!(gpa % PVSCHED_AREA_SIZE) &&
			   gpa <= FUZZ_MEM_SIZE - PVSCHED_AREA_SIZE,
			   "vcpu%u: area at %#llx", i, (unsigned long long)gpa);
		FUZZ_CHECK(!kvm.refuse_areas, "vcpu%u: an area with --refuse-areas",
			   i);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(cpus[j].area_gpa != gpa,
				   "vcpu%u and vcpu%u share the area at %#llx",
				   j, i, (unsigned long long)gpa);
	}
}

static void check_pci(void)
{
	FUZZ_CHECK(!(bar_func.bar & (bar_func.bar_size - 1)),
		   "BAR %#x with low bits set", bar_func.bar);
	FUZZ_CHECK(!(bar_func.command & ~PCI_COMMAND_MEMORY),
		   "command %#x", bar_func.command);
	FUZZ_CHECK(!pci.host_bridge.bar && !pci.host_bridge.command,
		   "the host bridge grew a BAR");
	FUZZ_CHECK(!config_address_set || pci.address == config_address,
		   "CONFIG_ADDRESS %#x, last written %#x", pci.address,
		   config_address);
}

/* What a CONFIG_DATA dword should read, -1 if the model does not know. */
static long long pci_expected(void)
{
	__u32 a = config_address;
	unsigned int slot = (a >> 11) & 0x1f, reg = a & 0xfc;

	if (!(a & PCI_CONFIG_ENABLE) || (a & PCI_CONFIG_RESERVED) ||
	    (a >> 16) & 0xff || (a >> 8) & 7 ||
	    (slot != PCI_HOST_BRIDGE_SLOT && slot != FUZZ_BAR_SLOT))
		return 0xffffffffU;
	if (slot == FUZZ_BAR_SLOT)
		return -1;
	if (reg == PCI_VENDOR_ID)
		return PCI_HOST_BRIDGE_VENDOR | PCI_HOST_BRIDGE_DEVICE << 16;
	if (reg == PCI_CLASS_REVISION)
		return PCI_HOST_BRIDGE_CLASS << 8;
	return 0;
}

static bool ioport_decoded(__u16 port)
{
	return port == IOPORT_DEBUG_EXIT || port == IOPORT_I8042_DATA ||
	       port == IOPORT_I8042_CMD || port == IOPORT_CMOS_INDEX ||
	       port == IOPORT_CMOS_DATA ||
	       (port >= SERIAL_COM1_BASE &&
		port < SERIAL_COM1_BASE + SERIAL_NR_REGS) ||
	       (port >= PCI_CONFIG_ADDRESS &&
		port < PCI_CONFIG_ADDRESS + PCI_CONFIG_PORTS);
}

/*
 * The guest exit a port access of @count elements of @size bytes makes,
 * as the model sees it: the first element that ends the run does.
 */
static void pio_model_exit(struct kvm_cpu *cpu, __u16 port, const __u8 *d,
			   unsigned int size, unsigned int count, bool out,
			   enum kvm_cpu_state state)
{
	enum guest_exit_reason r = GUEST_EXIT_NONE;
	int status = 0;
	unsigned int i;

	for (i = 0; out && i < count && r == GUEST_EXIT_NONE; i++) {
		if (port == IOPORT_DEBUG_EXIT) {
			r = GUEST_EXIT_DEBUG;
			status = d[i * size];
		} else if (port == IOPORT_I8042_CMD &&
			   d[i * size] == I8042_CMD_RESET) {
			r = GUEST_EXIT_RESET;
		}
	}
	FUZZ_CHECK((r != GUEST_EXIT_NONE) == (state == KVM_CPU_EXITED),
		   "port %#x: state %d", port, state);
	if (r != GUEST_EXIT_NONE && exit_reason == GUEST_EXIT_NONE) {
		exit_reason = r;
		exit_status = status;
		exit_vcpu = cpu->id;
	}
	FUZZ_CHECK(guest_exit__reason(&kvm.exit) == exit_reason &&
		   (exit_reason == GUEST_EXIT_NONE ||
		    (kvm.exit.status == exit_status &&
		     (unsigned int)kvm.exit.vcpu == exit_vcpu)),
		   "guest exit %d status %d vcpu %d, expected %d %d %u",
		   kvm.exit.reason, kvm.exit.status, kvm.exit.vcpu,
		   exit_reason, exit_status, exit_vcpu);
}

static void do_pio(struct kvm_cpu *cpu, const uint8_t *r)
{
	static const unsigned int sizes[] = { 1, 2, 4 };
	unsigned int size = sizes[r[2] % 3], count = 1 + r[3] % FUZZ_MAX_COUNT;
	__u32 arg = get_le(r + 4, 4);
	__u16 port = arg;
	bool out = arg & 0x10000;
	struct kvm_run *run = cpu->run;
	__u8 *d = (__u8 *)run + FUZZ_PIO_OFFSET;
	unsigned long long unhandled = io_bus.unhandled;
	enum kvm_cpu_state state;
	unsigned int i, n = size * count;
	__u8 before = 0;

	memset(d, FUZZ_GUARD, n + FUZZ_GUARD_BYTES);
	for (i = 0; out && i < n; i++)
		d[i] = r[8 + i % 8];
	run->exit_reason = KVM_EXIT_IO;
	run->io.direction = out ? KVM_EXIT_IO_OUT : KVM_EXIT_IO_IN;
	run->io.size = size;
	run->io.port = port;
	run->io.count = count;
	run->io.data_offset = FUZZ_PIO_OFFSET;
	if (port == PCI_CONFIG_ADDRESS && size == 4)
		before = 1;
	state = kvm_cpu__handle_exit(cpu);

	for (i = n; i < n + FUZZ_GUARD_BYTES; i++)
		FUZZ_CHECK(d[i] == FUZZ_GUARD,
			   "port %#x size %u count %u wrote byte %u", port,
			   size, count, i);
	if (!kvm.linux_guest) {
		FUZZ_CHECK(state == KVM_CPU_ERROR || state == KVM_CPU_RUNNING ||
			   state == KVM_CPU_DONE ||
			   state == KVM_CPU_GUEST_FAIL,
			   "payload port %#x: state %d", port, state);
		FUZZ_CHECK(state == KVM_CPU_ERROR ||
			   (out && count == 1 &&
			    ((port == MINIVMM_UCALL_PORT && size == 4) ||
			     (port == MINIVMM_WORK_PORT && size == 1))),
			   "payload port %#x size %u count %u: state %d",
			   port, size, count, state);
		return;
	}
	pio_model_exit(cpu, port, d, size, count, out, state);
	if (!ioport_decoded(port)) {
		FUZZ_CHECK(io_bus.unhandled == unhandled + count,
			   "port %#x: %llu unhandled, was %llu", port,
			   io_bus.unhandled, unhandled);
		for (i = 0; !out && i < n; i++)
			FUZZ_CHECK(d[i] == 0xff, "port %#x read %#x", port,
				   d[i]);
	} else {
		FUZZ_CHECK(io_bus.unhandled == unhandled,
			   "port %#x counted unhandled", port);
	}
	if (before && out)
		config_address = get_le(d + n - 4, 4);
	if (!out && port == PCI_CONFIG_ADDRESS && size == 4) {
		for (i = 0; i < count; i++)
			FUZZ_CHECK(get_le(d + 4 * i, 4) == config_address,
				   "CONFIG_ADDRESS read %#llx, wrote %#x",
				   (unsigned long long)get_le(d + 4 * i, 4),
				   config_address);
	}
	if (!out && port >= PCI_CONFIG_DATA &&
	    port < PCI_CONFIG_ADDRESS + PCI_CONFIG_PORTS &&
	    pci_expected() >= 0) {
		unsigned int byte = port - PCI_CONFIG_DATA, j;
		__u32 want = pci_expected();

		for (i = 0; i < count; i++) {
			for (j = 0; j < size; j++) {
				__u8 e = byte + j < 4 ?
					 want >> 8 * (byte + j) : 0xff;

				FUZZ_CHECK(d[i * size + j] == e,
					   "CONFIG_DATA %#x+%u at %#x read %#x, not %#x",
					   port, j, config_address,
					   d[i * size + j], e);
			}
		}
	}
}

static void do_mmio(struct kvm_cpu *cpu, const uint8_t *r)
{
	struct kvm_run *run = cpu->run;
	unsigned int len = 1 + r[2] % 15;
	bool is_write = r[3] & 1;
	__u64 addr = get_le(r + 8, 8);
	unsigned int i;

	run->exit_reason = KVM_EXIT_MMIO;
	run->mmio.phys_addr = addr;
	run->mmio.len = len;
	run->mmio.is_write = is_write;
	memcpy(run->mmio.data, r + 4, 4);
	memcpy(run->mmio.data + 4, r + 4, 4);
	bar_access.hit = false;
	bar_access.addr = addr;
	if (!kvm.linux_guest) {
		FUZZ_CHECK(kvm_cpu__handle_exit(cpu) == KVM_CPU_ERROR,
			   "a payload's MMIO did not end it");
		return;
	}
	FUZZ_CHECK(kvm_cpu__handle_exit(cpu) == KVM_CPU_RUNNING,
		   "MMIO ended the run");
	FUZZ_CHECK(!bar_access.hit || bar_access.vcpu == cpu->id,
		   "the BAR saw vcpu%u for vcpu%u", bar_access.vcpu, cpu->id);
	if (bar_access.hit || is_write)
		return;
	for (i = 0; i < sizeof(run->mmio.data); i++)
		FUZZ_CHECK(run->mmio.data[i] == 0xff,
			   "MMIO read at %#llx, no device: %#x",
			   (unsigned long long)addr, run->mmio.data[i]);
}

static void do_wrmsr(struct kvm_cpu *cpu, const uint8_t *r)
{
	struct kvm_run *run = cpu->run;
	__u64 val = get_le(r + 8, 8), gpa = val & ~KVM_PVSCHED_VERSION_MASK;
	__u64 before = cpu->area_gpa;
	unsigned int refusals = cpu->area_refusals;
	enum kvm_cpu_state state;

	run->exit_reason = KVM_EXIT_X86_WRMSR;
	run->msr.index = MSR_KVM_PVSCHED;
	run->msr.reason = KVM_MSR_EXIT_REASON_FILTER;
	run->msr.data = val;
	run->msr.error = 0;
	state = kvm_cpu__handle_exit(cpu);
	if (!kvm.linux_guest) {
		FUZZ_CHECK(state == KVM_CPU_ERROR, "a payload's WRMSR");
		return;
	}
	FUZZ_CHECK(state == KVM_CPU_RUNNING, "WRMSR %#llx: state %d",
		   (unsigned long long)val, state);
	FUZZ_CHECK(run->msr.error <= 1, "msr.error %u", run->msr.error);
	if (kvm.refuse_areas && val) {
		FUZZ_CHECK(run->msr.error && cpu->area_gpa == before &&
			   cpu->area_refusals == refusals + 1,
			   "--refuse-areas took %#llx",
			   (unsigned long long)val);
		return;
	}
	if (run->msr.error) {
		FUZZ_CHECK(cpu->area_gpa == before,
			   "a refused %#llx changed the area",
			   (unsigned long long)val);
		return;
	}
	FUZZ_CHECK(!val || (val & KVM_PVSCHED_VERSION_MASK) == 1,
		   "version %llu taken",
		   (unsigned long long)(val & KVM_PVSCHED_VERSION_MASK));
	FUZZ_CHECK(cpu->area_gpa == gpa, "area %#llx after %#llx taken",
		   (unsigned long long)cpu->area_gpa, (unsigned long long)val);
}

static void do_main(struct kvm_cpu *cpu, const uint8_t *r)
{
	unsigned int room, n = r[2] % 9;

	switch (r[3] % 4) {
	case 0:
		room = serial__rx_room(&serial);
		FUZZ_CHECK(serial__receive(&serial, r + 8, n) ==
			   (n < room ? n : room), "received more than room");
		break;
	case 1:
		room = serial__rx_room(&serial);
		FUZZ_CHECK(room <= SERIAL_FIFO_SIZE, "room %u", room);
		break;
	case 2:
		kvm_cpu__sample_guest_fields(cpu);
		break;
	case 3:
		kvm_cpu__read_pvsched_area(cpu);
		FUZZ_CHECK(cpu->area_gpa || !cpu->area.version,
			   "an area read without one");
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kvm_cpu *cpu;
	const uint8_t *r;
	__u64 gpa;

	if (!size)
		return 0;
	fuzz_reset(data[0]);
	for (r = data + 1; r + FUZZ_RECORD <= data + size; r += FUZZ_RECORD) {
		cpu = &cpus[r[1] % nr_cpus];
		switch (r[0] % OP_KINDS) {
		case OP_PIO:
			do_pio(cpu, r);
			break;
		case OP_MMIO:
			do_mmio(cpu, r);
			break;
		case OP_WRMSR:
			do_wrmsr(cpu, r);
			break;
		case OP_RAM:
			gpa = get_le(r + 4, 4) % (FUZZ_MEM_SIZE - 7);
			memcpy(mem + gpa, r + 8, 8);
			break;
		case OP_MAIN:
			do_main(cpu, r);
			break;
		}
		if (kvm.linux_guest) {
			check_serial();
			check_pci();
		}
		check_areas();
	}
	return 0;
}
