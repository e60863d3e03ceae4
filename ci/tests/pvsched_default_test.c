// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_default_test - pvsched for VMMs that know nothing of it: the
 * sysctl kernel.pvsched_default_driver, the driver every new VM starts
 * with, and the loading of a driver's module when a VMM or the default
 * names a driver that is not loaded (MODULE_ALIAS_PVSCHED(), for callers
 * with CAP_SYS_MODULE only).
 *
 * The VMs here never issue KVM_REPLACE_PVSCHED_OPS unless a test says so:
 * they are what an unmodified VMM creates. The unprivileged cases run in
 * a forked child that keeps uid 0 and drops capabilities (so that /dev/kvm
 * and the sysctl stay writable by their mode), which is what tells a
 * capability check from a permission check.
 *
 * A kselftest_harness.h program run inside the test VM by
 * ci/tests/run-suite.sh, as root, with /sbin/modprobe and the suite's
 * modules indexed under /lib/modules/RELEASE (ci/init.sh). It sets the
 * default and loads and unloads pvsched_boost: run it only in the test VM.
 * Every test leaves the default empty.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/kvm.h>

#include "../../kernel/bpf/pvsched_bpf_count.h"
#include "kselftest_harness.h"
#include "pvsched_util.h"

#define SYSCTL_DEFAULT	"/proc/sys/kernel/pvsched_default_driver"
#define BOOST_DRV	"pvsched_boost"		/* also the module's name */
#define BOOST_KO	"/lib/modules/pvsched_boost.ko"
#define CAPS_ALL	(~0ULL)
#define CAP_BIT(c)	(1ULL << (c))

/* Write @name, with a newline as echo(1) writes it: bytes or -errno. */
static int default_set(const char *name)
{
	char buf[128];
	int n = snprintf(buf, sizeof(buf), "%s\n", name);

	return write_file(SYSCTL_DEFAULT, buf, n, -1);
}

/* The default as the sysctl shows it, without the newline; "?" if unreadable. */
static const char *default_get(void)
{
	static char buf[128];
	int r = read_file(SYSCTL_DEFAULT, buf, sizeof(buf));

	if (r < 0) {
		diag("%s: %s", SYSCTL_DEFAULT, err_str(r));
		return "?";
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * Write @a, then @b, to @path through one fd, as a shell may split an
 * echo: the second write's bytes, or -errno (the first's result does not
 * matter: "pvsched_" alone is no driver's name).
 */
static int split_write(const char *path, const char *a, const char *b)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, a, strlen(a)) < 0)
		diag("%s: first write \"%s\": %s", path, a, strerror(errno));
	n = write(fd, b, strlen(b));
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static bool default_is(const char *name)
{
	const char *cur = default_get();

	if (strcmp(cur, name))
		diag("%s is \"%s\", expected \"%s\"", SYSCTL_DEFAULT, cur, name);
	return !strcmp(cur, name);
}

/* Is the module @name in /proc/modules? */
static bool module_loaded(const char *name)
{
	static char buf[65536];
	size_t len = strlen(name);
	char *line, *save;

	if (read_file("/proc/modules", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, name, len) && line[len] == ' ')
			return true;
	}
	return false;
}

/* rmmod pvsched_boost if it is loaded: 0 or -errno. */
static int boost_unload(void)
{
	if (!module_loaded(BOOST_DRV))
		return 0;
	return syscall(__NR_delete_module, BOOST_DRV, O_NONBLOCK) ? -errno : 0;
}

/* Skip unless the sysctl exists and /sbin/modprobe can load modules. */
static const char *need_default(void)
{
	if (need_count())
		return need_count();
	if (!path_exists(BOOST_KO))
		return BOOST_KO " missing";
	if (!path_exists("/sbin/modprobe"))
		return "no /sbin/modprobe for module autoloading";
	return NULL;
}

FIXTURE(dflt) {};

FIXTURE_SETUP(dflt)
{
	/* A test that failed before it cleaned up must not leak its default. */
	if (path_exists(SYSCTL_DEFAULT))
		ASSERT_EQ(1, default_set(""))
			TH_LOG("clear %s", SYSCTL_DEFAULT);
}

FIXTURE_TEARDOWN(dflt)
{
	if (path_exists(SYSCTL_DEFAULT) && default_set("") != 1)
		diag("cannot clear %s", SYSCTL_DEFAULT);
}

