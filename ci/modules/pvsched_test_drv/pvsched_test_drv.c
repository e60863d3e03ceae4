// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_test_drv: a test-only module that registers one pvsched driver
 * built to be right or wrong in one way, chosen by the "kind" parameter,
 * and fails to load with the registration's error:
 *
 *   ok          "pvsched_test_ok", owned by this module: registers
 *   space       "pvsched test", a name with a space: -EINVAL
 *   newline     "pvsched_test\n": -EINVAL
 *   no_owner    "pvsched_test_noowner" with a NULL owner, which would
 *               leave this module unpinned while a VM calls it: -EINVAL
 *   duplicate   "pvsched_nop", the built-in driver's name: -EEXIST
 *   many        "pvsched_test_0", "pvsched_test_1", ... until the registry
 *               is full: loads if that ends with -ENOSPC, and shows how
 *               many registered in the parameter "registered"
 *
 * Only for the regression suite in the test VM.
 */
#include <linux/module.h>
#include <linux/pvsched.h>
#include <linux/string.h>

static char *kind = "ok";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "ok, space, newline, no_owner, duplicate or many");

#define TEST_DRV_MANY	(PVSCHED_MAX + 1)

static unsigned int registered;
module_param(registered, uint, 0444);
MODULE_PARM_DESC(registered, "drivers registered by kind=many");

static void test_drv_notify(void *addr, struct pid *pid, u32 event)
{
}

static struct pvsched_vcpu_ops test_drv_ops = {
	.pvsched_vcpu_notify_event = test_drv_notify,
	.events = PVSCHED_VCPU_VMEXIT,
	.owner = THIS_MODULE,
};

static struct pvsched_vcpu_ops test_drv_many[TEST_DRV_MANY];

static void test_drv_unregister_many(void)
{
	while (registered)
		pvsched_unregister_vcpu_ops(&test_drv_many[--registered]);
}

/* Register until the registry refuses; only -ENOSPC is expected. */
static int test_drv_register_many(void)
{
	struct pvsched_vcpu_ops *ops;
	int i, ret = 0;

	for (i = 0; i < TEST_DRV_MANY; i++) {
		ops = &test_drv_many[i];
		*ops = test_drv_ops;
		snprintf(ops->name, sizeof(ops->name), "pvsched_test_%d", i);
		ret = pvsched_register_vcpu_ops(ops);
		if (ret)
			break;
		registered++;
	}
	if (ret == -ENOSPC)
		return 0;
	test_drv_unregister_many();
	return ret ? ret : -E2BIG;
}

static int __init test_drv_init(void)
{
	const char *name;

	if (!strcmp(kind, "ok")) {
		name = "pvsched_test_ok";
	} else if (!strcmp(kind, "space")) {
		name = "pvsched test";
	} else if (!strcmp(kind, "newline")) {
		name = "pvsched_test\n";
	} else if (!strcmp(kind, "no_owner")) {
		name = "pvsched_test_noowner";
		test_drv_ops.owner = NULL;
	} else if (!strcmp(kind, "duplicate")) {
		name = "pvsched_nop";
	} else if (!strcmp(kind, "many")) {
		return test_drv_register_many();
	} else {
		return -EINVAL;
	}
	strscpy(test_drv_ops.name, name);

	return pvsched_register_vcpu_ops(&test_drv_ops);
}

static void __exit test_drv_exit(void)
{
	if (!strcmp(kind, "many"))
		test_drv_unregister_many();
	else
		pvsched_unregister_vcpu_ops(&test_drv_ops);
}

module_init(test_drv_init);
module_exit(test_drv_exit);

MODULE_DESCRIPTION("pvsched driver registration tests");
MODULE_LICENSE("GPL");
