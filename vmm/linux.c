// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 boot protocol, 64-bit entry (Documentation/arch/x86/boot.rst):
 * check a bzImage's setup header, place the kernel and the initrd, fill
 * the zero page. No KVM here: the unit tests drive all of it.
 */
#define _GNU_SOURCE
#include <asm/bootparam.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout.h"
#include "linux.h"
#include "x86.h"

#define SETUP_HDR_OFFSET	0x1f1	/* struct setup_header in the file */
#define SETUP_HDR_MAGIC		0x53726448	/* "HdrS" */
#define BOOT_FLAG_MAGIC		0xaa55
#define SECTOR_SIZE		512
#define DEFAULT_SETUP_SECTS	4	/* setup_sects 0 means 4 */
#define LOADER_TYPE_UNDEFINED	0xff	/* boot.rst: "0xFF: undefined" */
#define VID_MODE_NORMAL		0xffff
#define MIB			(1ULL << 20)
#define PAGE_MASK_4K		(~(PAGE_SIZE_4K - 1))
/* Nothing we read lies beyond this, for protocol 2.12 and later. */
#define SETUP_HDR_MIN_END	(offsetof(struct boot_params, hdr) + \
				 offsetof(struct setup_header, init_size) + 4)
#define SETUP_HDR_MAX_END	(offsetof(struct boot_params, hdr) + \
				 sizeof(struct setup_header))

_Static_assert(GUEST_PD_GPA + GUEST_NR_PDS * 4096 <= LINUX_BOOT_PARAMS_GPA,
	       "the zero page overlaps the page tables");
_Static_assert(LINUX_BOOT_PARAMS_GPA + sizeof(struct boot_params) <=
	       LINUX_CMDLINE_GPA, "the zero page overlaps the command line");
_Static_assert(LINUX_CMDLINE_GPA + LINUX_CMDLINE_ROOM <= LINUX_LOWMEM_END,
	       "the command line is not in low RAM");
_Static_assert(GUEST_GDT_GPA + LINUX_GDT_ENTRIES * 8 <= GUEST_PML4_GPA,
	       "the boot GDT overlaps the page tables");

static __u16 get16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static __u32 get32(const unsigned char *p)
{
	return get16(p) | (__u32)get16(p + 2) << 16;
}

static __u64 get64(const unsigned char *p)
{
	return get32(p) | (__u64)get32(p + 4) << 32;
}

#define HDR(field)	(offsetof(struct boot_params, hdr) + \
			 offsetof(struct setup_header, field))

/*
 * Read the file at @path into a new buffer. On error: a negative errno
 * and "PATH: what" in @err.
 */
