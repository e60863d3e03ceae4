// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched-bpf: load, unload and inspect the BPF pvsched drivers.
 *
 *   pvsched-bpf load DRIVER         register a driver; it stays registered
 *                                   after this program exits (DRIVER: see
 *                                   drivers[] or "pvsched-bpf -h")
 *   pvsched-bpf unload NAME         unregister it (delete its struct_ops map)
 *   pvsched-bpf stats [NAME]        per-task counts of bpf_pvsched_count, or
 *                                   of NAME: bpf_pvsched_count (the default)
 *                                   or bpf_pvsched_tpcount
 *   pvsched-bpf reset [NAME]        clear them
 *
 * Besides the drivers, "load" knows the test suite's variants: sleep,
 * noflag, and sleep-notify, boost-unchecked and boost-write, which the
 * kernel refuses (their loads fail, printing the kernel's reason).
 *
 * It also knows bpf_pvsched_tpcount ("load tpcount"), which is no pvsched
 * driver: the baseline of bpf_pvsched_count, the same counts taken by
 * programs on KVM's tracepoints, for a kernel or VM with no driver. "load"
 * attaches them and pins their links, so they stay attached after this
 * program exits; "unload bpf_pvsched_tpcount" removes the pins, which
 * detaches them, and waits until the kernel has freed the programs.
 *
 * And it knows scx_minimal ("load scx"), which is no pvsched driver
 * either: a sched_ext scheduler of all tasks, for the boost test. "load"
 * enables it, and the kernel keeps it enabled after this program exits;
 * "unload scx_minimal" disables it. Its struct_ops map is pinned at
 * /sys/fs/bpf/pvsched/scx_minimal/ops, as a driver's.
 *
 * A registered driver's struct_ops map is pinned at
 * /sys/fs/bpf/pvsched/NAME/ops, bpf_pvsched_count's count maps at
 * /sys/fs/bpf/pvsched/bpf_pvsched_count/{slots,counts}, and
 * bpf_pvsched_noflag's results map at
 * /sys/fs/bpf/pvsched/bpf_pvsched_noflag/results. bpf_pvsched_tpcount's
 * count maps are at /sys/fs/bpf/pvsched/bpf_pvsched_tpcount/{slots,counts}
 * and its links at /sys/fs/bpf/pvsched/bpf_pvsched_tpcount/TRACEPOINT, e.g.
 * .../kvm_entry.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pvsched_bpf_count.h"
#include "pvsched_bpf_noflag.h"
#include "pvsched_bpf_tpcount.h"
#include "pvsched_badarea.skel.h"
#include "pvsched_boost.skel.h"
#include "pvsched_count.skel.h"
#include "pvsched_noflag.skel.h"
#include "pvsched_nop.skel.h"
#include "pvsched_sample.skel.h"
#include "pvsched_sleep.skel.h"
#include "pvsched_tpcount.skel.h"
#include "scx_minimal.skel.h"

#define SAMPLE_NAME	"bpf_pvsched_ops"
#define NOP_NAME	"bpf_pvsched_nop"
#define BOOST_NAME	"bpf_pvsched_boost"
#define SLEEP_NAME	"bpf_pvsched_sleep"
#define UNCHECKED_NAME	"bpf_pvsched_unchecked"
#define BADWRITE_NAME	"bpf_pvsched_badwrite"
#define SCX_NAME	"scx_minimal"	/* its sched_ext_ops.name */

static int verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void pin_path(char *buf, size_t len, const char *name, const char *obj)
{
	snprintf(buf, len, "%s/%s%s%s", PVSCHED_BPF_PIN_DIR, name,
		 obj ? "/" : "", obj ? obj : "");
}

static int pin_dir_make(const char *name)
{
	char path[PATH_MAX];

	if (mkdir(PVSCHED_BPF_PIN_DIR, 0700) && errno != EEXIST)
		goto err;
	pin_path(path, sizeof(path), name, NULL);
	if (mkdir(path, 0700) && errno != EEXIST)
		goto err;
	return 0;
err:
	fprintf(stderr, "pvsched-bpf: mkdir under %s: %s (is bpffs mounted at /sys/fs/bpf?)\n",
		PVSCHED_BPF_PIN_DIR, strerror(errno));
	return -1;
}

/* Register @ops, pin it, and leave it registered when we exit. */
static int driver_attach(struct bpf_map *ops, const char *name)
{
	char path[PATH_MAX];
	struct bpf_link *link;
	int err;

	if (pin_dir_make(name))
		return -1;

	link = bpf_map__attach_struct_ops(ops);
	if (!link) {
		err = -errno;
		fprintf(stderr, "pvsched-bpf: registering %s: %s%s\n", name,
			strerror(-err),
			err == -EEXIST ? " (a driver of that name is registered)" :
			err == -ENOSPC ? " (too many pvsched drivers)" :
			err == -EBUSY ? " (a sched_ext scheduler is enabled)" : "");
		return -1;
	}

	pin_path(path, sizeof(path), name, "ops");
	err = bpf_map__pin(ops, path);
	if (err) {
		fprintf(stderr, "pvsched-bpf: pinning %s: %s\n", path,
			strerror(-err));
		bpf_link__destroy(link);	/* unregisters */
		return -1;
	}

	/* The kernel keeps a non-link struct_ops map registered. */
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	printf("registered %s\n", name);
	return 0;
}

/*
 * A driver with maps pinned under its name must not be loaded twice: the
 * second load would replace the pins of the maps of the registered one
 * before its registration fails. Its "ops" pin says that it is loaded.
 */
static int driver_loaded(const char *name)
{
	char path[PATH_MAX];

	pin_path(path, sizeof(path), name, "ops");
	if (access(path, F_OK))
		return 0;
	fprintf(stderr, "pvsched-bpf: %s is already loaded (pvsched-bpf unload %s first)\n",
		name, name);
	return 1;
}

static int pin_map(struct bpf_map *map, const char *name, const char *obj)
{
	char path[PATH_MAX];

	pin_path(path, sizeof(path), name, obj);
	unlink(path);
	if (bpf_map__pin(map, path)) {
		fprintf(stderr, "pvsched-bpf: pinning %s failed\n", path);
		return -1;
	}
	return 0;
}

static void unpin(const char *name, const char *obj)
{
	char path[PATH_MAX];

	pin_path(path, sizeof(path), name, obj);
	unlink(path);
}

static int load_count(void)
{
	struct pvsched_count_bpf *skel;
	int err = -1;

	if (driver_loaded(PVSCHED_BPF_COUNT_NAME))
		return -1;
	skel = pvsched_count_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n",
			PVSCHED_BPF_COUNT_NAME, strerror(errno));
		return -1;
	}

	if (pin_dir_make(PVSCHED_BPF_COUNT_NAME) ||
	    pin_map(skel->maps.counts, PVSCHED_BPF_COUNT_NAME, "counts") ||
	    pin_map(skel->maps.slots, PVSCHED_BPF_COUNT_NAME, "slots"))
		goto out;
	err = driver_attach(skel->maps.pvsched_count_ops,
			    PVSCHED_BPF_COUNT_NAME);