/*
 * What a child without some capabilities saw: up to 8 results (0 or
 * -errno) and up to 4 driver names (GET), in the order its test says.
 */
struct child_res {
	char failed[32];	/* the setup step that failed, "" if none */
	int r[8];
	struct kvm_pvsched_ops ops[4];
};

typedef void (*child_fn)(struct child_res *res);

/*
 * Run @fn in a child that keeps uid 0 and only the capabilities in @keep
 * (effective and permitted): what it saw, in @res. False if the child did
 * not get that far or did not exit normally.
 */
static bool child_run(uint64_t keep, child_fn fn, struct child_res *res)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	TEST_ASSERT(!pipe2(pfd, O_CLOEXEC), "pipe2");
	fflush(stdout);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid) {
		close(pfd[0]);
		data[0].effective = data[0].permitted = (uint32_t)keep;
		data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
		if (syscall(__NR_capset, &hdr, data))
			snprintf(res->failed, sizeof(res->failed), "capset");
		else
			fn(res);
		n = write(pfd[1], res, sizeof(*res));
		_exit(n == sizeof(*res) ? 0 : 1);
	}
	close(pfd[1]);
	n = read(pfd[0], res, sizeof(*res));
	close(pfd[0]);
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	if (n != sizeof(*res) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		diag("the child did not report (read %zd, status %#x)", n,
		     status);
		return false;
	}
	if (res->failed[0]) {
		diag("the child's %s failed", res->failed);
		return false;
	}
	return true;
}

/* GET on @vm into @ops: 0 or -errno. */
static int get_ops(struct kvm_vm *vm, struct kvm_pvsched_ops *ops)
{
	memset(ops, 0xa5, sizeof(*ops));
	return __vm_ioctl(vm, KVM_GET_PVSCHED_OPS, ops) ? -errno : 0;
}

/*
 * 1. A VM whose VMM never issues REPLACE gets the default driver, and the
 * driver its callbacks: the vCPU thread registers at its first KVM_RUN,
 * every entry and exit is counted, and the VM's end unregisters it.
 */
TEST_F_TIMEOUT(dflt, new_vm, TEST_SECONDS)
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct worker *w;
	pid_t tid;

	NEED(need_count);

	ASSERT_EQ(strlen(COUNT_DRV) + 1, default_set(COUNT_DRV))
		TH_LOG("sysctl %s=%s", SYSCTL_DEFAULT, COUNT_DRV);
	EXPECT_TRUE(default_is(COUNT_DRV))
		TH_LOG("the sysctl reads back %s", COUNT_DRV);
	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");

	vm = vm_create();
	EXPECT_TRUE(vm_driver_is(vm, COUNT_DRV))
		TH_LOG("a new VM has %s without any REPLACE", COUNT_DRV);
	vcpu = vcpu_add(vm);
	w = worker_create();
	tid = w->tid;
	EXPECT_EQ(0, counts_nr(&mod_count))
		TH_LOG("no task registered before the first KVM_RUN");
	EXPECT_TRUE(worker_run(w, vcpu, 200))
		TH_LOG("200 KVM_RUNs, all KVM_EXIT_IO");
	EXPECT_TRUE(task_is(&mod_count, tid, 1, 0, 200))
		TH_LOG("the vCPU thread registered once, vmenter == vmexit >= 200");
	worker_destroy(w);
	vm_close(vm);
	EXPECT_TRUE(task_is(&mod_count, tid, 1, 1, 200))
		TH_LOG("the VM's end unregistered it once");
}

/*
 * 2. The default applies to VMs created after it: a VM keeps the driver
 * it was created with, or none, whatever the default becomes.
 */
TEST_F_TIMEOUT(dflt, only_new_vms, TEST_SECONDS)
{
	struct kvm_vm *a, *b, *c;

	NEED(need_count);

	a = vm_create();
	ASSERT_EQ(strlen(COUNT_DRV) + 1, default_set(COUNT_DRV))
		TH_LOG("sysctl %s=%s", SYSCTL_DEFAULT, COUNT_DRV);
	b = vm_create();
	ASSERT_EQ(strlen(NOP_DRV) + 1, default_set(NOP_DRV))
		TH_LOG("sysctl %s=%s", SYSCTL_DEFAULT, NOP_DRV);
	c = vm_create();
	EXPECT_TRUE(vm_driver_is(a, ""))
		TH_LOG("a VM created before any default has no driver");
	EXPECT_TRUE(vm_driver_is(b, COUNT_DRV))
		TH_LOG("a VM created under %s keeps it", COUNT_DRV);
	EXPECT_TRUE(vm_driver_is(c, NOP_DRV))
		TH_LOG("a VM created under %s has it", NOP_DRV);
	ASSERT_EQ(1, default_set(""))
		TH_LOG("clear the default");
	vm_close(c);
	c = vm_create();
	EXPECT_TRUE(vm_driver_is(c, "") && vm_driver_is(b, COUNT_DRV))
		TH_LOG("after the clear: a new VM has none, the others keep theirs");
	vm_close(c);
	vm_close(b);
	vm_close(a);
}

