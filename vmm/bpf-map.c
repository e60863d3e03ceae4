// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_count's counts, read from its pinned hash map with raw bpf(2)
 * calls: BPF_OBJ_GET, BPF_MAP_GET_NEXT_KEY and BPF_MAP_LOOKUP_ELEM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kernel/bpf/pvsched_bpf_count.h"
#include "stats.h"

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static __u64 ptr_to_u64(const void *p)
{
	return (__u64)(unsigned long)p;
}

static int bpf__obj_get(const char *path)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = ptr_to_u64(path);
	attr.file_flags = BPF_F_RDONLY;
	return sys_bpf(BPF_OBJ_GET, &attr);
}

/* Is it the map we expect: __u32 keys, struct pvsched_bpf_counts values? */
static int bpf__check_map(int fd)
{
	struct bpf_map_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = ptr_to_u64(&info);
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
		return -errno;
	if (info.type != BPF_MAP_TYPE_HASH || info.key_size != sizeof(__u32) ||
	    info.value_size != sizeof(struct pvsched_bpf_counts))
		return -EPROTO;
	return 0;
}

/* @key NULL: the first key. Returns -ENOENT after the last key. */
static int bpf__next_key(int fd, const __u32 *key, __u32 *next)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = ptr_to_u64(key);
	attr.next_key = ptr_to_u64(next);
	return sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr) ? -errno : 0;
}

static int bpf__lookup(int fd, const __u32 *key,
		       struct pvsched_bpf_counts *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = ptr_to_u64(key);
	attr.value = ptr_to_u64(value);
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) ? -errno : 0;
}

static void bpf__fill(struct tid_stats *t, const struct pvsched_bpf_counts *v)
{
	t->source = STATS_BPF;
	t->counts.reg = v->reg;
	t->counts.unreg = v->unreg;
	t->counts.vmenter = v->vmenter;
	t->counts.vmexit = v->vmexit;
	t->counts.halt = v->halt;
	t->counts.intr_inj = v->intr_inj;
}

/*
 * Walk the map and fill in the entries of @ts that have no source yet.
 * Returns how many it filled, or a negative errno (-ENOENT: not pinned).
 */
int stats__read_bpf_map(const char *pin_path, struct tid_stats *ts,
			unsigned int n)
{
	struct pvsched_bpf_counts value;
	__u32 key, next;
	int fd, ret, found = 0;
	unsigned int i, walked;

	fd = bpf__obj_get(pin_path);
	if (fd < 0)
		return -errno;
	ret = bpf__check_map(fd);
	/* Bounded: a concurrent delete can restart the walk. */
	for (walked = 0; !ret && walked < 4 * PVSCHED_BPF_COUNT_MAX_TASKS;
	     walked++) {
		ret = bpf__next_key(fd, walked ? &key : NULL, &next);
		if (ret)
			break;
		key = next;
		for (i = 0; i < n; i++) {
			if ((__u32)ts[i].tid != key ||
			    ts[i].source != STATS_NONE)
				continue;
			if (!bpf__lookup(fd, &key, &value)) {
				bpf__fill(&ts[i], &value);
				found++;
			}
		}
	}
	close(fd);
	return ret && ret != -ENOENT ? ret : found;
}