out:
	if (err) {
		unpin(PVSCHED_BPF_COUNT_NAME, "counts");
		unpin(PVSCHED_BPF_COUNT_NAME, "slots");
	}
	pvsched_count_bpf__destroy(skel);
	return err;
}

/*
 * The tracepoints of bpf_pvsched_tpcount's programs, one each, whose links
 * are pinned under these names; each program's section is "tp_btf/NAME".
 */
static const char *const tpcount_tps[] = {
	"kvm_entry", "kvm_exit", "kvm_inj_virq", "kvm_vcpu_wakeup",
};

#define TPCOUNT_NR_TPS	(sizeof(tpcount_tps) / sizeof(tpcount_tps[0]))

static void tpcount_unpin(void)
{
	size_t i;

	for (i = 0; i < TPCOUNT_NR_TPS; i++)
		unpin(PVSCHED_BPF_TPCOUNT_NAME, tpcount_tps[i]);
	unpin(PVSCHED_BPF_TPCOUNT_NAME, "counts");
	unpin(PVSCHED_BPF_TPCOUNT_NAME, "slots");
}

/* The tracepoint of @prog, in tpcount_tps[]; NULL with a message if not. */
static const char *tpcount_tp(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	size_t i;

	for (i = 0; i < TPCOUNT_NR_TPS; i++) {
		if (!strncmp(sec, "tp_btf/", 7) && !strcmp(sec + 7, tpcount_tps[i]))
			return tpcount_tps[i];
	}
	fprintf(stderr, "pvsched-bpf: %s: section %s is not in tpcount_tps[]\n",
		bpf_program__name(prog), sec);
	return NULL;
}