/*
 * 3. An invalid default is refused with EINVAL and leaves the old one;
 * writing the sysctl takes CAP_SYS_ADMIN, not only its file mode.
 */
static const char *const bad_defaults[] = {
	UNKNOWN_DRV,
	"pvsched count",				/* space */
	"pvsched_count\tx",				/* a tab */
	"pvsched_count_with_a_name_too_long",		/* 34 > 31 chars */
	"pvsched_countpvsched_countpvsc" "x",		/* 31: a name's most */
	"pvsched_countpvsched_countpvsch" "x",		/* 32: not cut to 31 */
	"../pvsched_count",				/* modprobe path games */
};

static void child_write_default(struct child_res *res)
{
	res->r[0] = default_set(NOP_DRV);
}

TEST_F_TIMEOUT(dflt, invalid, TEST_SECONDS)
{
	struct child_res res;
	size_t i;
	int r;

	NEED(need_count);

	ASSERT_EQ(strlen(COUNT_DRV) + 1, default_set(COUNT_DRV))
		TH_LOG("sysctl %s=%s", SYSCTL_DEFAULT, COUNT_DRV);
	for (i = 0; i < ARRAY_SIZE(bad_defaults); i++) {
		r = default_set(bad_defaults[i]);
		EXPECT_EQ(-EINVAL, r)
			TH_LOG("\"%s\": EINVAL (%s)", bad_defaults[i], err_str(r));
		EXPECT_TRUE(default_is(COUNT_DRV))
			TH_LOG("... and the default stays %s", COUNT_DRV);
	}
	EXPECT_TRUE(child_run(0, child_write_default, &res) &&
		    res.r[0] == -EPERM && default_is(COUNT_DRV))
		TH_LOG("uid 0 without CAP_SYS_ADMIN may not write the sysctl: EPERM (%s), the default stays %s",
		       err_str(res.r[0]), COUNT_DRV);

	/* Half a name, or none, never clears nor changes the default. */
	r = write_file(SYSCTL_DEFAULT, NOP_DRV "\n", strlen(NOP_DRV) + 1, 1);
	EXPECT_TRUE(r == -EINVAL && default_is(COUNT_DRV))
		TH_LOG("pwrite(\"%s\") at offset 1: EINVAL (%s), the default stays %s (%s)",
		       NOP_DRV, err_str(r), COUNT_DRV, default_get());
	r = split_write(SYSCTL_DEFAULT, "pvsched_", "nop\n");
	EXPECT_TRUE(r == -EINVAL && default_is(COUNT_DRV))
		TH_LOG("\"pvsched_\" then \"nop\" in two writes through one fd: the second, at offset 8, fails with EINVAL (%s), the default stays %s (%s)",
		       err_str(r), COUNT_DRV, default_get());
}

/*
 * 4. A VMM's REPLACE still wins over the default: it hands back the
 * default's name, the default's driver sees no more callbacks, and
 * REPLACE "" leaves the VM without a driver.
 */
