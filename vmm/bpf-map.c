// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_pvsched_count's counts, read from its pinned slots and hash maps with
 * raw bpf(2) calls: BPF_OBJ_GET, BPF_OBJ_GET_INFO_BY_FD,
 * BPF_MAP_LOOKUP_ELEM and BPF_MAP_GET_NEXT_KEY; and cleared with
 * BPF_MAP_UPDATE_ELEM and BPF_MAP_DELETE_ELEM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <stdbool.h>
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

/* An fd of the object pinned at @path, read-only unless @writable. */
static int bpf__obj_get(const char *path, bool writable)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = ptr_to_u64(path);
	attr.file_flags = writable ? 0 : BPF_F_RDONLY;
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

/* Set the value of @key, whether or not it has one: 0 or -errno. */
static int bpf__update(int fd, const __u32 *key, const void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = ptr_to_u64(key);
	attr.value = ptr_to_u64(value);
	attr.flags = BPF_ANY;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
}

/* 0, -ENOENT if @key has no entry, or another negative errno. */
static int bpf__delete(int fd, const __u32 *key)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = ptr_to_u64(key);
	return sys_bpf(BPF_MAP_DELETE_ELEM, &attr);
}

/*
 * The key after @key into *@next, the first key if @key is NULL (or has no
 * entry any more): 0, -ENOENT after the last key, or another negative errno.
 */
static int bpf__next_key(int fd, const __u32 *key, __u32 *next)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = ptr_to_u64(key);
	attr.next_key = ptr_to_u64(next);
	return sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr);
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

/* Open both maps and check them: see stats.h. */
int stats__bpf_open(const char *slots_path, const char *hash_path,
		    bool writable, int *slots_fd, int *hash_fd)
{
	int sfd, hfd, ret;

	*slots_fd = -1;
	*hash_fd = -1;
	sfd = bpf__obj_get(slots_path, writable);
	if (sfd < 0)
		return sfd;
	hfd = bpf__obj_get(hash_path, writable);
	if (hfd < 0) {
		close(sfd);
		return hfd;
	}
	ret = bpf__check_map(sfd, BPF_MAP_TYPE_ARRAY,
			     sizeof(struct pvsched_bpf_slot),
			     PVSCHED_BPF_COUNT_SLOTS);
	if (!ret)
		ret = bpf__check_map(hfd, BPF_MAP_TYPE_HASH,
				     sizeof(struct pvsched_bpf_counts), 0);
	if (ret) {
		close(sfd);
		close(hfd);
		return ret;
	}
	*slots_fd = sfd;
	*hash_fd = hfd;
	return 0;
}

/* Append thread @tid with counts @v to ts[0..n-1]: 0, or -E2BIG if full. */
static int bpf__add(struct tid_stats *ts, unsigned int n, unsigned int *nr,
		    __u32 tid, const struct pvsched_bpf_counts *v)
{
	if (*nr == n)
		return -E2BIG;
	ts[*nr].tid = (pid_t)tid;
	bpf__fill(&ts[*nr], v);
	(*nr)++;
	return 0;
}

/*
 * Every thread in the maps: see stats.h. The hash walk goes from each key
 * to the next; were a key deleted meanwhile (only a reset does that), the
 * kernel would start over from the first key, and the duplicates end it
 * with -E2BIG at worst.
 */
int stats__read_bpf_all(int slots_fd, int hash_fd, struct tid_stats *ts,
			unsigned int n)
{
	struct pvsched_bpf_counts value;
	struct pvsched_bpf_slot slot;
	const __u32 *prev = NULL;
	unsigned int nr = 0;
	__u32 key, next;
	int ret;

	for (key = 0; key < PVSCHED_BPF_COUNT_SLOTS; key++) {
		ret = bpf__lookup(slots_fd, &key, &slot);
		if (ret)
			return ret;
		if (!slot.tid)
			continue;	/* free */
		ret = bpf__add(ts, n, &nr, slot.tid, &slot.counts);
		if (ret)
			return ret;
	}
	while (!(ret = bpf__next_key(hash_fd, prev, &next))) {
		key = next;
		prev = &key;
		ret = bpf__lookup(hash_fd, &key, &value);
		if (ret)
			return ret;
		ret = bpf__add(ts, n, &nr, key, &value);
		if (ret)
			return ret;
	}
	return ret == -ENOENT ? (int)nr : ret;
}

/*
 * Zero every slot, delete every hash entry: see stats.h. Each delete is
 * followed by a walk from the start (key NULL), never from the deleted
 * key; an entry already gone (-ENOENT) is not an error.
 */
int stats__reset_bpf(int slots_fd, int hash_fd)
{
	struct pvsched_bpf_slot zero;
	__u32 key;
	int ret;

	memset(&zero, 0, sizeof(zero));
	for (key = 0; key < PVSCHED_BPF_COUNT_SLOTS; key++) {
		ret = bpf__update(slots_fd, &key, &zero);
		if (ret)
			return ret;
	}
	while (!(ret = bpf__next_key(hash_fd, NULL, &key))) {
		ret = bpf__delete(hash_fd, &key);
		if (ret && ret != -ENOENT)
			return ret;
	}
	return ret == -ENOENT ? 0 : ret;
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

	ret = stats__bpf_open(slots_path, hash_path, false, &slots_fd,
			      &hash_fd);
	if (ret)
		return ret;
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