/*
 * bpf_pvsched_tpcount: attach every program to its tracepoint and pin the
 * links and maps, so that the programs stay attached when we exit; no
 * pvsched driver is registered.
 */
static int load_tpcount(void)
{
	struct bpf_link *links[TPCOUNT_NR_TPS] = {};
	struct pvsched_tpcount_bpf *skel;
	struct bpf_program *prog;
	char path[PATH_MAX];
	size_t i, n = 0;
	const char *tp;
	int err = -1;

	for (i = 0; i < TPCOUNT_NR_TPS; i++) {
		pin_path(path, sizeof(path), PVSCHED_BPF_TPCOUNT_NAME,
			 tpcount_tps[i]);
		if (!access(path, F_OK)) {
			fprintf(stderr, "pvsched-bpf: %s is loaded (%s exists)\n",
				PVSCHED_BPF_TPCOUNT_NAME, path);
			return -1;
		}
	}

	skel = pvsched_tpcount_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n",
			PVSCHED_BPF_TPCOUNT_NAME, strerror(errno));
		return -1;
	}

	if (pin_dir_make(PVSCHED_BPF_TPCOUNT_NAME) ||
	    pin_map(skel->maps.counts, PVSCHED_BPF_TPCOUNT_NAME, "counts") ||
	    pin_map(skel->maps.slots, PVSCHED_BPF_TPCOUNT_NAME, "slots"))
		goto out;

	bpf_object__for_each_program(prog, skel->obj) {
		tp = tpcount_tp(prog);
		if (!tp || n == TPCOUNT_NR_TPS)
			goto out;
		links[n] = bpf_program__attach(prog);
		if (!links[n]) {
			fprintf(stderr, "pvsched-bpf: attaching %s to %s: %s\n",
				bpf_program__name(prog), tp, strerror(errno));
			goto out;
		}
		pin_path(path, sizeof(path), PVSCHED_BPF_TPCOUNT_NAME, tp);
		if (bpf_link__pin(links[n++], path)) {
			fprintf(stderr, "pvsched-bpf: pinning %s: %s\n", path,
				strerror(errno));
			goto out;
		}
	}
	if (n != TPCOUNT_NR_TPS) {
		fprintf(stderr, "pvsched-bpf: %s has %zu programs, not %zu\n",
			PVSCHED_BPF_TPCOUNT_NAME, n, TPCOUNT_NR_TPS);
		goto out;
	}
	err = 0;
	printf("attached %s\n", PVSCHED_BPF_TPCOUNT_NAME);
out:
	if (err)
		tpcount_unpin();
	/* Closes our link fds: a pinned link stays attached. */
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	pvsched_tpcount_bpf__destroy(skel);
	return err;
}

static int load_sample(void)
{
	struct pvsched_sample_bpf *skel;
	int err;

	skel = pvsched_sample_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n",
			SAMPLE_NAME, strerror(errno));
		return -1;
	}
	err = driver_attach(skel->maps.pvsched_ops, SAMPLE_NAME);
	pvsched_sample_bpf__destroy(skel);
	return err;
}

static int load_nop(void)
{
	struct pvsched_nop_bpf *skel;
	int err;

	skel = pvsched_nop_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n",
			NOP_NAME, strerror(errno));
		return -1;
	}
	err = driver_attach(skel->maps.pvsched_nop_ops, NOP_NAME);
	pvsched_nop_bpf__destroy(skel);
	return err;
}

