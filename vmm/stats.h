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

#endif /* MINIVMM_STATS_H */
