// SPDX-License-Identifier: GPL-2.0
/*
 * Booting Linux: the bzImage checks and their messages, the placement of
 * the kernel and the initrd, e820, the zero page, the MP table; then runs
 * of tests/minivmm-fake --kernel against the fake Linux guest of
 * tests/fake-kvm.c, which checks what a kernel would find and talks to
 * the UART and the debug-exit port.
 */
#define _GNU_SOURCE
#include <asm/bootparam.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "linux.h"
#include "mptable.h"
#include "tap.h"

#define KERNEL_SIZE	8192
#define SETUP_SECTS	1
#define MIB		(1ULL << 20)

/* A fake bzImage's header fields; fake_bzimage() starts from good ones. */
struct fake_hdr {
	const char *magic;		/* "HdrS" */
	__u16 version;
	__u16 xloadflags;
	__u8 loadflags;
	__u32 init_size;
	__u64 pref_address;
	__u32 cmdline_size;
	__u32 initrd_addr_max;
	size_t size;			/* of the file */
};

static const struct fake_hdr good = {
	.magic = "HdrS", .version = 0x020f, .xloadflags = XLF_KERNEL_64,
	.loadflags = LOADED_HIGH, .init_size = 0x100000,
	.pref_address = 0x1000000, .cmdline_size = 2047,
	.initrd_addr_max = 0x7fffffff, .size = KERNEL_SIZE,
};

static void put(unsigned char *b, size_t off, __u64 v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		b[off + i] = v >> (8 * i);
}

/* A bzImage: header, then the "kernel": bytes 0, 1, 2, ... */
static void fake_bzimage(unsigned char *b, const struct fake_hdr *h)
{
	size_t i;

	memset(b, 0, KERNEL_SIZE);
	for (i = (SETUP_SECTS + 1) * 512; i < KERNEL_SIZE; i++)
		b[i] = i;
	b[0x1f1] = SETUP_SECTS;
	put(b, 0x1fe, 0xaa55, 2);
	b[0x200] = 0xeb;
	b[0x201] = 0x6a;		/* the header ends at 0x26c */
	memcpy(b + 0x202, h->magic, 4);
	put(b, 0x206, h->version, 2);
	b[0x211] = h->loadflags;
	put(b, 0x22c, h->initrd_addr_max, 4);
	put(b, 0x230, 0x200000, 4);
	put(b, 0x236, h->xloadflags, 2);
	put(b, 0x238, h->cmdline_size, 4);
	put(b, 0x258, h->pref_address, 8);
	put(b, 0x260, h->init_size, 4);
}

