/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Booting a Linux bzImage through the x86 64-bit boot protocol
 * (Documentation/arch/x86/boot.rst): the setup header, where the kernel
 * and the initrd go, the zero page (struct boot_params), e820, the
 * command line and the boot GDT.
 *
 * Guest physical memory of a Linux guest (one memslot at GPA 0, --mem):
 *
 *   0x1000   boot GDT: __BOOT_CS (0x10), __BOOT_DS (0x18), flat
 *   0x2000   page tables, as for the payloads (layout.h): 0-4 GiB
 *            identity-mapped with 2 MiB pages
 *   0x10000  top of vCPU 0's boot stack (grows down, below the zero page)
 *   0x10000  the zero page (LINUX_BOOT_PARAMS_GPA)
 *   0x20000  the command line (LINUX_CMDLINE_GPA)
 *   0x9f000  e820 reserved up to 1 MiB: EBDA, VGA, BIOS area
 *   0xf0000  the MP table (mptable.h)
 *   pref_address (16 MiB for x86_64)  the protected-mode kernel, init_size
 *            bytes of room (it decompresses itself there)
 *   the initrd, at the top of RAM below initrd_addr_max, page-aligned
 *
 * e820: [0, 0x9f000) RAM, [0x9f000, 1 MiB) reserved, [1 MiB, --mem) RAM.
 * The kernel copies the zero page and the command line early, and finds
 * room for its real-mode trampoline (the APs' INIT/SIPI entry) in the
 * RAM below 640 KiB.
 */
#ifndef MINIVMM_LINUX_H
#define MINIVMM_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define LINUX_BOOT_CS		0x10	/* __BOOT_CS */
#define LINUX_BOOT_DS		0x18	/* __BOOT_DS */
#define LINUX_GDT_ENTRIES	4
#define LINUX_BOOT_STACK_GPA	0x10000UL
#define LINUX_BOOT_PARAMS_GPA	0x10000UL
#define LINUX_CMDLINE_GPA	0x20000UL
#define LINUX_CMDLINE_ROOM	0x10000UL	/* up to 0x30000 */
#define LINUX_LOWMEM_END	0x9f000UL	/* usable RAM below it */
#define LINUX_HIGHMEM_START	0x100000UL	/* usable RAM from 1 MiB */
#define LINUX_ENTRY_64_OFFSET	0x200	/* startup_64 in the loaded kernel */

/* --mem, in MiB: RAM stays below the IOAPIC and LAPIC (0xfec00000). */
#define LINUX_DEFAULT_MEM_MIB	256ULL
#define LINUX_MAX_MEM_MIB	3072ULL
#define LINUX_DEFAULT_CMDLINE	"console=ttyS0"

/* What the boot protocol needs: 2.12 has xloadflags (XLF_KERNEL_64). */
#define LINUX_MIN_BOOT_PROTOCOL	0x020c

#define E820_TYPE_RAM		1
#define E820_TYPE_RESERVED	2
#define LINUX_E820_ENTRIES	3

struct linux_e820 {
	__u64 addr;
	__u64 size;
	__u32 type;
};

/* A bzImage read into memory, and what its setup header says. */
struct linux_image {
	unsigned char *buf;		/* the whole file */
	size_t size;
	size_t setup_size;		/* (setup_sects + 1) * 512 */
	size_t hdr_end;			/* 0x202 + byte at 0x201 */
	__u16 version;			/* boot protocol, 0x020f = 2.15 */
	__u8 loadflags;
	__u16 xloadflags;
	__u8 relocatable;
	__u32 kernel_alignment;
	__u32 init_size;		/* room the kernel needs from its load address */
	__u64 pref_address;		/* where it wants to be loaded */
	__u32 cmdline_size;		/* characters, without the NUL */
	__u32 initrd_addr_max;		/* highest byte an initrd may use */
};

/* Where everything goes in a guest of mem_size bytes. */
struct linux_plan {
	__u64 mem_size;
	__u64 load_addr;		/* the protected-mode kernel */
	__u64 entry;			/* load_addr + 0x200: startup_64 */
	__u64 initrd_addr;		/* 0: no initrd */
	__u64 initrd_size;
};

int linux__read_file(const char *path, void **buf, size_t *size,
		     char *err, size_t errlen);
int linux__parse(const void *buf, size_t size, struct linux_image *img,
		 char *err, size_t errlen);
int linux__plan(const struct linux_image *img, __u64 mem_size,
		size_t initrd_size, size_t cmdline_len,
		struct linux_plan *plan, char *err, size_t errlen);
unsigned int linux__e820(__u64 mem_size, struct linux_e820 *e,
			 unsigned int max);
int linux__load(void *mem, const struct linux_image *img,
		const struct linux_plan *plan, const void *initrd,
		const char *cmdline);
void linux__setup_gdt(void *mem);

#endif /* MINIVMM_LINUX_H */
