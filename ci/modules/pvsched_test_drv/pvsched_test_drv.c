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
 *   strict      "pvsched_test_strict", a driver that holds the framework to
 *               its promises: it allocates per-task state at register and
 *               frees it at once at unregister (no grace period), may
 *               sleep in both (does, now and then), and records as an error every callback for a task
 *               that is not registered, a VMENTER or VMEXIT out of pairs, a
 *               double register, an unregister of an unknown task or of one
 *               in guest mode, and tasks left registered at unload. Counts
 *               (WAKEUPs apart, as they come from any context, and what it
 *               last read of a vCPU's shared area, in the snapshot of
 *               every callback that has one) in debugfs
 *               pvsched_test_strict; the first error also WARNs,
 *               so that a test that misses it still fails on the kernel log.
 *
 * Only for the regression suite in the test VM.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pvsched.h>
#include <uapi/linux/pvsched.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *kind = "ok";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "ok, space, newline, no_owner, duplicate, many or strict");

#define TEST_DRV_MANY	(PVSCHED_MAX + 1)

static unsigned int registered;
module_param(registered, uint, 0444);
MODULE_PARM_DESC(registered, "drivers registered by kind=many");

static void test_drv_notify(const struct pvsched_vcpu_snapshot *snap,
			    struct pid *pid, u32 event)
{
}

static struct pvsched_vcpu_ops test_drv_ops = {
	.pvsched_vcpu_notify_event = test_drv_notify,
	.events = PVSCHED_VCPU_VMEXIT,
	.owner = THIS_MODULE,
};

/* kind=strict */
struct strict_task {
	struct hlist_node node;
	struct pid *pid;
	pid_t nr;		/* pid_nr() at register */
	bool in_guest;
};

enum strict_stat {
	ST_REGISTER,
	ST_UNREGISTER,
	ST_CALLBACK,
	ST_AREA,		/* callbacks with the vCPU's shared area */
	ST_NOAREA,		/* callbacks with area == NULL */
	ST_WAKEUP,		/* WAKEUP callbacks, in any context */
	ST_WAKEUP_IRQ,		/* WAKEUP callbacks from a hard interrupt */
	ST_STRAY,		/* callback for a task not registered */
	ST_UNPAIRED,		/* VMENTER in guest, VMEXIT outside */
	ST_DOUBLE_REGISTER,
	ST_UNKNOWN_UNREGISTER,
	ST_UNREGISTER_IN_GUEST,	/* unregister between VMENTER and VMEXIT */
	ST_PID_CHANGED,		/* pid_nr() differs from the one at register */
	ST_LEFT_AT_EXIT,	/* only in the kernel log: debugfs is gone */
	ST_NR,
};

static const char *const strict_stat_names[ST_NR] = {
	"register", "unregister", "callbacks", "area", "noarea", "wakeup",
	"wakeup_irq", "stray",
	"unpaired",
	"double_register", "unknown_unregister", "unregister_in_guest",
	"pid_changed", "left_at_exit",
};

#define ST_FIRST_ERROR	ST_STRAY

static DEFINE_HASHTABLE(strict_tasks, 6);
static DEFINE_RAW_SPINLOCK(strict_lock);
static atomic_long_t strict_stats[ST_NR];
/* The guest_prio and version last read from a shared area. */
static u32 strict_guest_prio, strict_area_version;
/*
 * What pvsched_vcpu_boost() last returned to this driver, which lacks
 * PVSCHED_OPS_BOOST: outside a callback (register), in a callback, and in
 * a callback for another task (NULL). 1 until called.
 */
static int strict_boost_outside = 1, strict_boost_noflag = 1;
static int strict_boost_otherpid = 1;
static struct dentry *strict_file;

/*
 * Register and unregister may sleep; one call in STRICT_SLEEP_EVERY does,
 * so that the races see it without being slowed down to a crawl (a sleep
 * under contention from the vCPU threads costs a scheduling round).
 */
#define STRICT_SLEEP_EVERY	16

static void strict_maybe_sleep(void)
{
	might_sleep();
	if (!get_random_u32_below(STRICT_SLEEP_EVERY))
		usleep_range(50, 100);
}

static void strict_error(enum strict_stat stat, struct pid *pid, u32 event)
{
	atomic_long_inc(&strict_stats[stat]);
	WARN_ONCE(1, "pvsched_test_strict: %s (task %px, event %#x)\n",
		  strict_stat_names[stat], pid, event);
}

/* With strict_lock held. */
static struct strict_task *strict_find(struct pid *pid)
{
	struct strict_task *t;

	hash_for_each_possible(strict_tasks, t, node, (unsigned long)pid) {
		if (t->pid == pid)
			return t;
	}
	return NULL;
}

static int strict_register(struct pid *pid)
{
	struct strict_task *t;
	unsigned long flags;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	strict_maybe_sleep();
	t->pid = pid;
	t->nr = pid_nr(pid);
	raw_spin_lock_irqsave(&strict_lock, flags);
	if (strict_find(pid)) {
		raw_spin_unlock_irqrestore(&strict_lock, flags);
		kfree(t);
		strict_error(ST_DOUBLE_REGISTER, pid, 0);
		return 0;
	}
	hash_add(strict_tasks, &t->node, (unsigned long)pid);
	raw_spin_unlock_irqrestore(&strict_lock, flags);
	atomic_long_inc(&strict_stats[ST_REGISTER]);
	WRITE_ONCE(strict_boost_outside, pvsched_vcpu_boost(pid));
	return 0;
}