static int write_bzimage(const char *name, const struct fake_hdr *h,
			 char *path, size_t len)
{
	unsigned char b[KERNEL_SIZE];
	FILE *f;

	fake_bzimage(b, h);
	snprintf(path, len, "%s/%s", tap_tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fwrite(b, 1, h->size < KERNEL_SIZE ? h->size : KERNEL_SIZE, f);
	return fclose(f);
}

static char err[512];

static int parse_hdr(const struct fake_hdr *h, struct linux_image *img)
{
	static unsigned char b[KERNEL_SIZE];

	fake_bzimage(b, h);
	err[0] = '\0';
	return linux__parse(b, h->size, img, err, sizeof(err));
}

/* The header's length byte (0x201) cuts it before init_size. */
static void test_parse_hdr_len(void)
{
	static unsigned char b[KERNEL_SIZE];
	struct linux_image img;

	fake_bzimage(b, &good);
	b[0x201] = 0x10;
	err[0] = '\0';
	ok(linux__parse(b, KERNEL_SIZE, &img, err, sizeof(err)) == -EINVAL &&
	   !strcmp(err, "bad setup header: its length (the byte at 0x201) makes it end at 0x212"),
	   "a header too short for init_size: '%s'", err);
}

static void test_parse(void)
{
	struct linux_image img;
	struct fake_hdr h;

	ok(!parse_hdr(&good, &img) && img.version == 0x020f &&
	   img.setup_size == 1024 && img.init_size == 0x100000 &&
	   img.pref_address == 0x1000000 && img.cmdline_size == 2047 &&
	   img.hdr_end == 0x26c && img.initrd_addr_max == 0x7fffffff,
	   "a good bzImage: protocol, setup size, init_size, pref_address");
	h = good;
	h.magic = "ELF!";
	ok(parse_hdr(&h, &img) == -EINVAL &&
	   !strcmp(err, "not a bzImage: no \"HdrS\" setup header at 0x202"),
	   "no HdrS: '%s'", err);
	h = good;
	h.size = 300;
	ok(parse_hdr(&h, &img) == -EINVAL &&
	   !strcmp(err, "not a bzImage: 300 bytes, too small for a setup header"),
	   "too small: '%s'", err);
	h = good;
	h.version = 0x020b;
	ok(parse_hdr(&h, &img) == -EINVAL &&
	   !strcmp(err, "boot protocol 2.11, minivmm needs 2.12 or later (64-bit entry)"),
	   "protocol 2.11: '%s'", err);
	h.version = 0x020c;
	ok(!parse_hdr(&h, &img), "protocol 2.12 is enough");
	h = good;
	h.xloadflags = 0;
	ok(parse_hdr(&h, &img) == -EINVAL &&
	   !strcmp(err, "not a 64-bit kernel: xloadflags 0 lack XLF_KERNEL_64"),
	   "no XLF_KERNEL_64: '%s'", err);
	h = good;
	h.loadflags = 0;
	ok(parse_hdr(&h, &img) == -EINVAL && strstr(err, "zImage"),
	   "no LOADED_HIGH: a zImage: '%s'", err);
	h = good;
	h.size = 1024;
	ok(parse_hdr(&h, &img) == -EINVAL &&
	   !strcmp(err, "truncated: 1024 bytes, the setup code alone takes 1024"),
	   "nothing after the setup code: '%s'", err);
	h = good;
	h.init_size = 100;
	ok(parse_hdr(&h, &img) == -EINVAL && strstr(err, "init_size 0x64"),
	   "init_size smaller than the kernel: '%s'", err);
	h = good;
	h.pref_address = 0x1000;
	ok(parse_hdr(&h, &img) == -EINVAL && strstr(err, "pref_address 0x1000"),
	   "pref_address below 1 MiB: '%s'", err);
	ok(!strcmp(err, "bad setup header: pref_address 0x1000 is below 1 MiB"),
	   "the message names the field: '%s'", err);
	h.pref_address = 0x1000800;
	ok(parse_hdr(&h, &img) == -EINVAL &&
	   !strcmp(err, "bad setup header: pref_address 0x1000800 is not 4 KiB-aligned"),
	   "pref_address not page-aligned: '%s'", err);
	h = good;
	h.init_size = 100;
	parse_hdr(&h, &img);
	ok(!strcmp(err, "bad setup header: init_size 0x64 is smaller than the protected-mode kernel's 7168 bytes"),
	   "init_size too small, the message names the field: '%s'", err);
	/* Issue 37's review case: pref_address + init_size wrapped. */
	h = good;
	h.pref_address = 0xfffffffffffff000ULL;
	h.init_size = 0x2000000;
	ok(parse_hdr(&h, &img) == -EINVAL &&
	   !strcmp(err, "bad setup header: pref_address 0xfffffffffffff000 with init_size 0x2000000 does not fit below 3072 MiB (the most --mem gives)"),
	   "pref_address 0xfffffffffffff000, init_size 0x2000000 refused: '%s'",
	   err);
	h.pref_address = 0xffffffff01000000ULL;
	h.init_size = 0xffffffff;
	ok(parse_hdr(&h, &img) == -EINVAL && strstr(err, "does not fit below"),
	   "pref_address 0xffffffff01000000, init_size 0xffffffff refused: '%s'",
	   err);
	h.pref_address = 3 * 1024 * MIB - 0x100000;
	h.init_size = 0x100000;
	ok(!parse_hdr(&h, &img), "a kernel that ends at 3 GiB: taken");
	h.init_size = 0x101000;
	ok(parse_hdr(&h, &img) == -EINVAL, "one page more: refused");
	test_parse_hdr_len();
}

static int plan(const struct fake_hdr *h, __u64 mem, size_t initrd,
		size_t cmdline, struct linux_plan *p)
{
	struct linux_image img;

	if (parse_hdr(h, &img))
		return -100;
	err[0] = '\0';
	return linux__plan(&img, mem, initrd, cmdline, p, err, sizeof(err));
}

/*
 * Issue 37: an image whose pref_address + init_size wraps (as
 * linux__parse() no longer hands out, so made by hand) must not fit any
 * --mem, with or without an initrd.
 */
static void test_plan_wrap(void)
{
	struct linux_image img;
	struct linux_plan p;
	int ret;

	parse_hdr(&good, &img);
	img.pref_address = 0xfffffffffffff000ULL;
	img.init_size = 0x2000000;
	err[0] = '\0';
	ret = linux__plan(&img, 64 * MIB, 0, 10, &p, err, sizeof(err));
	ok(ret == -E2BIG &&
	   !strcmp(err, "--mem=64: too little memory for the kernel: loaded at 0xfffffffffffff000, it needs init_size 0x2000000 bytes from there, beyond any RAM"),
	   "plan: pref_address + init_size wrapping below --mem: %d '%s'",
	   ret, err);
	err[0] = '\0';
	ret = linux__plan(&img, 64 * MIB, 4096, 10, &p, err, sizeof(err));
	ok(ret == -E2BIG, "plan: the same with an initrd: %d '%s'", ret, err);
}

static void test_plan(void)
{
	struct linux_plan p;
	struct fake_hdr h = good;

	ok(!plan(&good, 256 * MIB, 0, 10, &p) && p.load_addr == 0x1000000 &&
	   p.entry == 0x1000200 && !p.initrd_addr && !p.initrd_size &&
	   p.mem_size == 256 * MIB,
	   "kernel at pref_address, startup_64 at +0x200, no initrd");
	ok(!plan(&good, 256 * MIB, 5000, 10, &p) &&
	   p.initrd_addr == 256 * MIB - 8192 && p.initrd_size == 5000,
	   "initrd at the top of RAM, page-aligned down: %#llx",
	   (unsigned long long)p.initrd_addr);
	ok(!plan(&good, 17 * MIB, 0, 10, &p),
	   "17 MiB: just room for init_size");
	ok(plan(&good, 16 * MIB, 0, 10, &p) == -E2BIG &&
	   !strcmp(err, "--mem=16: too little memory for the kernel: loaded at 0x1000000, it needs init_size 0x100000 bytes from there, 17 MiB of RAM at least"),
	   "too little memory: '%s'", err);
	ok(plan(&good, 18 * MIB, 2 * MIB, 10, &p) == -E2BIG &&
	   !strcmp(err, "--initrd: 2097152 bytes do not fit between the kernel's end (0x1100000) and the end of RAM (--mem=18): 19 MiB of RAM at least"),
	   "initrd too big for RAM: '%s'", err);
	ok(!plan(&good, 19 * MIB, 2 * MIB, 10, &p) &&
	   p.initrd_addr == 17 * MIB, "19 MiB: the initrd right above the kernel");
	h.initrd_addr_max = 0x11fffff;		/* 18 MiB - 1 */
	ok(!plan(&h, 256 * MIB, MIB, 10, &p) && p.initrd_addr == 17 * MIB,
	   "initrd below initrd_addr_max, its last byte at it");
	ok(plan(&h, 256 * MIB, MIB + 1, 10, &p) == -E2BIG &&
	   !strcmp(err, "--initrd: 1048577 bytes do not fit between the kernel's end (0x1100000) and the kernel's initrd_addr_max (0x11fffff)"),
	   "initrd above initrd_addr_max: '%s'", err);
	ok(!plan(&good, 256 * MIB, 0, 2047, &p), "2047 characters: ok");
	ok(plan(&good, 256 * MIB, 0, 2048, &p) == -E2BIG &&
	   !strcmp(err, "--append: 2048 characters, the kernel takes at most 2047"),
	   "2048 characters: '%s'", err);
	test_plan_wrap();
}

static void test_e820(void)
{
	struct linux_e820 e[4];
	unsigned int n = linux__e820(256 * MIB, e, 4);

	ok(n == 3 && e[0].addr == 0 && e[0].size == 0x9f000 &&
	   e[0].type == E820_TYPE_RAM && e[1].addr == 0x9f000 &&
	   e[1].size == 0x100000 - 0x9f000 &&
	   e[1].type == E820_TYPE_RESERVED && e[2].addr == 0x100000 &&
	   e[2].size == 255 * MIB && e[2].type == E820_TYPE_RAM,
	   "e820: RAM below 0x9f000, reserved to 1 MiB, RAM from 1 MiB");
	ok(e[0].addr + e[0].size == e[1].addr &&
	   e[1].addr + e[1].size == e[2].addr &&
	   e[2].addr + e[2].size == 256 * MIB, "e820: no gaps, ends at --mem");
	ok(linux__e820(256 * MIB, e, 2) == 2, "e820: no more than asked for");
}

static void test_load(void)
{
	static unsigned char b[KERNEL_SIZE];
	const size_t mem_size = 32 * MIB;
	char *mem = calloc(1, mem_size);
	struct boot_params *bp;
	struct linux_image img;
	struct linux_plan p;
	__u64 *gdt;
	int ret;

	fake_bzimage(b, &good);
	ret = linux__parse(b, KERNEL_SIZE, &img, err, sizeof(err)) ||
	      linux__plan(&img, mem_size, 6, 12, &p, err, sizeof(err)) ||
	      linux__load(mem, &img, &p, "initrd", "console=ttyS0");
	bp = (struct boot_params *)(mem + LINUX_BOOT_PARAMS_GPA);
	ok(!ret && !memcmp(mem + 0x1000000, b + 1024, KERNEL_SIZE - 1024),
	   "the protected-mode kernel at pref_address");
	ok(!memcmp(mem + p.initrd_addr, "initrd", 6) &&
	   bp->hdr.ramdisk_image == p.initrd_addr && bp->hdr.ramdisk_size == 6,
	   "the initrd where ramdisk_image says");
	ok(bp->hdr.cmd_line_ptr == LINUX_CMDLINE_GPA &&
	   !strcmp(mem + LINUX_CMDLINE_GPA, "console=ttyS0"),
	   "the command line where cmd_line_ptr says, NUL-terminated");
	ok(bp->hdr.header == 0x53726448 && bp->hdr.version == 0x020f &&
	   bp->hdr.init_size == 0x100000 && bp->hdr.pref_address == 0x1000000 &&
	   bp->hdr.boot_flag == 0xaa55 && bp->hdr.setup_sects == 1,
	   "the zero page has the file's setup header");
	ok(bp->hdr.type_of_loader == 0xff && bp->hdr.code32_start == 0x1000000 &&
	   !bp->sentinel && !bp->hdr.setup_data,
	   "type_of_loader 0xff (undefined), sentinel 0, no setup_data");
	ok(bp->e820_entries == 3 && bp->e820_table[2].addr == 0x100000 &&
	   bp->e820_table[2].size == 31 * MIB &&
	   bp->e820_table[2].type == E820_TYPE_RAM &&
	   bp->e820_table[1].type == E820_TYPE_RESERVED,
	   "the zero page's e820 table");
	gdt = (__u64 *)(mem + 0x1000);
	ok(gdt[2] == 0x00af9b000000ffffULL && gdt[3] == 0x00cf93000000ffffULL,
	   "boot GDT: __BOOT_CS 64-bit code, __BOOT_DS data, 4 GiB flat");
	free(mem);
}

/*
 * Issue 37: linux__load() with a plan whose kernel range wraps (from a
 * caller that did not use linux__plan()) refuses it and writes nothing.
 * In a child, with guest RAM between two inaccessible pages: a write
 * outside it kills the child, not the tests.
 */
static void test_load_wrap(void)
{
	static unsigned char b[KERNEL_SIZE];
	const size_t mem_size = 64 * MIB;
	struct linux_image img;
	struct linux_plan p;
	int st, ret;
	char *mem;
	pid_t pid;

	fake_bzimage(b, &good);
	linux__parse(b, KERNEL_SIZE, &img, err, sizeof(err));
	memset(&p, 0, sizeof(p));
	p.mem_size = mem_size;
	p.load_addr = 0xfffffffffffff000ULL;
	p.entry = p.load_addr + LINUX_ENTRY_64_OFFSET;
	pid = fork();
	if (!pid) {
		mem = mmap(NULL, mem_size + 8192, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (mem == MAP_FAILED ||
		    mprotect(mem + 4096, mem_size, PROT_READ | PROT_WRITE))
			_exit(2);
		ret = linux__load(mem + 4096, &img, &p, NULL, "console=ttyS0");
		_exit(ret == -E2BIG ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && !WEXITSTATUS(st),
	   "load: a kernel range that wraps is refused (child %s %d)",
	   WIFEXITED(st) ? "exited" : "killed by signal",
	   WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	p.load_addr = 0x1000000;
	p.initrd_addr = 0xfffffffffffff000ULL;
	p.initrd_size = 0x2000;
	pid = fork();
	if (!pid) {
		mem = mmap(NULL, mem_size + 8192, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (mem == MAP_FAILED ||
		    mprotect(mem + 4096, mem_size, PROT_READ | PROT_WRITE))
			_exit(2);
		ret = linux__load(mem + 4096, &img, &p, b, "console=ttyS0");
		_exit(ret == -E2BIG ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && !WEXITSTATUS(st),
	   "load: an initrd range that wraps is refused (child %s %d)",
	   WIFEXITED(st) ? "exited" : "killed by signal",
	   WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static void test_mptable(void)
{
	static unsigned char m[MPTABLE_ROOM];
	const struct mptable_cpuid id = { 0x00000663, 0x078bfbff };
	struct mpf_intel *mpf = (void *)m;
	struct mpc_table *mpc = (void *)(m + 16);
	struct mpc_cpu *cpu = (void *)(mpc + 1);
	struct mpc_bus *bus = (void *)(cpu + 3);
	struct mpc_ioapic *io = (void *)(bus + 1);
	struct mpc_intsrc *irq = (void *)(io + 1);
	unsigned int i;
	bool good_irqs = true;

	memset(m, 0xaa, sizeof(m));
	ok(!mptable__write(m, sizeof(m), MPTABLE_GPA, 3, &id),
	   "MP table for 3 vCPUs");
	ok(!memcmp(mpf->signature, "_MP_", 4) && mpf->length == 1 &&
	   mpf->specification == 4 && mpf->physptr == MPTABLE_GPA + 16 &&
	   !mpf->feature1 && !mptable__checksum(mpf, 16),
	   "floating pointer: _MP_, 1.4, the table after it, checksum 0");
	ok(!memcmp(mpc->signature, "PCMP", 4) && mpc->spec == 4 &&
	   mpc->lapic == 0xfee00000 &&
	   mpc->length == mptable__size(3) - 16 &&
	   mpc->oemcount == 3 + 1 + 1 + 15 + 2 &&
	   !mptable__checksum(mpc, mpc->length),
	   "table: PCMP, LAPIC at 0xfee00000, length, count, checksum 0");
	ok(cpu[0].type == MP_PROCESSOR && cpu[0].apicid == 0 &&
	   cpu[0].cpuflag == (MP_CPU_ENABLED | MP_CPU_BSP) &&
	   cpu[1].apicid == 1 && cpu[1].cpuflag == MP_CPU_ENABLED &&
	   cpu[2].apicid == 2 && cpu[2].apicver == 0x14 &&
	   cpu[2].cpufeature == 0x663 && cpu[2].featureflag == 0x078bfbff,
	   "processors: APIC IDs 0..2, vCPU 0 the BSP, CPUID.1 signature");
	ok(bus->type == MP_BUS && !memcmp(bus->bustype, "ISA   ", 6),
	   "bus 0 is ISA");
	ok(io->type == MP_IOAPIC && io->apicid == 3 &&
	   io->flags == MP_IOAPIC_ENABLED && io->apicaddr == 0xfec00000,
	   "IOAPIC: ID after the LAPICs', at 0xfec00000");
	for (i = 0; i < 15; i++) {
		__u8 want = i < 2 ? i : i + 1;

		if (irq[i].type != MP_INTSRC || irq[i].irqtype != MP_INT ||
		    irq[i].srcbusirq != want || irq[i].dstirq != want ||
		    irq[i].dstapic != 3 || irq[i].irqflag)
			good_irqs = false;
	}
	ok(good_irqs, "ISA IRQ n on IOAPIC pin n, all but the cascade (2)");
	ok(irq[15].type == MP_LINTSRC && irq[15].irqtype == MP_EXTINT &&
	   irq[15].dstapic == 0xff && irq[15].dstirq == 0 &&
	   irq[16].irqtype == MP_NMI && irq[16].dstirq == 1,
	   "LINT0 ExtINT, LINT1 NMI on all LAPICs");
	ok(m[mptable__size(3)] == 0xaa, "nothing written past the table");
	ok(mptable__write(m, mptable__size(3) - 1, MPTABLE_GPA, 3, &id) ==
	   -ENOSPC, "-ENOSPC without the room");
	ok(mptable__write(m, sizeof(m), MPTABLE_GPA, 0, &id) == -EINVAL &&
	   mptable__write(m, sizeof(m), MPTABLE_GPA, 255, &id) == -EINVAL,
	   "-EINVAL for 0 vCPUs, or no 8-bit ID left for the IOAPIC");
	ok(mptable__size(64) <= MPTABLE_ROOM, "64 vCPUs fit");
}

/* Runs of tests/minivmm-fake, as in test-fake.c. */
static int status;
static char out[16384], errout[16384];

/*
 * "ENV minivmm-fake ARGS <STDIN" in tap_tmpdir, FAKE_KVM_GUEST=linux; or
 * with @args NULL, a shell line @input there with $VMM the binary.
 */
static int run(const char *env, const char *args, const char *input)
{
	char cmd[8192], cwd[4096];
	int st;

	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	if (args)
		snprintf(cmd, sizeof(cmd),
			 "cd %s && printf '%s' | env FAKE_KVM_GUEST=linux FAKE_KVM_DRIVERS=pvsched_count %s %s/tests/minivmm-fake %s >out 2>err",
			 tap_tmpdir, input ? input : "", env, cwd, args);
	else
		snprintf(cmd, sizeof(cmd),
			 "export FAKE_KVM_GUEST=linux FAKE_KVM_DRIVERS=pvsched_count %s; VMM=%s/tests/minivmm-fake; cd %s && (%s) >out 2>err",
			 env, cwd, tap_tmpdir, input);
	st = system(cmd);
	status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	tap_slurp("out", out, sizeof(out));
	tap_slurp("err", errout, sizeof(errout));
	return status;
}

static void show_on_failure(int passed)
{
	if (!passed)
		diag("status %d\n# stdout: %s\n# stderr: %s", status, out,
		     errout);
}

#define check(cond, ...) do {			\
	int __c = !!(cond);			\
	ok(__c, __VA_ARGS__);			\
	show_on_failure(__c);			\
} while (0)

static bool one_line(const char *s, const char *line)
{
	return !strcmp(s, line);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_fake_runs(void)
{
	char bz[4200], bad[4200], args[9000];
	struct fake_hdr h;
	FILE *f;

	write_bzimage("bzImage", &good, bz, sizeof(bz));
	snprintf(bad, sizeof(bad), "%s/initrd", tap_tmpdir);
	f = fopen(bad, "w");
	fputs("INITRD-CONTENT", f);
	fclose(f);

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2", bz);
	run("", args, NULL);
	check(status == 0 &&
	      strstr(out, "fake-linux: cmdline='console=ttyS0' cpus=2 initrd=0@0: mem=256\n") &&
	      strstr(out, "kernel ") && strstr(out, ", 2 vCPUs, 256 MiB, ran ") &&
	      strstr(out, "debug-exit on vcpu0, status 0\n") &&
	      strstr(out, "\npvsched area: none, KVM offers no MSR_KVM_PVSCHED that minivmm can filter\n"),
	      "--kernel: the fake kernel finds the zero page, MP table, 2 CPUs; console on stdout; debug exit 0");
	check(strstr(out, "   1 ") && strstr(out, " stopped ") &&
	      strstr(out, " exited "),
	      "text rows: vCPU 0 exited, vCPU 1 (never started) stopped");

	snprintf(args, sizeof(args),
		 "--kernel=%s --initrd=%s/initrd --append='quiet  x=1' --mem=64 --vcpus=3 --json",
		 bz, tap_tmpdir);
	run("FAKE_KVM_EXIT_STATUS=42", args, NULL);
	check(status == 42 &&
	      strstr(errout, "fake-linux: cmdline='quiet  x=1' cpus=3 initrd=14@0x3fff000:INITRD-C mem=64\n") &&
	      strstr(out, "{\"ok\":true,\"signal\":0,\"payload\":null,\"vcpus\":3,") &&
	      strstr(out, "\"linux\":{\"kernel\":") &&
	      strstr(out, "/initrd\",\"cmdline\":\"quiet  x=1\",\"mem_mib\":64,\"exit\":\"debug-exit\",\"status\":42,\"exit_vcpu\":0,") &&
	      strstr(out, ",\"unhandled_io\":0,\"reboots\":0},") &&
	      strstr(out, "\"pvsched_area\":\"not-offered\"") &&
	      strstr(out, "\"result\":\"exited\"") &&
	      strstr(out, "\"pvsched_area\":null") && lines(out) == 1 &&
	      out[strlen(out) - 1] == '\n',
	      "--json: console on stderr, one JSON line on stdout, exit status 42 from the debug-exit port");

	snprintf(args, sizeof(args), "--kernel=%s --json", bz);
	run("FAKE_KVM_LINUX_END=reboot", args, NULL);
	check(status == 0 && strstr(out, "\"exit\":\"reboot\",\"status\":0,"),
	      "reboot through the keyboard controller: status 0, exit reboot");
	run("FAKE_KVM_LINUX_END=shutdown", args, NULL);
	check(status == 0 && strstr(out, "\"exit\":\"triple-fault\",\"status\":0,") &&
	      strstr(errout, "minivmm: vcpu0: KVM_EXIT_SHUTDOWN (triple fault): the guest reset, the run ends\n"),
	      "triple fault: the run ends, status 0, one line and the registers");

	run("FAKE_KVM_LINUX_END=echo", args, "hello q");
	check(status == 6 && strstr(errout, "mem=256\nhello ") &&
	      strstr(out, "\"serial_rx\":7,"),
	      "stdin reaches the guest through the UART (RDI interrupt up with data ready), echoed: status 6");
	run("FAKE_KVM_LINUX_END=echo FAKE_KVM_TRACE_IRQ=1", args, "abq");
	check(status == 2 && tap_count(errout, "fake-kvm: irq 4 level 1\n") == 4 &&
	      tap_count(errout, "fake-kvm: irq 4 level 0\n") == 4,
	      "KVM_IRQ_LINE for IRQ 4: up and down for THRE, then for each byte received");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2", bz);
	run("FAKE_KVM_FAIL=KVM_CREATE_PIT2", args, NULL);
	check(status == 3 && one_line(errout, "minivmm: KVM_CREATE_PIT2: Input/output error\n"),
	      "KVM_CREATE_PIT2 fails: one line, status 3");
	run("FAKE_KVM_NO_PVSCHED=1", args, NULL);
	check(status == 2, "no pvsched: status 2, as for a payload");
	snprintf(args, sizeof(args), "--kernel=%s --no-pvsched --json", bz);
	run("FAKE_KVM_NO_PVSCHED=1", args, NULL);
	check(status == 0 && strstr(out, "\"driver\":null") &&
	      strstr(out, "\"pvsched_area\":\"not-used\""),
	      "--no-pvsched: a plain KVM boots it too");

	snprintf(args, sizeof(args), "--kernel=%s/nonexistent", tap_tmpdir);
	run("", args, NULL);
	check(status == 3 && strstr(errout, "minivmm: --kernel: ") &&
	      strstr(errout, "/nonexistent: No such file or directory\n") &&
	      lines(errout) == 1,
	      "no such kernel: one line, status 3");
	snprintf(args, sizeof(args), "--kernel=%s/initrd", tap_tmpdir);
	run("", args, NULL);
	check(status == 3 && strstr(errout, "/initrd: not a bzImage: 14 bytes, too small for a setup header\n") &&
	      lines(errout) == 1,
	      "not a bzImage: one line, status 3");
	snprintf(args, sizeof(args), "--kernel=%s --initrd=%s/none", bz,
		 tap_tmpdir);
	run("", args, NULL);
	check(status == 3 && strstr(errout, "minivmm: --initrd: ") &&
	      strstr(errout, "/none: No such file or directory\n") &&
	      lines(errout) == 1,
	      "no such initrd: one line, status 3");
	h = good;
	h.pref_address = 0xfffffffffffff000ULL;
	h.init_size = 0x2000000;
	write_bzimage("wrap", &h, bad, sizeof(bad));
	snprintf(args, sizeof(args), "--kernel=%s --mem=256", bad);
	run("", args, NULL);
	check(status == 3 && strstr(errout, "/wrap: bad setup header: pref_address 0xfffffffffffff000 with init_size 0x2000000 does not fit below 3072 MiB (the most --mem gives)\n") &&
	      lines(errout) == 1,
	      "issue 37's pref_address 0xfffffffffffff000: one line, status 3");
	snprintf(args, sizeof(args), "--kernel=%s --mem=16", bz);
	run("", args, NULL);
	check(status == 3 && one_line(errout, "minivmm: --mem=16: too little memory for the kernel: loaded at 0x1000000, it needs init_size 0x100000 bytes from there, 17 MiB of RAM at least\n"),
	      "too little memory: one line, status 3");
	snprintf(args, sizeof(args), "--kernel=%s --mem=17 --initrd=%s/initrd",
		 bz, tap_tmpdir);
	run("", args, NULL);
	check(status == 3 && one_line(errout, "minivmm: --initrd: 14 bytes do not fit between the kernel's end (0x1100000) and the end of RAM (--mem=17): 18 MiB of RAM at least\n"),
	      "an initrd that does not fit: one line, status 3");
	snprintf(args, sizeof(args), "--kernel=%s --payload=io", bz);
	run("", args, NULL);
	check(status == 1 && strstr(errout, "minivmm: --payload is a payload option: not with --kernel\n"),
	      "--kernel with --payload: usage error");
	run("FAKE_KVM_LINUX_END=hang", NULL,
	    "rm -f running; $VMM --kernel=bzImage </dev/null & "
	    "i=0; while [ ! -e running ] && [ $i -lt 400 ]; "
	    "do sleep 0.05; i=$((i + 1)); done; kill -TERM $!; wait $!");
	check(status == 143 && strstr(out, "stopped by signal 15"),
	      "SIGTERM stops a Linux guest: status 143, a report");
}

/*
 * PCI bus 0 as the fake guest's vCPU 0 probes it ($FAKE_KVM_LINUX_PCI),
 * as Linux does at boot: configuration mechanism #1 (pci.c), the host
 * bridge at 00:00.0 and no other function, and no device answering
 * MMIO where the pvsched device's BAR was.
 */
#define PCI_LINE "fake-linux: pci: a host bridge at 00:00.0, nothing else\n"

static void test_pci_runs(void)
{
	char bz[4200], args[9000];

	write_bzimage("bzImage", &good, bz, sizeof(bz));
	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --json", bz);
	run("FAKE_KVM_LINUX_PCI=1", args, NULL);
	check(status == 0 && strstr(errout, PCI_LINE) &&
	      !strstr(errout, "FAILED") &&
	      strstr(out, ",\"unhandled_io\":0,\"reboots\":0},") &&
	      strstr(strstr(out, "\"index\":0,"), "\"mmio\":1,"),
	      "PCI bus 0 as Linux probes it: mechanism #1, the host bridge "
	      "at 00:00.0 alone, no device at 0xfebff000");
}

#define PV_AREA_JSON(gpa) "\"pvsched_area\":{\"gpa\":" gpa ",\"version\":1,"

#define MSR_LINE(i, bad, unaligned, another) \
	"fake-linux: vcpu" #i " msr: bad version " bad ", unaligned " \
	unaligned ", registered ok, another's " another ", area version 1\n"
#define MSR_ENV	"FAKE_KVM_LINUX_PVSCHED=msr "

/*
 * MSR_KVM_PVSCHED: where KVM offers it, the guest registers its areas
 * with the MSR; minivmm filters the MSR's writes, makes each with
 * KVM_SET_MSRS on the vCPU's thread, and reports the areas. --no-pvsched
 * hides the feature.
 */
static void test_pvsched_msr_runs(void)
{
	char bz[4200], args[9000];

	write_bzimage("bzImage", &good, bz, sizeof(bz));
	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --json", bz);
	run(MSR_ENV, args, NULL);
	check(status == 0 &&
	      strstr(errout, MSR_LINE(0, "#GP", "#GP", "#GP")
			     MSR_LINE(1, "-", "-", "-")) &&
	      !strstr(errout, "FAILED") && !strstr(errout, "minivmm:"),
	      "MSR_KVM_PVSCHED: each vCPU registers its area; a bad version, "
	      "an unaligned area and another vCPU's get #GP");
	check(strstr(out, "\"pvsched_area\":\"by-guest-msr\"") &&
	      strstr(strstr(out, "\"index\":0,"), PV_AREA_JSON("3145728")) &&
	      strstr(strstr(out, "\"index\":1,"), PV_AREA_JSON("3145792")) &&
	      tap_count(out, "\"registrations\":1,\"unregistrations\":0,\"refusals\":0}") == 2,
	      "JSON: by-guest-msr, each vCPU's area, one registration each");
	check(strstr(strstr(out, "\"index\":1,"),
		     ",\"flags\":1,\"prio_max\":11,\"registrations\":1,"),
	      "JSON: what vCPU 1 asked in its area, sampled (guest_seen)");

	run(MSR_ENV "FAKE_KVM_LINUX_PCI=1", args, NULL);
	check(status == 0 &&
	      strstr(errout, PCI_LINE MSR_LINE(0, "#GP", "#GP", "#GP")
			     MSR_LINE(1, "-", "-", "-")) &&
	      strstr(out, "\"pvsched_area\":\"by-guest-msr\""),
	      "the PCI probe, then the registrations, as a kernel boots");

	run("FAKE_KVM_LINUX_PVSCHED=msr-unregister", args, NULL);
	check(status == 0 &&
	      strstr(errout, "fake-linux: vcpu0 msr: bad version #GP, unaligned #GP, registered ok, another's #GP, area version 0, unregistered ok\n") &&
	      strstr(strstr(out, "\"index\":0,"),
		     "\"pvsched_area\":null,\"guest_seen\":{\"samples\":") &&
	      strstr(strstr(out, "\"index\":0,"),
		     "\"registrations\":1,\"unregistrations\":1,\"refusals\":0},") &&
	      strstr(strstr(out, "\"index\":1,"),
		     ",\"flags\":1,\"prio_max\":11,\"registrations\":1,"
		     "\"unregistrations\":0,\"refusals\":0},\"latency\":null}]}") &&
	      tap_count(out, PV_AREA_JSON("3145792")) == 1 &&
	      !strstr(out, PV_AREA_JSON("3145728")),
	      "MSR_KVM_PVSCHED 0: unregistered, the report's area null for "
	      "that vCPU, counted; vCPU 1 keeps its own");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2", bz);
	run(MSR_ENV, args, NULL);
	check(status == 0 &&
	      strstr(out, "\npvsched area: the guest's own, registered through MSR_KVM_PVSCHED\n") &&
	      strstr(out, "\nvcpu1: pvsched area 0x300040: version 1, "),
	      "text report: registered through MSR_KVM_PVSCHED");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --json", bz);
	run(MSR_ENV "FAKE_KVM_FAIL=KVM_SET_MSRS", args, NULL);
	check(status == 0 &&
	      strstr(errout, MSR_LINE(0, "#GP", "#GP", "#GP")) == NULL &&
	      strstr(errout, "fake-linux: vcpu0 msr: bad version #GP, unaligned #GP, registered #GP, another's #GP, area version 0\n") &&
	      tap_count(errout, "minivmm: vcpu0: KVM_SET_MSRS: Input/output error\n") == 4 &&
	      tap_count(out, "\"pvsched_area\":null") == 2,
	      "KVM_SET_MSRS fails: one line each time, the guest gets #GP, "
	      "no area");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --json --no-pvsched",
		 bz);
	run(MSR_ENV "FAKE_KVM_TRACE_PVSCHED=1", args, NULL);
	check(status == 0 &&
	      strstr(errout, "fake-linux: vcpu0 msr: no KVM_FEATURE_PVSCHED\n") &&
	      !strstr(errout, "fake-kvm: pvsched access") &&
	      strstr(out, "\"pvsched_area\":\"not-used\""),
	      "--no-pvsched: KVM_FEATURE_PVSCHED hidden from the guest, no "
	      "pvsched ioctl");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --json", bz);
	run(MSR_ENV "FAKE_KVM_NO_AREA=1 FAKE_KVM_FAIL=KVM_X86_SET_MSR_FILTER",
	    args, NULL);
	check(status == 0 &&
	      strstr(errout, "fake-linux: vcpu0 msr: no KVM_FEATURE_PVSCHED\n") &&
	      !strstr(errout, "minivmm:") &&
	      strstr(out, "\"pvsched_area\":\"not-offered\"") &&
	      tap_count(out, "\"pvsched_area\":null") == 2,
	      "no KVM_CAP_PVSCHED_AREA: no MSR filter, KVM_FEATURE_PVSCHED "
	      "hidden, not-offered");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --json --refuse-areas",
		 bz);
	run(MSR_ENV "FAKE_KVM_FAIL=KVM_SET_MSRS", args, NULL);
	check(status == 0 &&
	      strstr(errout, "fake-linux: vcpu0 msr: bad version #GP, unaligned #GP, registered #GP, another's #GP, area version 0\n") &&
	      strstr(errout, "fake-linux: vcpu1 msr: bad version -, unaligned -, registered #GP, another's -, area version 0\n") &&
	      !strstr(errout, "KVM_SET_MSRS") && !strstr(errout, "minivmm:") &&
	      tap_count(out, "\"pvsched_area\":null") == 2 &&
	      strstr(strstr(out, "\"index\":0,"), "\"registrations\":0,\"unregistrations\":0,\"refusals\":4}") &&
	      strstr(strstr(out, "\"index\":1,"), "\"registrations\":0,\"unregistrations\":0,\"refusals\":1}"),
	      "--refuse-areas: every registration gets #GP, KVM never asked, "
	      "counted as refusals");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --json", bz);
	run(MSR_ENV "FAKE_KVM_FAIL=KVM_X86_SET_MSR_FILTER", args, NULL);
	check(status == 3 &&
	      !strcmp(errout, "minivmm: KVM_X86_SET_MSR_FILTER: Input/output error\n"),
	      "the MSR filter refused: one line, status 3");

	run("FAKE_KVM_FAIL=KVM_X86_SET_MSR_FILTER", args, NULL);
	check(status == 0 && !strstr(errout, "minivmm:") &&
	      strstr(out, "\"pvsched_area\":\"not-offered\"") &&
	      tap_count(out, "\"pvsched_area\":null") == 2,
	      "negative control: no KVM_FEATURE_PVSCHED from KVM: no MSR "
	      "filter, no area");
}

/*
 * --reboots=N: the fake guest reboots in its first K VMs
 * ($FAKE_KVM_LINUX_REBOOTS=K), then ends as $FAKE_KVM_LINUX_END says; the
 * fake KVM refuses a KVM_CREATE_VM while anything of the old VM is left
 * (a line "fake-kvm: KVM_CREATE_VM: ...") and gives each VM the driver
 * "" again.
 */
#define BOOT_LINE "fake-linux: cmdline='a=1' cpus=2 initrd=14@0x11ff000:INITRD-C mem=18\n"

static void test_reboot_runs(void)
{
	char bz[4200], args[9000];

	write_bzimage("bzImage", &good, bz, sizeof(bz));
	snprintf(args, sizeof(args),
		 "--kernel=%s --initrd=%s/initrd --append=a=1 --mem=18 --vcpus=2 --reboots=1 --json",
		 bz, tap_tmpdir);
	run("FAKE_KVM_LINUX_REBOOTS=2", args, NULL);
	check(status == 0 && tap_count(errout, BOOT_LINE) == 2 &&
	      strstr(errout, BOOT_LINE "minivmm: the guest rebooted: boot 2 of at most 2\n" BOOT_LINE) &&
	      strstr(out, "\"exit\":\"reboot\",\"status\":0,") &&
	      strstr(out, ",\"reboots\":1},") &&
	      !strstr(errout, "fake-kvm:") && lines(out) == 1,
	      "--reboots=1, a guest that reboots twice: two boots of the same kernel, initrd and command line, the second reboot ends the run, status 0");

	snprintf(args, sizeof(args), "--kernel=%s --vcpus=2 --reboots=2 --json",
		 bz);
	run("FAKE_KVM_LINUX_REBOOTS=2 FAKE_KVM_EXIT_STATUS=7", args, NULL);
	check(status == 7 && tap_count(errout, "fake-linux: cmdline=") == 3 &&
	      strstr(out, "\"exit\":\"debug-exit\",\"status\":7,") &&
	      strstr(out, ",\"reboots\":2},") && !strstr(errout, "fake-kvm:"),
	      "--reboots=2, a guest that reboots twice, then debug-exits with 7: three boots, status 7");
	run("FAKE_KVM_LINUX_REBOOTS=1", args, NULL);
	check(status == 0 && tap_count(errout, "fake-linux: cmdline=") == 2 &&
	      strstr(out, "\"exit\":\"debug-exit\",\"status\":0,") &&
	      strstr(out, ",\"reboots\":1},"),
	      "--reboots=2, one reboot: two boots, the second's debug exit ends it");
	run("FAKE_KVM_LINUX_END=shutdown", args, NULL);
	check(status == 0 && tap_count(errout, "fake-linux: cmdline=") == 1 &&
	      strstr(out, "\"exit\":\"triple-fault\",") &&
	      strstr(out, ",\"reboots\":0},"),
	      "--reboots=2: a triple fault still ends the run");

	snprintf(args, sizeof(args), "--kernel=%s --reboots=0 --json", bz);
	run("FAKE_KVM_LINUX_REBOOTS=3", args, NULL);
	check(status == 0 && tap_count(errout, "fake-linux: cmdline=") == 1 &&
	      strstr(out, "\"exit\":\"reboot\",\"status\":0,") &&
	      strstr(out, ",\"reboots\":0},") &&
	      !strstr(errout, "minivmm: the guest rebooted"),
	      "--reboots=0: the first reboot ends the run, as without it");

	snprintf(args, sizeof(args),
		 "--kernel=%s --vcpus=2 --reboots=1 --pvsched=pvsched_count --json",
		 bz);
	run(MSR_ENV "FAKE_KVM_LINUX_REBOOTS=1", args, NULL);
	check(status == 0 &&
	      tap_count(errout, MSR_LINE(0, "#GP", "#GP", "#GP")) == 2 &&
	      tap_count(errout, MSR_LINE(1, "-", "-", "-")) == 2 &&
	      !strstr(errout, "FAILED") &&
	      tap_count(errout, "pvsched: (none) -> pvsched_count\n") == 2 &&
	      tap_count(out, "\"registrations\":1,\"unregistrations\":0,\"refusals\":0}") == 2 &&
	      tap_count(out, PV_AREA_JSON("3145728")) == 1 &&
	      tap_count(out, PV_AREA_JSON("3145792")) == 1 &&
	      strstr(out, "\"pvsched_area\":\"by-guest-msr\"") &&
	      strstr(out, ",\"reboots\":1},"),
	      "MSR_KVM_PVSCHED: each boot filters the MSR afresh and the "
	      "guest registers its areas again; the rows are the last boot's");

	snprintf(args, sizeof(args), "--kernel=%s --reboots=3", bz);
	run("FAKE_KVM_LINUX_REBOOTS=1", args, NULL);
	check(status == 0 &&
	      strstr(out, "\ncmdline: console=ttyS0\nreboots: 1 of at most 3; what follows is the last boot's\ndriver: "),
	      "text report: a line with the reboots");

	snprintf(args, sizeof(args),
		 "--kernel=%s --vcpus=2 --reboots=1 --vcpu-fifo=10 --json", bz);
	run("FAKE_KVM_LINUX_REBOOTS=1 FAKE_KVM_WANT_FIFO=10", args, NULL);
	check(status == 0 && tap_count(errout, "fake-linux: cmdline=") == 2 &&
	      strstr(out, ",\"reboots\":1},"),
	      "--vcpu-fifo: each boot's vCPU threads are SCHED_FIFO");

	run("FAKE_KVM_LINUX_REBOOTS=1 FAKE_KVM_LINUX_END=hang", NULL,
	    "rm -f running; $VMM --kernel=bzImage --reboots=5 </dev/null & "
	    "i=0; while [ ! -e running ] && [ $i -lt 400 ]; "
	    "do sleep 0.05; i=$((i + 1)); done; kill -TERM $!; wait $!");
	check(status == 143 && strstr(out, "stopped by signal 15") &&
	      tap_count(out, "fake-linux: cmdline=") == 2 &&
	      strstr(out, "\nreboots: 1 of at most 5;"),
	      "SIGTERM during the second boot stops the run: status 143, a report");

	snprintf(args, sizeof(args), "--reboots=1");
	run("", args, NULL);
	check(status == 1 &&
	      one_line(errout, "minivmm: --reboots needs --kernel\nTry 'minivmm --help'.\n"),
	      "--reboots with a payload: usage error, status 1");
	snprintf(args, sizeof(args), "--kernel=%s --reboots=1001", bz);
	run("", args, NULL);
	check(status == 1 && strstr(errout, "minivmm: --reboots: '1001' is not in 0..1000\n") &&
	      lines(errout) == 2,
	      "--reboots=1001: usage error, status 1, one line (and the hint)");
}

void test_linux(void)
{
	test_parse();
	test_plan();
	test_e820();
	test_load();
	test_load_wrap();
	test_mptable();
	test_fake_runs();
	test_pci_runs();
	test_pvsched_msr_runs();
	test_reboot_runs();
}
