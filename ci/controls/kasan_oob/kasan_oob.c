// SPDX-License-Identifier: GPL-2.0
/*
 * kasan_oob - negative control of ci/check.sh, test VMs of the debug
 * kernel only: loading it reads one byte past a kmalloc()ed object, which
 * KASAN must report and the report must turn make check red.
 */
#include <linux/module.h>
#include <linux/slab.h>

static int __init kasan_oob_init(void)
{
	char *p = kmalloc(8, GFP_KERNEL);
	char c;

	if (!p)
		return -ENOMEM;
	/* Through a volatile: the compiler must not see the overflow. */
	c = ((volatile char *)p)[8];
	kfree(p);
	pr_info("kasan_oob: read %d past the object\n", c);
	return 0;
}

static void __exit kasan_oob_exit(void)
{
}

module_init(kasan_oob_init);
module_exit(kasan_oob_exit);

MODULE_DESCRIPTION("Negative control: an out-of-bounds read for KASAN");
MODULE_LICENSE("GPL");
