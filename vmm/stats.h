/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driver callback counts per vCPU thread, from the two counting drivers:
 * the pvsched_count module (debugfs) and bpf_pvsched_count (pinned map).
 */
#ifndef MINIVMM_STATS_H
#define MINIVMM_STATS_H

#include <stdbool.h>
#include <sys/types.h>

#define PVSCHED_COUNT_NAME	"pvsched_count"
#define PVSCHED_COUNT_DIR	"/sys/kernel/debug/pvsched/pvsched_count"
#define PVSCHED_COUNT_STATS	PVSCHED_COUNT_DIR "/stats"
#define PVSCHED_COUNT_RESET	PVSCHED_COUNT_DIR "/reset"

enum stats_source {
	STATS_NONE,
	STATS_PVSCHED_COUNT,
	STATS_BPF,
};

struct pvsched_counts {
	unsigned long long reg;
	unsigned long long unreg;
	unsigned long long vmenter;
	unsigned long long vmexit;
	unsigned long long halt;
	unsigned long long intr_inj;
	unsigned long long wakeup;
	bool has_wakeup;		/* false: a driver without WAKEUP */
};

/* One vCPU thread: @tid is the input, the rest is filled in. */
struct tid_stats {
	pid_t tid;
	enum stats_source source;
	struct pvsched_counts counts;
};

const char *stats__source_name(enum stats_source source);
int stats__parse_line(const char *line, pid_t *tid, struct pvsched_counts *c);
int stats__read_count_file(const char *path, struct tid_stats *ts,
			   unsigned int n);
int stats__reset_count(const char *path);
int stats__read_bpf_map(const char *slots_path, const char *hash_path,
			struct tid_stats *ts, unsigned int n);

/*
 * Every thread of a pvsched_count stats file (e.g. PVSCHED_COUNT_STATS),
 * strictly, into ts[0..], in file order, each with source
 * STATS_PVSCHED_COUNT. Blank lines are ignored; a last line without its
 * newline is read like the others. Returns the number of threads,
 * -EBADMSG if a line is malformed or lacks a required key (see
 * stats__parse_line), -E2BIG if the file has more than @n threads, or
 * -errno if it cannot be opened or read. On error, ts[0..n-1] may have
 * been written to; nothing beyond ts[n-1] ever is.
 */
int stats__read_count_all(const char *path, struct tid_stats *ts,
			  unsigned int n);

/*
 * bpf_pvsched_count's maps by fd, for callers that keep them open (the
 * counts stay readable after the maps are unpinned and the driver is
 * unloaded). See kernel/bpf/pvsched_bpf_count.h for the layout.
 */

/*
 * Open the slots and hash maps pinned at @slots_path and @hash_path
 * (PVSCHED_BPF_COUNT_SLOTS_MAP, PVSCHED_BPF_COUNT_MAP) read-only, or
 * read-write if @writable (stats__reset_bpf needs that), and check that
 * they are the maps expected: a BPF_MAP_TYPE_ARRAY of
 * PVSCHED_BPF_COUNT_SLOTS struct pvsched_bpf_slot and a BPF_MAP_TYPE_HASH
 * of __u32 keys to struct pvsched_bpf_counts. Returns 0 with both fds in
 * *@slots_fd and *@hash_fd (the caller closes them), or -errno with both
 * set to -1 and nothing left open: -ENOENT if not pinned, -EPROTO if a map
 * is not the one expected.
 */
int stats__bpf_open(const char *slots_path, const char *hash_path,
		    bool writable, int *slots_fd, int *hash_fd);

/*
 * Every thread counted in the maps into ts[0..], each with source
 * STATS_BPF (has_wakeup false): the owned slots (tid != 0) in slot order,
 * then every hash map entry in the kernel's walk order. Returns the number
 * of threads, -E2BIG if there are more than @n, or -errno of a failed
 * bpf(2) call. On error, ts[0..n-1] may have been written to; nothing
 * beyond ts[n-1] ever is.
 */
int stats__read_bpf_all(int slots_fd, int hash_fd, struct tid_stats *ts,
			unsigned int n);

/*
 * Clear the counts as the loader's "reset" does: zero every slot (its
 * owner too) and delete every hash map entry. The fds must be writable
 * (stats__bpf_open(..., true, ...)). Returns 0 or -errno of the first
 * failed bpf(2) call.
 */
int stats__reset_bpf(int slots_fd, int hash_fd);

#endif /* MINIVMM_STATS_H */
