// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_count's counts, read from its pinned slots and hash maps with
 * raw bpf(2) calls: BPF_OBJ_GET, BPF_OBJ_GET_INFO_BY_FD and
 * BPF_MAP_LOOKUP_ELEM.
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

/* bpf(2)'s result (an fd, 0), or -errno. */
static int sys_bpf(int cmd, union bpf_attr *attr)
{
	long ret = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return ret < 0 ? -errno : ret;
}

static __u64 ptr_to_u64(const void *p)
{
	return (__u64)(unsigned long)p;
}

/* A read-only fd of the object pinned at @path, or -errno. */
static int bpf__obj_get(const char *path)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = ptr_to_u64(path);
	attr.file_flags = BPF_F_RDONLY;
	return sys_bpf(BPF_OBJ_GET, &attr);
}

/* Is it the map we expect: @type, __u32 keys, @value_size values? */
static int bpf__check_map(int fd, __u32 type, __u32 value_size,
			  __u32 max_entries)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	int ret;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = ptr_to_u64(&info);
	ret = sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
	if (ret)
		return ret;
	if (info.type != type || info.key_size != sizeof(__u32) ||
	    info.value_size != value_size ||
	    (max_entries && info.max_entries != max_entries))
		return -EPROTO;
	return 0;
}

/* 0, -ENOENT if @key has no entry, or another negative errno. */
static int bpf__lookup(int fd, const __u32 *key, void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = ptr_to_u64(key);
	attr.value = ptr_to_u64(value);
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
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
	t->counts.wakeup = 0;
	t->counts.has_wakeup = false;	/* bpf_pvsched_count has no WAKEUP */
}

/* The counts of @tid: its slot if it owns it, else its hash entry. */
static int bpf__read_tid(int slots_fd, int hash_fd, __u32 tid,
			 struct pvsched_bpf_counts *v)
{
	__u32 idx = pvsched_bpf_count_slot(tid);
	struct pvsched_bpf_slot slot;
	int ret;

	ret = bpf__lookup(slots_fd, &idx, &slot);
	if (ret)
		return ret;
	if (slot.tid == tid) {
		*v = slot.counts;
		return 0;
	}
	return bpf__lookup(hash_fd, &tid, v);
}

/*
 * Fill in the entries of @ts that have no source yet from the slots and
 * hash maps pinned at @slots_path and @hash_path (see pvsched_bpf_count.h).
 * Returns how many it filled, or a negative errno (-ENOENT: not pinned).
 */
int stats__read_bpf_map(const char *slots_path, const char *hash_path,
			struct tid_stats *ts, unsigned int n)
{
	struct pvsched_bpf_counts value;
	int slots_fd, hash_fd, ret, found = 0;
	unsigned int i;

	slots_fd = bpf__obj_get(slots_path);
	if (slots_fd < 0)
		return slots_fd;
	hash_fd = bpf__obj_get(hash_path);
	if (hash_fd < 0) {
		close(slots_fd);
		return hash_fd;
	}
	ret = bpf__check_map(slots_fd, BPF_MAP_TYPE_ARRAY,
			     sizeof(struct pvsched_bpf_slot),
			     PVSCHED_BPF_COUNT_SLOTS);
	if (!ret)
		ret = bpf__check_map(hash_fd, BPF_MAP_TYPE_HASH,
				     sizeof(struct pvsched_bpf_counts), 0);
	for (i = 0; !ret && i < n; i++) {
		if (ts[i].source != STATS_NONE)
			continue;
		ret = bpf__read_tid(slots_fd, hash_fd, (__u32)ts[i].tid,
				    &value);
		if (!ret) {
			bpf__fill(&ts[i], &value);
			found++;
		} else if (ret == -ENOENT) {
			ret = 0;	/* not counted (yet) */
		}
	}
	close(slots_fd);
	close(hash_fd);
	return ret ? ret : found;
}
