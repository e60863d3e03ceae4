// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched-bpf: load, unload and inspect the BPF pvsched drivers.
 *
 *   pvsched-bpf load DRIVER         register a driver; it stays registered
 *                                   after this program exits (DRIVER: see
 *                                   drivers[] or "pvsched-bpf -h")
 *   pvsched-bpf unload NAME         unregister it (delete its struct_ops map)
 *   pvsched-bpf stats               bpf_pvsched_count's per-task counts
 *   pvsched-bpf reset               clear bpf_pvsched_count's counts
 *
 * Besides the drivers, "load" knows the test suite's variants: sleep,
 * noflag, and sleep-notify, boost-unchecked and boost-write, which the
 * kernel refuses (their loads fail, printing the kernel's reason).
 *
 * A registered driver's struct_ops map is pinned at
 * /sys/fs/bpf/pvsched/NAME/ops, bpf_pvsched_count's count maps at
 * /sys/fs/bpf/pvsched/bpf_pvsched_count/{slots,counts}, and
 * bpf_pvsched_noflag's results map at
 * /sys/fs/bpf/pvsched/bpf_pvsched_noflag/results.
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
#include "pvsched_badarea.skel.h"
#include "pvsched_boost.skel.h"
#include "pvsched_count.skel.h"
#include "pvsched_noflag.skel.h"
#include "pvsched_nop.skel.h"
#include "pvsched_sample.skel.h"
#include "pvsched_sleep.skel.h"

#define SAMPLE_NAME	"bpf_pvsched_ops"
#define NOP_NAME	"bpf_pvsched_nop"
#define BOOST_NAME	"bpf_pvsched_boost"
#define SLEEP_NAME	"bpf_pvsched_sleep"
#define UNCHECKED_NAME	"bpf_pvsched_unchecked"
#define BADWRITE_NAME	"bpf_pvsched_badwrite"

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
			err == -ENOSPC ? " (too many pvsched drivers)" : "");
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
	{ "sleep", load_sleep_reg, true,
	  SLEEP_NAME " with sleepable register and unregister" },
	{ "noflag", load_noflag, true,
	  PVSCHED_BPF_NOFLAG_NAME ": boost without PVSCHED_OPS_BOOST, never boosts" },
	{ "sleep-notify", load_sleep_notify, true,
	  "sleepable notify_event: refused by the kernel" },
	{ "boost-unchecked", load_boost_unchecked, true,
	  "reads the area without a NULL test: refused by the kernel" },
	{ "boost-write", load_boost_write, true,
	  "writes the area's host_flags: refused by the kernel" },
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

static int cmd_unload(const char *name)
{
	char path[PATH_MAX];
	int fd, zero = 0;

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

static int map_open(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd < 0)
		fprintf(stderr, "pvsched-bpf: %s: %s (run 'pvsched-bpf load count')\n",
			path, strerror(errno));
	return fd;
}

/* Both count maps, see pvsched_bpf_count.h; 0 or -1 with a message. */
static int counts_open(int *slots_fd, int *hash_fd)
{
	*slots_fd = map_open(PVSCHED_BPF_COUNT_SLOTS_MAP);
	if (*slots_fd < 0)
		return -1;
	*hash_fd = map_open(PVSCHED_BPF_COUNT_MAP);
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

static int cmd_stats(void)
{
	static struct task_counts t[PVSCHED_BPF_COUNT_SLOTS +
				    PVSCHED_BPF_COUNT_MAX_TASKS];
	struct pvsched_bpf_slot slot;
	int slots_fd, hash_fd, n = 0, i;
	__u32 key, next, *prev = NULL;

	if (counts_open(&slots_fd, &hash_fd))
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

static int cmd_reset(void)
{
	struct pvsched_bpf_slot zero = {};
	int slots_fd, hash_fd, err = 0;
	__u32 key;

	if (counts_open(&slots_fd, &hash_fd))
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
		"       pvsched-bpf stats | reset\n");
	for (test = 0; test < 2; test++) {
		fprintf(f, "%s\n", test ? "DRIVER, test-only variants:" :
					  "DRIVER:");
		for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
			if (drivers[i].test == test)
				fprintf(f, "  %-16s %s\n", drivers[i].which,
					drivers[i].what);
		}
	}
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
	else if (argc == 2 && !strcmp(argv[1], "stats"))
		ret = cmd_stats();
	else if (argc == 2 && !strcmp(argv[1], "reset"))
		ret = cmd_reset();
	else if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout), 0;
	else
		return usage(stderr), 2;

	return ret ? 1 : 0;
}