/* bpf_pvsched_boost: boosts on the guest's request, needs CAP_SYS_NICE to use. */
static int load_boost(void)
{
	struct pvsched_boost_bpf *skel;
	int err;

	skel = pvsched_boost_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n",
			BOOST_NAME, strerror(errno));
		return -1;
	}
	err = driver_attach(skel->maps.pvsched_boost_ops, BOOST_NAME);
	pvsched_boost_bpf__destroy(skel);
	return err;
}

/*
 * bpf_pvsched_noflag: bpf_pvsched_boost without PVSCHED_OPS_BOOST, whose
 * kfunc calls must fail with -EPERM; it counts their results in a map.
 */
static int load_noflag(void)
{
	struct pvsched_noflag_bpf *skel;
	int err = -1;

	if (driver_loaded(PVSCHED_BPF_NOFLAG_NAME))
		return -1;
	skel = pvsched_noflag_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n",
			PVSCHED_BPF_NOFLAG_NAME, strerror(errno));
		return -1;
	}
	if (pin_dir_make(PVSCHED_BPF_NOFLAG_NAME) ||
	    pin_map(skel->maps.results, PVSCHED_BPF_NOFLAG_NAME, "results"))
		goto out;
	err = driver_attach(skel->maps.pvsched_noflag_ops,
			    PVSCHED_BPF_NOFLAG_NAME);
out:
	if (err)
		unpin(PVSCHED_BPF_NOFLAG_NAME, "results");
	pvsched_noflag_bpf__destroy(skel);
	return err;
}

/*
 * One of the two variants of pvsched_badarea.bpf.c, which the verifier
 * must refuse: bpf_pvsched_unchecked (@write false) reads the area without
 * a NULL test, bpf_pvsched_badwrite (@write true) writes to it. The other
 * variant is neither loaded nor created. libbpf prints the verifier's log
 * when the load fails; if the kernel takes it, it is registered, for the
 * tests to see.
 */
static int load_badarea(bool write)
{
	const char *name = write ? BADWRITE_NAME : UNCHECKED_NAME;
	struct pvsched_badarea_bpf *skel;
	struct bpf_map *ops;
	int err;

	skel = pvsched_badarea_bpf__open();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: opening %s failed: %s\n", name,
			strerror(errno));
		return -1;
	}
	bpf_program__set_autoload(write ?
				  skel->progs.pvsched_unchecked_notify_event :
				  skel->progs.pvsched_badwrite_notify_event,
				  false);
	bpf_map__set_autocreate(write ? skel->maps.pvsched_unchecked_ops :
					skel->maps.pvsched_badwrite_ops, false);
	ops = write ? skel->maps.pvsched_badwrite_ops :
		      skel->maps.pvsched_unchecked_ops;
	err = pvsched_badarea_bpf__load(skel);
	if (err) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n", name,
			strerror(-err));
		pvsched_badarea_bpf__destroy(skel);
		return -1;
	}
	fprintf(stderr, "pvsched-bpf: the kernel accepted %s, which it must refuse\n",
		name);
	err = driver_attach(ops, name);
	pvsched_badarea_bpf__destroy(skel);
	return err;
}

/*
 * bpf_pvsched_sleep with sleepable register and unregister programs, or
 * with a sleepable notify_event (@notify), which the kernel refuses. The
 * flag is set here: Debian's libbpf does not know "struct_ops.s" sections.
 */
static int load_sleep(bool notify)
{
	struct pvsched_sleep_bpf *skel;
	int err;

	skel = pvsched_sleep_bpf__open();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: opening %s failed: %s\n",
			SLEEP_NAME, strerror(errno));
		return -1;
	}
	if (notify) {
		bpf_program__set_flags(skel->progs.pvsched_sleep_notify_event,
				       BPF_F_SLEEPABLE);
	} else {
		bpf_program__set_flags(skel->progs.pvsched_sleep_reg,
				       BPF_F_SLEEPABLE);
		bpf_program__set_flags(skel->progs.pvsched_sleep_unreg,
				       BPF_F_SLEEPABLE);
	}
	err = pvsched_sleep_bpf__load(skel);
	if (err) {
		fprintf(stderr, "pvsched-bpf: loading %s%s failed: %s\n",
			SLEEP_NAME, notify ? " (sleepable notify_event)" : "",
			strerror(-err));
		pvsched_sleep_bpf__destroy(skel);
		return -1;
	}
	err = driver_attach(skel->maps.pvsched_sleep_ops, SLEEP_NAME);
	pvsched_sleep_bpf__destroy(skel);
	return err;
}