TEST_F_TIMEOUT(dflt, replace_wins, TEST_SECONDS)
{
	struct task_counts before, after;
	struct kvm_pvsched_ops prev;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct worker *w;

	NEED(need_count);

	ASSERT_EQ(strlen(COUNT_DRV) + 1, default_set(COUNT_DRV))
		TH_LOG("sysctl %s=%s", SYSCTL_DEFAULT, COUNT_DRV);
	EXPECT_TRUE(counts_reset(&mod_count))
		TH_LOG("reset the counts");
	vm = vm_create();
	vcpu = vcpu_add(vm);
	w = worker_create();
	EXPECT_TRUE(worker_run(w, vcpu, 50))
		TH_LOG("50 KVM_RUNs under the default");
	EXPECT_EQ(0, pvsched_assign(vm, NOP_DRV, &prev))
		TH_LOG("REPLACE %s", NOP_DRV);
	EXPECT_TRUE(ops_is(&prev, COUNT_DRV))
		TH_LOG("... hands back the default, %s: %s", COUNT_DRV,
		       ops_str(&prev));
	before = task_get(&mod_count, w->tid);
	EXPECT_TRUE(before.reg == 1 && before.unreg == 1 && before.vmenter >= 50)
		TH_LOG("the default's driver had the vCPU thread, and let it go");
	EXPECT_TRUE(worker_run(w, vcpu, 50))
		TH_LOG("50 KVM_RUNs under %s", NOP_DRV);
	after = task_get(&mod_count, w->tid);
	EXPECT_TRUE(task_same(&before, &after))
		TH_LOG("no callback to the default's driver after the REPLACE");
	EXPECT_EQ(0, pvsched_assign(vm, "", &prev))
		TH_LOG("REPLACE \"\"");
	EXPECT_TRUE(ops_is(&prev, NOP_DRV) && vm_driver_is(vm, ""))
		TH_LOG("... hands back %s and leaves the VM without a driver",
		       NOP_DRV);
	EXPECT_TRUE(default_is(COUNT_DRV))
		TH_LOG("the default is the VM's own business: it stays %s",
		       COUNT_DRV);
	worker_destroy(w);
	vm_close(vm);
}

/*
 * 5. A default that boosts is the administrator's choice: a VMM without
 * CAP_SYS_NICE gets it, but may not pick it itself. The sysctl's write
 * loads pvsched_boost, as root may.
 */
static void child_boost_vm(struct child_res *res)
{
	struct kvm_pvsched_ops ops;
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;

	vm = vm_create();
	res->r[0] = get_ops(vm, &res->ops[0]);
	vcpu = vcpu_add(vm);
	res->r[1] = vcpu_run_n(vcpu, 20) ? 0 : -EIO;
	ops_fill(&ops, NOP_DRV, 0);
	res->r[2] = pvsched_replace(vm, &ops);
	ops_fill(&ops, BOOST_DRV, 0);
	res->r[3] = pvsched_replace(vm, &ops);
	res->r[4] = get_ops(vm, &res->ops[1]);
	vm_close(vm);
}

TEST_F_TIMEOUT(dflt, boost_unprivileged, TEST_SECONDS)
{
	struct child_res res;
	bool ran;

	NEED(need_default);

	ASSERT_EQ(0, boost_unload())
		TH_LOG("rmmod %s (no VM uses it)", BOOST_DRV);
	ASSERT_EQ(strlen(BOOST_DRV) + 1, default_set(BOOST_DRV))
		TH_LOG("sysctl %s=%s loads its module", SYSCTL_DEFAULT,
		       BOOST_DRV);
	EXPECT_TRUE(module_loaded(BOOST_DRV) && driver_listed(BOOST_DRV))
		TH_LOG("%s loaded and registered", BOOST_DRV);
	ran = child_run(0, child_boost_vm, &res);
	EXPECT_TRUE(ran && !res.r[0] && ops_is(&res.ops[0], BOOST_DRV))
		TH_LOG("a VMM without capabilities gets %s (GET: %s)",
		       BOOST_DRV, err_str(res.r[0]));
	if (ran && !ops_is(&res.ops[0], BOOST_DRV))
		diag("GET: %s", ops_str(&res.ops[0]));
	EXPECT_TRUE(ran && !res.r[1])
		TH_LOG("its vCPU runs under it");
	EXPECT_TRUE(ran && !res.r[2] && res.r[3] == -EPERM && !res.r[4] &&
		    ops_is(&res.ops[1], NOP_DRV))
		TH_LOG("it may REPLACE %s (%s), but not pick %s itself: EPERM (%s)",
		       NOP_DRV, err_str(res.r[2]), BOOST_DRV, err_str(res.r[3]));
	EXPECT_EQ(-EAGAIN, boost_unload())
		TH_LOG("the default keeps %s's module loaded", BOOST_DRV);
	ASSERT_EQ(1, default_set(""))
		TH_LOG("clear the default");
	EXPECT_EQ(0, boost_unload())
		TH_LOG("... after which it unloads");
}

/*
 * 6. REPLACE, or the default, naming a module driver that is not loaded
 * loads it (MODULE_ALIAS_PVSCHED), for a caller with CAP_SYS_MODULE; one
 * without gets EINVAL, and nothing is loaded.
 */
