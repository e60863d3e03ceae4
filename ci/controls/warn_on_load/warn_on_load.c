// SPDX-License-Identifier: GPL-2.0
/*
 * warn_on_load - negative control of ci/check.sh, test VMs only: loading
 * it prints a kernel WARNING, which must turn make check red.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init warn_on_load_init(void)
{
	WARN(1, "warn_on_load: injected by the negative control of ci/check.sh\n");
	return 0;
}

static void __exit warn_on_load_exit(void)
{
}

module_init(warn_on_load_init);
module_exit(warn_on_load_exit);

MODULE_DESCRIPTION("Negative control: a kernel WARNING on load");
MODULE_LICENSE("GPL");