/*
 * scx_minimal: a sched_ext scheduler, no pvsched driver; registering its
 * struct_ops map enables it, with all tasks switched to it.
 */
static int load_scx(void)
{
	struct scx_minimal_bpf *skel;
	int err;

	if (driver_loaded(SCX_NAME))
		return -1;
	skel = scx_minimal_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pvsched-bpf: loading %s failed: %s\n",
			SCX_NAME, strerror(errno));
		return -1;
	}
	err = driver_attach(skel->maps.scx_minimal_ops, SCX_NAME);
	scx_minimal_bpf__destroy(skel);
	return err;
}

static int load_sleep_reg(void)
{
	return load_sleep(false);
}

static int load_sleep_notify(void)
{
	return load_sleep(true);
}

static int load_boost_unchecked(void)
{
	return load_badarea(false);
}

static int load_boost_write(void)
{
	return load_badarea(true);
}

/* What "load" knows: the usage text and the dispatch, in one place. */
static const struct {
	const char *which;
	int (*load)(void);
	bool test;		/* a variant for the tests */
	const char *what;
} drivers[] = {
	{ "sample", load_sample, false,
	  SAMPLE_NAME ": the RFC's sample, logs VMEXIT and HALT" },
	{ "count", load_count, false,
	  PVSCHED_BPF_COUNT_NAME ": counts callbacks per vCPU task (stats)" },
	{ "nop", load_nop, false,
	  NOP_NAME ": every event, does nothing" },
	{ "boost", load_boost, false,
	  BOOST_NAME ": boosts on the guest's request (PVSCHED_OPS_BOOST)" },
	{ "tpcount", load_tpcount, false,
	  PVSCHED_BPF_TPCOUNT_NAME ": count's counts on KVM's tracepoints, not a driver" },
	{ "sleep", load_sleep_reg, true,
	  SLEEP_NAME " with sleepable register and unregister" },
	{ "noflag", load_noflag, true,
	  PVSCHED_BPF_NOFLAG_NAME ": boost without PVSCHED_OPS_BOOST, never boosts" },
	{ "sleep-notify", load_sleep_notify, true,
	  "sleepable notify_event: refused by the kernel" },
	{ "boost-unchecked", load_boost_unchecked, true,
	  "reads the area without a NULL test: refused by the kernel" },
	{ "boost-write", load_boost_write, true,
	  "writes the area's snapshot: refused by the kernel" },
	{ "scx", load_scx, true,
	  SCX_NAME ": a sched_ext scheduler of all tasks, not a driver" },
};

static int cmd_load(const char *which)
{
	size_t i;

	for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		if (!strcmp(which, drivers[i].which))
			return drivers[i].load();
	}
	fprintf(stderr, "pvsched-bpf: unknown driver '%s' (", which);
	for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		fprintf(stderr, "%s%s", i ? ", " : "", drivers[i].which);
	fprintf(stderr, ")\n");
	return -1;
}

/*
 * Detach bpf_pvsched_tpcount: remove the pins of its links, which hold the
 * last references to them unless another process has one, and remove its
 * maps' pins. The kernel drops a link's pin after an RCU grace period,
 * releases the link, which detaches its program, in a workqueue, and puts
 * the program a grace period later: wait up to a second for each program
 * to go, so that when this returns none runs or will run again.
 */