static void child_autoload(struct child_res *res)
{
	struct kvm_pvsched_ops ops;
	struct kvm_vm *vm;

	vm = vm_create();
	ops_fill(&ops, BOOST_DRV, 0);
	res->r[0] = pvsched_replace(vm, &ops);
	res->r[1] = get_ops(vm, &res->ops[0]);
	res->r[2] = default_set(BOOST_DRV);
	vm_close(vm);
}

TEST_F_TIMEOUT(dflt, autoload, TEST_SECONDS)
{
	struct child_res res;
	struct kvm_vm *vm;
	bool ran;
	int r;

	NEED(need_default);

	ASSERT_EQ(0, boost_unload())
		TH_LOG("rmmod %s (no VM uses it)", BOOST_DRV);

	/* All but CAP_SYS_MODULE: CAP_SYS_NICE for the driver that boosts. */
	ran = child_run(CAPS_ALL & ~CAP_BIT(CAP_SYS_MODULE), child_autoload,
			&res);
	EXPECT_TRUE(ran && res.r[0] == -EINVAL && !res.r[1] &&
		    ops_is(&res.ops[0], ""))
		TH_LOG("without CAP_SYS_MODULE, REPLACE %s: EINVAL (%s), the VM keeps no driver",
		       BOOST_DRV, err_str(res.r[0]));
	EXPECT_TRUE(ran && res.r[2] == -EINVAL && default_is(""))
		TH_LOG("... and the sysctl: EINVAL (%s), no default",
		       err_str(res.r[2]));
	EXPECT_TRUE(!module_loaded(BOOST_DRV) && !driver_listed(BOOST_DRV))
		TH_LOG("nothing loaded");

	vm = vm_create();
	r = pvsched_assign(vm, BOOST_DRV, NULL);
	EXPECT_EQ(0, r)
		TH_LOG("root: REPLACE %s loads it (%s)", BOOST_DRV, err_str(r));
	EXPECT_TRUE(module_loaded(BOOST_DRV) && vm_driver_is(vm, BOOST_DRV))
		TH_LOG("... the module is loaded and the VM has the driver");
	r = pvsched_assign(vm, UNKNOWN_DRV, NULL);
	EXPECT_EQ(-EINVAL, r)
		TH_LOG("root: REPLACE %s, which no module provides: EINVAL (%s)",
		       UNKNOWN_DRV, err_str(r));
	EXPECT_TRUE(vm_driver_is(vm, BOOST_DRV))
		TH_LOG("... and the VM keeps %s", BOOST_DRV);
	vm_close(vm);
	EXPECT_EQ(0, boost_unload())
		TH_LOG("rmmod %s once its VM is gone", BOOST_DRV);
}

/*
 * 7. A BPF driver as the default: new VMs get it; when it is unloaded it
 * stops being the default (a module's cannot be unloaded: 5.), new VMs
 * get none, and a VM that has it keeps it until it is gone.
 */
TEST_F_TIMEOUT(dflt, bpf, TEST_SECONDS)
{
	struct kvm_vm *a, *b;
	int n = strlen(PVSCHED_BPF_COUNT_NAME) + 1;

	NEED(need_bpf);

	ASSERT_TRUE(bpf_count_load())
		TH_LOG("pvsched-bpf load count");
	ASSERT_EQ(n, default_set(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("sysctl %s=%s", SYSCTL_DEFAULT, PVSCHED_BPF_COUNT_NAME);
	a = vm_create();
	EXPECT_TRUE(vm_driver_is(a, PVSCHED_BPF_COUNT_NAME))
		TH_LOG("a new VM has %s", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(bpf_count_unload(true))
		TH_LOG("pvsched-bpf unload %s", PVSCHED_BPF_COUNT_NAME);
	EXPECT_TRUE(default_is(""))
		TH_LOG("the unloaded driver is no longer the default");
	b = vm_create();
	EXPECT_TRUE(vm_driver_is(b, "") &&
		    vm_driver_is(a, PVSCHED_BPF_COUNT_NAME))
		TH_LOG("a new VM gets none; the older one keeps %s",
		       PVSCHED_BPF_COUNT_NAME);
	EXPECT_EQ(-EINVAL, default_set(PVSCHED_BPF_COUNT_NAME))
		TH_LOG("nor can it be made the default again");
	vm_close(b);
	vm_close(a);
}

PVSCHED_TEST_HARNESS_MAIN