static void strict_unregister(struct pid *pid)
{
	struct strict_task *t;
	unsigned long flags;
	bool in_guest;

	raw_spin_lock_irqsave(&strict_lock, flags);
	t = strict_find(pid);
	if (t)
		hash_del(&t->node);
	raw_spin_unlock_irqrestore(&strict_lock, flags);
	if (!t) {
		strict_error(ST_UNKNOWN_UNREGISTER, pid, 0);
		return;
	}
	in_guest = t->in_guest;
	/* No grace period: the framework says no callback follows. */
	kfree(t);
	atomic_long_inc(&strict_stats[ST_UNREGISTER]);
	if (in_guest)
		strict_error(ST_UNREGISTER_IN_GUEST, pid, 0);
	strict_maybe_sleep();
}

static void strict_notify(const struct pvsched_vcpu_snapshot *snap,
			  struct pid *pid, u32 event)
{
	enum strict_stat err = ST_NR;
	struct strict_task *t;
	unsigned long flags;

	raw_spin_lock_irqsave(&strict_lock, flags);
	t = strict_find(pid);
	if (!t) {
		err = ST_STRAY;
	} else if (pid_nr(pid) != t->nr) {
		err = ST_PID_CHANGED;
	} else if (event == PVSCHED_VCPU_VMENTER) {
		if (t->in_guest)
			err = ST_UNPAIRED;
		t->in_guest = true;
	} else if (event == PVSCHED_VCPU_VMEXIT) {
		if (!t->in_guest)
			err = ST_UNPAIRED;
		t->in_guest = false;
	}
	raw_spin_unlock_irqrestore(&strict_lock, flags);
	atomic_long_inc(&strict_stats[ST_CALLBACK]);
	if (event == PVSCHED_VCPU_WAKEUP) {
		atomic_long_inc(&strict_stats[ST_WAKEUP]);
		if (in_hardirq())
			atomic_long_inc(&strict_stats[ST_WAKEUP_IRQ]);
	}
	if (snap) {
		/* What the guest wrote: any value. */
		WRITE_ONCE(strict_guest_prio, snap->guest_prio);
		WRITE_ONCE(strict_area_version, snap->version);
		atomic_long_inc(&strict_stats[ST_AREA]);
	} else {
		atomic_long_inc(&strict_stats[ST_NOAREA]);
	}
	WRITE_ONCE(strict_boost_noflag, pvsched_vcpu_boost(pid));
	WRITE_ONCE(strict_boost_otherpid, pvsched_vcpu_unboost(NULL));
	if (err != ST_NR)
		strict_error(err, pid, event);
}

static int strict_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < ST_LEFT_AT_EXIT; i++)
		seq_printf(m, "%s%s=%ld", i ? " " : "", strict_stat_names[i],
			   atomic_long_read(&strict_stats[i]));
	seq_printf(m, " guest_prio=%u area_version=%u", READ_ONCE(strict_guest_prio),
		   READ_ONCE(strict_area_version));
	seq_printf(m, " boost_outside=%d boost_noflag=%d boost_otherpid=%d\n",
		   READ_ONCE(strict_boost_outside), READ_ONCE(strict_boost_noflag),
		   READ_ONCE(strict_boost_otherpid));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(strict);

static int strict_init(void)
{
	test_drv_ops.pvsched_vcpu_register = strict_register;
	test_drv_ops.pvsched_vcpu_unregister = strict_unregister;
	test_drv_ops.pvsched_vcpu_notify_event = strict_notify;
	test_drv_ops.events = PVSCHED_VCPU_EVENTS_ALL;
	strict_file = debugfs_create_file("pvsched_test_strict", 0444, NULL,
					  NULL, &strict_fops);
	return 0;
}

static void strict_exit(void)
{
	struct strict_task *t;
	struct hlist_node *tmp;
	int bkt;

	debugfs_remove(strict_file);
	/* Unregistered from the framework: no VM can call us any more. */
	hash_for_each_safe(strict_tasks, bkt, tmp, t, node) {
		strict_error(ST_LEFT_AT_EXIT, t->pid, 0);
		hash_del(&t->node);
		kfree(t);
	}
	pr_info("pvsched_test_strict: unloaded after %ld registers, %ld unregisters, %ld callbacks\n",
		atomic_long_read(&strict_stats[ST_REGISTER]),
		atomic_long_read(&strict_stats[ST_UNREGISTER]),
		atomic_long_read(&strict_stats[ST_CALLBACK]));
}

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
	int ret;

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
	} else if (!strcmp(kind, "strict")) {
		name = "pvsched_test_strict";
		strict_init();
	} else {
		return -EINVAL;
	}
	strscpy(test_drv_ops.name, name);

	ret = pvsched_register_vcpu_ops(&test_drv_ops);
	if (ret && strict_file)
		strict_exit();
	return ret;
}

static void __exit test_drv_exit(void)
{
	if (!strcmp(kind, "many"))
		test_drv_unregister_many();
	else
		pvsched_unregister_vcpu_ops(&test_drv_ops);
	if (strict_file)
		strict_exit();
}

module_init(test_drv_init);
module_exit(test_drv_exit);

MODULE_DESCRIPTION("pvsched driver registration tests");
MODULE_LICENSE("GPL");