static int tpcount_unload(void)
{
	__u32 prog_ids[TPCOUNT_NR_TPS], len;
	struct bpf_link_info info;
	char path[PATH_MAX];
	int fd, tries, err = 0;
	size_t i, found = 0, n = 0;

	for (i = 0; i < TPCOUNT_NR_TPS; i++) {
		pin_path(path, sizeof(path), PVSCHED_BPF_TPCOUNT_NAME,
			 tpcount_tps[i]);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		found++;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			prog_ids[n++] = info.prog_id;
		close(fd);
		unlink(path);
	}
	if (!found) {
		pin_path(path, sizeof(path), PVSCHED_BPF_TPCOUNT_NAME, NULL);
		fprintf(stderr, "pvsched-bpf: %s: no links pinned (not loaded by pvsched-bpf?)\n",
			path);
		return -1;
	}

	for (i = 0; i < n; i++) {
		for (tries = 0; (fd = bpf_prog_get_fd_by_id(prog_ids[i])) >= 0;
		     tries++) {
			close(fd);
			if (tries == 100) {
				fprintf(stderr, "pvsched-bpf: program %u of %s still loaded after 1 s (held by another process?)\n",
					prog_ids[i], PVSCHED_BPF_TPCOUNT_NAME);
				err = -1;
				break;
			}
			usleep(10000);
		}
	}

	tpcount_unpin();
	pin_path(path, sizeof(path), PVSCHED_BPF_TPCOUNT_NAME, NULL);
	rmdir(path);
	if (!err)
		printf("detached %s\n", PVSCHED_BPF_TPCOUNT_NAME);
	return err;
}

