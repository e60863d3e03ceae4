// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what an operator hands minivmm for a Linux guest (a
 * bzImage, an initrd, a command line, --mem) into the loader of linux.c:
 * linux__parse(), linux__plan(), linux__load(), as main.c calls them.
 *
 * The input (all little-endian):
 *
 *   byte 0     --mem in MiB: 1 + byte % FUZZ_LINUX_MAX_MIB
 *   bytes 1-2  the command line's length L, then L bytes (up to the
 *              first NUL: minivmm gets a C string)
 *   4 bytes    the initrd's length I, then I bytes (fewer if the input
 *              ends first)
 *   the rest   the bzImage
 *
 * Invariants, besides no crash and no sanitizer report:
 * - a refused bzImage or plan gets one line in err (no newline) and the
 *   documented errno (-EINVAL from linux__parse(), -E2BIG from
 *   linux__plan());
 * - a bzImage linux__parse() takes has the header it checked: "HdrS",
 *   protocol 2.12 or later, XLF_KERNEL_64, LOADED_HIGH, its setup code
 *   and header inside the file, pref_address at least 1 MiB and 4 KiB
 *   aligned, init_size at least the protected-mode kernel;
 * - a plan linux__plan() makes has everything inside guest RAM, checked
 *   here without arithmetic that can wrap: the kernel's init_size from
 *   pref_address, the entry point, the initrd (page-aligned, above the
 *   kernel's init_size, at most at initrd_addr_max), the command line;
 * - linux__load() into guest memory of exactly --mem bytes, between two
 *   inaccessible pages (so that a write outside it faults, as
 *   AddressSanitizer is blind to mmap()ed memory), puts the kernel, the
 *   initrd and the command line where the plan and the zero page say.
 */
#define _GNU_SOURCE
#include <asm/bootparam.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fuzz.h"
#include "linux.h"

#define FUZZ_LINUX_MAX_MIB	64
#define MIB			(1ULL << 20)

#define GUARD			4096

/* @size bytes of guest RAM, an inaccessible page on either side. */
static char *guest_mem(__u64 size)
{
	char *p = mmap(NULL, size + 2 * GUARD, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	FUZZ_CHECK(p != MAP_FAILED, "no memory for a guest of %llu bytes",
		   (unsigned long long)size);
	FUZZ_CHECK(!mprotect(p + GUARD, size, PROT_READ | PROT_WRITE),
		   "mprotect");
	return p + GUARD;
}

static __u32 get_le(const uint8_t *p, unsigned int bytes)
{
	__u32 v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v |= (__u32)p[i] << 8 * i;
	return v;
}

/* [@start, @start + @len) inside [0, @size), without wrapping. */
static bool inside(__u64 start, __u64 len, __u64 size)
{
	return start <= size && len <= size - start;
}

static void check_err(const char *what, int ret, int want, const char *err)
{
	FUZZ_CHECK(ret == want, "%s returned %d, not %d", what, ret, want);
	FUZZ_CHECK(err[0] && !strchr(err, '\n'),
		   "%s: not one line of error: '%s'", what, err);
}

static void check_image(const struct linux_image *img)
{
	const unsigned char *b = img->buf;

	FUZZ_CHECK(!memcmp(b + 0x202, "HdrS", 4), "no HdrS taken");
	FUZZ_CHECK(img->version >= LINUX_MIN_BOOT_PROTOCOL,
		   "protocol %#x taken", img->version);
	FUZZ_CHECK(img->xloadflags & XLF_KERNEL_64, "no XLF_KERNEL_64 taken");
	FUZZ_CHECK(img->loadflags & LOADED_HIGH, "no LOADED_HIGH taken");
	FUZZ_CHECK(img->setup_size < img->size && img->hdr_end <= img->size,
		   "setup %zu or header end %zu beyond the file's %zu bytes",
		   img->setup_size, img->hdr_end, img->size);
	FUZZ_CHECK(img->pref_address >= LINUX_HIGHMEM_START &&
		   !(img->pref_address % 4096),
		   "pref_address %#llx taken",
		   (unsigned long long)img->pref_address);
	FUZZ_CHECK(img->init_size >= img->size - img->setup_size,
		   "init_size %#x below the kernel's %zu bytes",
		   img->init_size, img->size - img->setup_size);
}

static void check_plan(const struct linux_image *img,
		       const struct linux_plan *p, __u64 mem_size,
		       size_t initrd_size, size_t cmdline_len)
{
	__u64 kernel_end;

	FUZZ_CHECK(p->mem_size == mem_size, "plan for %llu bytes",
		   (unsigned long long)p->mem_size);
	FUZZ_CHECK(p->load_addr == img->pref_address &&
		   p->load_addr >= LINUX_HIGHMEM_START,
		   "kernel at %#llx", (unsigned long long)p->load_addr);
	FUZZ_CHECK(inside(p->load_addr, img->init_size, mem_size),
		   "kernel [%#llx, +%#x) outside RAM of %#llx bytes",
		   (unsigned long long)p->load_addr, img->init_size,
		   (unsigned long long)mem_size);
	FUZZ_CHECK(p->entry == p->load_addr + LINUX_ENTRY_64_OFFSET &&
		   p->entry < mem_size, "entry %#llx",
		   (unsigned long long)p->entry);
	FUZZ_CHECK(cmdline_len < LINUX_CMDLINE_ROOM &&
		   cmdline_len <= img->cmdline_size,
		   "a command line of %zu characters taken", cmdline_len);
	FUZZ_CHECK(p->initrd_size == initrd_size, "initrd of %llu bytes",
		   (unsigned long long)p->initrd_size);
	if (!initrd_size) {
		FUZZ_CHECK(!p->initrd_addr, "initrd address without initrd");
		return;
	}
	kernel_end = p->load_addr + img->init_size;
	FUZZ_CHECK(!(p->initrd_addr % 4096) && p->initrd_addr >= kernel_end &&
		   inside(p->initrd_addr, initrd_size, mem_size) &&
		   inside(p->initrd_addr, initrd_size,
			  (__u64)img->initrd_addr_max + 1),
		   "initrd [%#llx, +%zu) misplaced (kernel end %#llx, RAM %#llx, initrd_addr_max %#x)",
		   (unsigned long long)p->initrd_addr, initrd_size,
		   (unsigned long long)kernel_end,
		   (unsigned long long)mem_size, img->initrd_addr_max);
}

static void check_loaded(const char *m, const struct linux_image *img,
			 const struct linux_plan *p, const uint8_t *initrd,
			 const char *cmdline)
{
	const struct boot_params *bp =
		(const void *)(m + LINUX_BOOT_PARAMS_GPA);

	FUZZ_CHECK(!memcmp(m + p->load_addr, img->buf + img->setup_size,
			   img->size - img->setup_size),
		   "the kernel is not at %#llx",
		   (unsigned long long)p->load_addr);
	FUZZ_CHECK(!p->initrd_size ||
		   !memcmp(m + p->initrd_addr, initrd, p->initrd_size),
		   "the initrd is not at %#llx",
		   (unsigned long long)p->initrd_addr);
	FUZZ_CHECK(!strcmp(m + LINUX_CMDLINE_GPA, cmdline),
		   "the command line is not at %#lx", LINUX_CMDLINE_GPA);
	FUZZ_CHECK(bp->hdr.ramdisk_image == p->initrd_addr &&
		   bp->hdr.ramdisk_size == p->initrd_size &&
		   bp->hdr.cmd_line_ptr == LINUX_CMDLINE_GPA &&
		   bp->hdr.code32_start == p->load_addr &&
		   bp->hdr.type_of_loader == 0xff,
		   "the zero page does not say where things are");
	FUZZ_CHECK(bp->e820_entries == 3 &&
		   bp->e820_table[2].addr + bp->e820_table[2].size ==
		   p->mem_size, "e820 does not end at --mem");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char cmdline[LINUX_CMDLINE_ROOM + 1];
	const uint8_t *initrd, *kernel;
	size_t len, initrd_size, kernel_size;
	struct linux_image img;
	struct linux_plan plan;
	char err[512];
	__u64 mem_size;
	char *mem;
	int ret;

	if (size < 7)
		return 0;
	mem_size = (1 + data[0] % FUZZ_LINUX_MAX_MIB) * MIB;
	len = get_le(data + 1, 2);
	data += 3;
	size -= 3;
	if (len > size)
		len = size;
	memcpy(cmdline, data, len);
	cmdline[len] = '\0';
	data += len;
	size -= len;
	if (size < 4)
		return 0;
	initrd_size = get_le(data, 4);
	data += 4;
	size -= 4;
	if (initrd_size > size)
		initrd_size = size;
	initrd = data;
	kernel = data + initrd_size;
	kernel_size = size - initrd_size;

	err[0] = '\0';
	ret = linux__parse(kernel, kernel_size, &img, err, sizeof(err));
	if (ret) {
		check_err("linux__parse", ret, -EINVAL, err);
		return 0;
	}
	check_image(&img);
	err[0] = '\0';
	ret = linux__plan(&img, mem_size, initrd_size, strlen(cmdline),
			  &plan, err, sizeof(err));
	if (ret) {
		check_err("linux__plan", ret, -E2BIG, err);
		return 0;
	}
	check_plan(&img, &plan, mem_size, initrd_size, strlen(cmdline));

	mem = guest_mem(mem_size);
	ret = linux__load(mem, &img, &plan, initrd, cmdline);
	FUZZ_CHECK(!ret, "linux__load() refused a plan: %d", ret);
	check_loaded(mem, &img, &plan, initrd, cmdline);
	munmap(mem - GUARD, mem_size + 2 * GUARD);
	return 0;
}
