/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MINIVMM_PAYLOAD_H
#define MINIVMM_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>

#define PAYLOAD_SYSTEM_DIR	"/usr/share/minivmm"
#define PAYLOAD_NR_DIRS		3
#define PAYLOAD_PATH_MAX	4096

/* Where a payload NAME is looked for, in order. */
struct payload_dirs {
	char dir[PAYLOAD_NR_DIRS][PAYLOAD_PATH_MAX];
};

struct payload_info {
	const char *name;
	bool irqchip;			/* needs the in-kernel irqchip */
	bool work_port;			/* one MINIVMM_WORK_PORT write each */
	bool timer;			/* gets params.timer_count (--period-us) */
	bool busy;			/* gets params.busy_loops */
	bool irq_flags;			/* gets params.flags (MINIVMM_IRQ_*) */
	bool latency;			/* samples, period_tsc, --boost */
	bool toggle;			/* --boost=hold, --touch */
	unsigned long long period_us;	/* default --period-us, with a timer */
	unsigned long long iterations;	/* default iteration count */
	unsigned long long progress_every;
};

const struct payload_info *payload__info(const char *name_or_path);
const char *payload__names(void);

void payload__dirs(const char *exe_path, struct payload_dirs *dirs);
int payload__resolve(const char *name, const struct payload_dirs *dirs,
		     char *path, size_t len);

size_t payload__max_size(unsigned int nr_vcpus);
int payload__load(const char *path, void *dst, size_t max, size_t *size,
		  char *err, size_t errlen);

#endif /* MINIVMM_PAYLOAD_H */