static int cmd_unload(const char *name)
{
	char path[PATH_MAX];
	int fd, zero = 0;

	if (!strcmp(name, PVSCHED_BPF_TPCOUNT_NAME))
		return tpcount_unload();

	pin_path(path, sizeof(path), name, "ops");
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fprintf(stderr, "pvsched-bpf: %s: %s (not loaded by pvsched-bpf?)\n",
			path, strerror(errno));
		return -1;
	}
	if (bpf_map_delete_elem(fd, &zero)) {
		fprintf(stderr, "pvsched-bpf: unregistering %s: %s\n", name,
			strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	unlink(path);
	unpin(name, "counts");
	unpin(name, "slots");
	unpin(name, "results");
	pin_path(path, sizeof(path), name, NULL);
	rmdir(path);
	printf("unregistered %s\n", name);
	return 0;
}

/* The count maps of "stats" and "reset", see pvsched_bpf_count.h. */
static const struct {
	const char *name;
	const char *which;	/* its "load" argument */
	const char *slots;
	const char *hash;
} count_maps[] = {
	{ PVSCHED_BPF_COUNT_NAME, "count", PVSCHED_BPF_COUNT_SLOTS_MAP,
	  PVSCHED_BPF_COUNT_MAP },
	{ PVSCHED_BPF_TPCOUNT_NAME, "tpcount", PVSCHED_BPF_TPCOUNT_SLOTS_MAP,
	  PVSCHED_BPF_TPCOUNT_MAP },
};

static int map_open(const char *path, const char *which)
{
	int fd = bpf_obj_get(path);

	if (fd < 0)
		fprintf(stderr, "pvsched-bpf: %s: %s (run 'pvsched-bpf load %s')\n",
			path, strerror(errno), which);
	return fd;
}

/* Both count maps of @name; 0 or -1 with a message. */
static int counts_open(const char *name, int *slots_fd, int *hash_fd)
{
	size_t i, n = sizeof(count_maps) / sizeof(count_maps[0]);

	for (i = 0; i < n && strcmp(name, count_maps[i].name); i++)
		;
	if (i == n) {
		fprintf(stderr, "pvsched-bpf: no counts for '%s' (%s, %s)\n",
			name, PVSCHED_BPF_COUNT_NAME, PVSCHED_BPF_TPCOUNT_NAME);
		return -1;
	}
	*slots_fd = map_open(count_maps[i].slots, count_maps[i].which);
	if (*slots_fd < 0)
		return -1;
	*hash_fd = map_open(count_maps[i].hash, count_maps[i].which);
	if (*hash_fd < 0) {
		close(*slots_fd);
		return -1;
	}
	return 0;
}

struct task_counts {
	__u32 tid;
	struct pvsched_bpf_counts c;
};

static int task_cmp(const void *a, const void *b)
{
	const struct task_counts *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmd_stats(const char *name)
{
	static struct task_counts t[PVSCHED_BPF_COUNT_SLOTS +
				    PVSCHED_BPF_COUNT_MAX_TASKS];
	struct pvsched_bpf_slot slot;
	int slots_fd, hash_fd, n = 0, i;
	__u32 key, next, *prev = NULL;

	if (counts_open(name, &slots_fd, &hash_fd))
		return -1;
	for (key = 0; key < PVSCHED_BPF_COUNT_SLOTS; key++) {
		if (bpf_map_lookup_elem(slots_fd, &key, &slot)) {
			fprintf(stderr, "pvsched-bpf: reading slot %u: %s\n",
				key, strerror(errno));
			goto err;
		}
		if (slot.tid)
			t[n++] = (struct task_counts){ slot.tid, slot.counts };
	}
	while (n < (int)(sizeof(t) / sizeof(t[0])) &&
	       !bpf_map_get_next_key(hash_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(hash_fd, &key, &t[n].c))
			t[n++].tid = key;
	}
	qsort(t, n, sizeof(t[0]), task_cmp);
	for (i = 0; i < n; i++)
		printf("tid=%u register=%llu unregister=%llu vmenter=%llu vmexit=%llu halt=%llu intr_inj=%llu\n",
		       t[i].tid, t[i].c.reg, t[i].c.unreg, t[i].c.vmenter,
		       t[i].c.vmexit, t[i].c.halt, t[i].c.intr_inj);
	close(slots_fd);
	close(hash_fd);
	return 0;
err:
	close(slots_fd);
	close(hash_fd);
	return -1;
}

static int cmd_reset(const char *name)
{
	struct pvsched_bpf_slot zero = {};
	int slots_fd, hash_fd, err = 0;
	__u32 key;

	if (counts_open(name, &slots_fd, &hash_fd))
		return -1;
	for (key = 0; key < PVSCHED_BPF_COUNT_SLOTS; key++) {
		if (bpf_map_update_elem(slots_fd, &key, &zero, BPF_ANY)) {
			fprintf(stderr, "pvsched-bpf: clearing slot %u: %s\n",
				key, strerror(errno));
			err = -1;
			break;
		}
	}
	while (!err && !bpf_map_get_next_key(hash_fd, NULL, &key))
		bpf_map_delete_elem(hash_fd, &key);
	close(slots_fd);
	close(hash_fd);
	return err;
}

static void usage(FILE *f)
{
	size_t i;
	int test;

	fprintf(f,
		"usage: pvsched-bpf [-v] load DRIVER\n"
		"       pvsched-bpf [-v] unload NAME\n"
		"       pvsched-bpf stats [NAME]\n"
		"       pvsched-bpf reset [NAME]\n");
	for (test = 0; test < 2; test++) {
		fprintf(f, "%s\n", test ? "DRIVER, test-only variants:" :
					  "DRIVER:");
		for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
			if (drivers[i].test == test)
				fprintf(f, "  %-16s %s\n", drivers[i].which,
					drivers[i].what);
		}
	}
	fprintf(f, "NAME of stats and reset: %s (the default) or %s\n",
		PVSCHED_BPF_COUNT_NAME, PVSCHED_BPF_TPCOUNT_NAME);
	fprintf(f, "-v: libbpf's debug output too (the verifier's log of a refused load is always shown)\n");
}

int main(int argc, char **argv)
{
	int ret;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		argc--;
		argv++;
	}
	libbpf_set_print(libbpf_print);

	if (argc == 3 && !strcmp(argv[1], "load"))
		ret = cmd_load(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "unload"))
		ret = cmd_unload(argv[2]);
	else if ((argc == 2 || argc == 3) && !strcmp(argv[1], "stats"))
		ret = cmd_stats(argc == 3 ? argv[2] : PVSCHED_BPF_COUNT_NAME);
	else if ((argc == 2 || argc == 3) && !strcmp(argv[1], "reset"))
		ret = cmd_reset(argc == 3 ? argv[2] : PVSCHED_BPF_COUNT_NAME);
	else if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout), 0;
	else
		return usage(stderr), 2;

	return ret ? 1 : 0;
}