int linux__read_file(const char *path, void **buf, size_t *size,
		     char *err, size_t errlen)
{
	struct stat st;
	size_t done = 0;
	char *p = NULL;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if (!st.st_size)
		ret = -ENODATA;
	if (!ret) {
		p = malloc(st.st_size);
		if (!p)
			ret = -ENOMEM;
	}
	while (!ret && done < (size_t)st.st_size) {
		n = read(fd, p + done, st.st_size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	close(fd);
	if (ret == -EINVAL)
		snprintf(err, errlen, "%s: not a regular file", path);
	else if (ret == -ENODATA)
		snprintf(err, errlen, "%s: empty file", path);
	else if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	if (ret) {
		free(p);
		return ret;
	}
	*buf = p;
	*size = done;
	return 0;
}

/*
 * Where the kernel wants to be, and how much room it needs there: a
 * page-aligned pref_address from 1 MiB, init_size at least the
 * protected-mode kernel, and all of it below the most RAM --mem gives
 * (checked without a sum that can wrap: pref_address is the file's,
 * any 64-bit value). -EINVAL and one line naming the field otherwise.
 */
static int linux__check_layout(const struct linux_image *img, char *err,
			       size_t errlen)
{
	const __u64 max_ram = LINUX_MAX_MEM_MIB * MIB;
	size_t kernel = img->size - img->setup_size;

	if (img->init_size < kernel) {
		snprintf(err, errlen,
			 "bad setup header: init_size %#x is smaller than the protected-mode kernel's %zu bytes",
			 img->init_size, kernel);
		return -EINVAL;
	}
	if (img->pref_address < LINUX_HIGHMEM_START) {
		snprintf(err, errlen,
			 "bad setup header: pref_address %#llx is below 1 MiB",
			 (unsigned long long)img->pref_address);
		return -EINVAL;
	}
	if (img->pref_address % PAGE_SIZE_4K) {
		snprintf(err, errlen,
			 "bad setup header: pref_address %#llx is not 4 KiB-aligned",
			 (unsigned long long)img->pref_address);
		return -EINVAL;
	}
	if (img->pref_address > max_ram ||
	    img->init_size > max_ram - img->pref_address) {
		snprintf(err, errlen,
			 "bad setup header: pref_address %#llx with init_size %#x does not fit below %llu MiB (the most --mem gives)",
			 (unsigned long long)img->pref_address, img->init_size,
			 LINUX_MAX_MEM_MIB);
		return -EINVAL;
	}
	return 0;
}

/*
 * Check that @buf is a bzImage we can enter at startup_64, and read its
 * setup header into @img (which points into @buf). On error: -EINVAL and
 * what is wrong in @err.
 */
int linux__parse(const void *buf, size_t size, struct linux_image *img,
		 char *err, size_t errlen)
{
	const unsigned char *b = buf;
	unsigned int sects;

	memset(img, 0, sizeof(*img));
	if (size < SETUP_HDR_MIN_END) {
		snprintf(err, errlen,
			 "not a bzImage: %zu bytes, too small for a setup header",
			 size);
		return -EINVAL;
	}
	if (get32(b + HDR(header)) != SETUP_HDR_MAGIC ||
	    get16(b + HDR(boot_flag)) != BOOT_FLAG_MAGIC) {
		snprintf(err, errlen,
			 "not a bzImage: no \"HdrS\" setup header at 0x%zx",
			 (size_t)HDR(header));
		return -EINVAL;
	}
	img->version = get16(b + HDR(version));
	if (img->version < LINUX_MIN_BOOT_PROTOCOL) {
		snprintf(err, errlen,
			 "boot protocol %u.%02u, minivmm needs %u.%02u or later (64-bit entry)",
			 img->version >> 8, img->version & 0xff,
			 LINUX_MIN_BOOT_PROTOCOL >> 8,
			 LINUX_MIN_BOOT_PROTOCOL & 0xff);
		return -EINVAL;
	}
	img->loadflags = b[HDR(loadflags)];
	img->xloadflags = get16(b + HDR(xloadflags));
	if (!(img->xloadflags & XLF_KERNEL_64)) {
		snprintf(err, errlen,
			 "not a 64-bit kernel: xloadflags %#x lack XLF_KERNEL_64",
			 img->xloadflags);
		return -EINVAL;
	}
	if (!(img->loadflags & LOADED_HIGH)) {
		snprintf(err, errlen,
			 "a zImage (loadflags %#x lack LOADED_HIGH), not a bzImage",
			 img->loadflags);
		return -EINVAL;
	}
	/* A newer header than ours: copy the part we know. */
	img->hdr_end = 0x202 + b[0x201];
	if (img->hdr_end > SETUP_HDR_MAX_END)
		img->hdr_end = SETUP_HDR_MAX_END;
	if (img->hdr_end < SETUP_HDR_MIN_END || img->hdr_end > size) {
		snprintf(err, errlen,
			 "bad setup header: its length (the byte at 0x201) makes it end at %#zx",
			 img->hdr_end);
		return -EINVAL;
	}
	sects = b[HDR(setup_sects)] ?: DEFAULT_SETUP_SECTS;
	img->setup_size = (sects + 1) * SECTOR_SIZE;
	if (img->setup_size >= size) {
		snprintf(err, errlen,
			 "truncated: %zu bytes, the setup code alone takes %zu",
			 size, img->setup_size);
		return -EINVAL;
	}
	img->buf = (unsigned char *)b;
	img->size = size;
	img->relocatable = b[HDR(relocatable_kernel)];
	img->kernel_alignment = get32(b + HDR(kernel_alignment));
	img->init_size = get32(b + HDR(init_size));
	img->pref_address = get64(b + HDR(pref_address));
	img->cmdline_size = get32(b + HDR(cmdline_size));
	img->initrd_addr_max = get32(b + HDR(initrd_addr_max));
	return linux__check_layout(img, err, errlen);
}

/* [@start, @start + @len) inside [0, @size), without wrapping. */
static bool linux__fits(__u64 start, __u64 len, __u64 size)
{
	return start <= size && len <= size - start;
}

static unsigned long long mib_up(__u64 bytes)
{
	return (bytes + MIB - 1) / MIB;
}

/*
 * Place the kernel at its pref_address (where a kernel that is not
 * relocatable runs anyway) and the initrd as high as RAM and
 * initrd_addr_max allow, page-aligned, above the kernel's init_size.
 * On error: -E2BIG (--mem too small, the initrd does not fit, the
 * command line is too long) and one line in @err.
 */
int linux__plan(const struct linux_image *img, __u64 mem_size,
		size_t initrd_size, size_t cmdline_len,
		struct linux_plan *plan, char *err, size_t errlen)
{
	__u64 kernel_end, top, lowest;

	memset(plan, 0, sizeof(*plan));
	plan->mem_size = mem_size;
	plan->load_addr = img->pref_address;
	plan->entry = plan->load_addr + LINUX_ENTRY_64_OFFSET;
	if (cmdline_len > img->cmdline_size ||
	    cmdline_len >= LINUX_CMDLINE_ROOM) {
		snprintf(err, errlen,
			 "--append: %zu characters, the kernel takes at most %u",
			 cmdline_len, img->cmdline_size < LINUX_CMDLINE_ROOM ?
			 img->cmdline_size : (__u32)LINUX_CMDLINE_ROOM - 1);
		return -E2BIG;
	}
	/* No sum that can wrap: linux__parse() bounds them, others may not. */
	if (!linux__fits(plan->load_addr, img->init_size, mem_size)) {
		if (plan->load_addr > ~0ULL - img->init_size)
			snprintf(err, errlen,
				 "--mem=%llu: too little memory for the kernel: loaded at %#llx, it needs init_size %#x bytes from there, beyond any RAM",
				 (unsigned long long)(mem_size / MIB),
				 (unsigned long long)plan->load_addr,
				 img->init_size);
		else
			snprintf(err, errlen,
				 "--mem=%llu: too little memory for the kernel: loaded at %#llx, it needs init_size %#x bytes from there, %llu MiB of RAM at least",
				 (unsigned long long)(mem_size / MIB),
				 (unsigned long long)plan->load_addr,
				 img->init_size,
				 mib_up(plan->load_addr + img->init_size));
		memset(plan, 0, sizeof(*plan));
		return -E2BIG;
	}
	kernel_end = plan->load_addr + img->init_size;
	if (!initrd_size)
		return 0;
	/* initrd_addr_max is the highest byte the initrd may use. */
	top = mem_size;
	if ((__u64)img->initrd_addr_max + 1 < top)
		top = (__u64)img->initrd_addr_max + 1;
	lowest = (kernel_end + PAGE_SIZE_4K - 1) & PAGE_MASK_4K;
	if (initrd_size > top || ((top - initrd_size) & PAGE_MASK_4K) < lowest) {
		if (top < mem_size)
			snprintf(err, errlen,
				 "--initrd: %zu bytes do not fit between the kernel's end (%#llx) and the kernel's initrd_addr_max (%#x)",
				 initrd_size, (unsigned long long)kernel_end,
				 img->initrd_addr_max);
		else
			snprintf(err, errlen,
				 "--initrd: %zu bytes do not fit between the kernel's end (%#llx) and the end of RAM (--mem=%llu): %llu MiB of RAM at least",
				 initrd_size, (unsigned long long)kernel_end,
				 (unsigned long long)(mem_size / MIB),
				 mib_up(lowest + initrd_size));
		return -E2BIG;
	}
	plan->initrd_addr = (top - initrd_size) & PAGE_MASK_4K;
	plan->initrd_size = initrd_size;
	return 0;
}

/* The e820 map of a guest with @mem_size bytes of RAM; entries used. */
unsigned int linux__e820(__u64 mem_size, struct linux_e820 *e,
			 unsigned int max)
{
	const struct linux_e820 map[LINUX_E820_ENTRIES] = {
		{ 0, LINUX_LOWMEM_END, E820_TYPE_RAM },
		{ LINUX_LOWMEM_END, LINUX_HIGHMEM_START - LINUX_LOWMEM_END,
		  E820_TYPE_RESERVED },
		{ LINUX_HIGHMEM_START, mem_size - LINUX_HIGHMEM_START,
		  E820_TYPE_RAM },
	};
	unsigned int n = mem_size > LINUX_HIGHMEM_START ? 3 : 2;

	if (n > max)
		n = max;
	memcpy(e, map, n * sizeof(*e));
	return n;
}

/* __BOOT_CS and __BOOT_DS, 4 GiB flat, at GUEST_GDT_GPA. */
void linux__setup_gdt(void *mem)
{
	uint64_t *gdt = (uint64_t *)((char *)mem + GUEST_GDT_GPA);

	gdt[0] = 0;
	gdt[1] = 0;
	gdt[LINUX_BOOT_CS / 8] = GDT_ENTRY_CODE64;
	gdt[LINUX_BOOT_DS / 8] = GDT_ENTRY_DATA;
}

/*
 * Copy the kernel, the initrd and the command line into guest memory
 * @mem (plan->mem_size bytes at GPA 0), and fill the zero page: the
 * setup header as the file has it, then the fields a boot loader writes.
 * A plan that does not fit (not linux__plan()'s) is -E2BIG, nothing
 * written.
 */
int linux__load(void *mem, const struct linux_image *img,
		const struct linux_plan *plan, const void *initrd,
		const char *cmdline)
{
	struct boot_params *bp;
	struct linux_e820 e820[LINUX_E820_ENTRIES];
	char *m = mem;
	unsigned int i, n;

	if (!linux__fits(plan->load_addr, img->size - img->setup_size,
			 plan->mem_size) ||
	    !linux__fits(plan->initrd_addr, plan->initrd_size,
			 plan->mem_size) ||
	    plan->mem_size < LINUX_LOWMEM_END)
		return -E2BIG;
	memcpy(m + plan->load_addr, img->buf + img->setup_size,
	       img->size - img->setup_size);
	if (plan->initrd_size)
		memcpy(m + plan->initrd_addr, initrd, plan->initrd_size);

	bp = (struct boot_params *)(m + LINUX_BOOT_PARAMS_GPA);
	memset(bp, 0, sizeof(*bp));
	memcpy((char *)bp + SETUP_HDR_OFFSET, img->buf + SETUP_HDR_OFFSET,
	       img->hdr_end - SETUP_HDR_OFFSET);
	bp->hdr.type_of_loader = LOADER_TYPE_UNDEFINED;
	bp->hdr.vid_mode = VID_MODE_NORMAL;
	bp->hdr.code32_start = plan->load_addr;
	bp->hdr.cmd_line_ptr = LINUX_CMDLINE_GPA;
	bp->hdr.ramdisk_image = plan->initrd_addr;
	bp->hdr.ramdisk_size = plan->initrd_size;
	bp->hdr.setup_data = 0;
	memcpy(m + LINUX_CMDLINE_GPA, cmdline, strlen(cmdline) + 1);

	n = linux__e820(plan->mem_size, e820, LINUX_E820_ENTRIES);
	for (i = 0; i < n; i++) {
		bp->e820_table[i].addr = e820[i].addr;
		bp->e820_table[i].size = e820[i].size;
		bp->e820_table[i].type = e820[i].type;
	}
	bp->e820_entries = n;
	linux__setup_gdt(mem);
	return 0;
}
