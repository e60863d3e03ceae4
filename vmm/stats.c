// SPDX-License-Identifier: GPL-2.0
/*
 * pvsched_count's debugfs stats: one line per vCPU task,
 *   tid=<tid> register=<n> unregister=<n> vmenter=<n> vmexit=<n> halt=<n>
 *   intr_inj=<n> wakeup=<n>
 * (all on one line). Keys may come in any order; unknown keys are ignored
 * so that the driver can grow new ones; each known key must be there once,
 * but an optional one, which older drivers lack, may be missing (wakeup:
 * kernels before the WAKEUP event have none). A duplicate is an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "util.h"

#define STATS_TID	((size_t)-1)
#define STATS_REQUIRED	((size_t)-1)
#define STATS_AT(field)	offsetof(struct pvsched_counts, field)

static const struct {
	const char *key;
	size_t offset;		/* in struct pvsched_counts, or STATS_TID */
	size_t has;		/* its bool if optional, or STATS_REQUIRED */
} stats_keys[] = {
	{ "tid",	STATS_TID,		STATS_REQUIRED },
	{ "register",	STATS_AT(reg),		STATS_REQUIRED },
	{ "unregister",	STATS_AT(unreg),	STATS_REQUIRED },
	{ "vmenter",	STATS_AT(vmenter),	STATS_REQUIRED },
	{ "vmexit",	STATS_AT(vmexit),	STATS_REQUIRED },
	{ "halt",	STATS_AT(halt),		STATS_REQUIRED },
	{ "intr_inj",	STATS_AT(intr_inj),	STATS_REQUIRED },
	{ "wakeup",	STATS_AT(wakeup),	STATS_AT(has_wakeup) },
};

#define STATS_NR_KEYS	ARRAY_SIZE(stats_keys)

const char *stats__source_name(enum stats_source source)
{
	switch (source) {
	case STATS_PVSCHED_COUNT:
		return "pvsched_count";
	case STATS_BPF:
		return "bpf_pvsched_count";
	default:
		return "-";
	}
}

static int stats__parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* One "key=value" token; *seen collects the known keys found so far. */
static int stats__parse_token(char *tok, unsigned long long *tid,
			      struct pvsched_counts *c, unsigned int *seen)
{
	char *eq = strchr(tok, '=');
	unsigned long long v;
	unsigned int i;

	if (!eq || eq == tok)
		return -EINVAL;
	*eq = '\0';
	if (stats__parse_u64(eq + 1, &v))
		return -EINVAL;
	for (i = 0; i < STATS_NR_KEYS; i++) {
		if (strcmp(tok, stats_keys[i].key))
			continue;
		if (*seen & (1U << i))
			return -EINVAL;
		*seen |= 1U << i;
		if (stats_keys[i].offset == STATS_TID)
			*tid = v;
		else
			*(unsigned long long *)((char *)c +
						stats_keys[i].offset) = v;
		if (stats_keys[i].has != STATS_REQUIRED)
			*(bool *)((char *)c + stats_keys[i].has) = true;
	}
	return 0;
}

/* The bits of the keys that every line must have. */
static unsigned int stats__required(void)
{
	unsigned int i, mask = 0;

	for (i = 0; i < STATS_NR_KEYS; i++) {
		if (stats_keys[i].has == STATS_REQUIRED)
			mask |= 1U << i;
	}
	return mask;
}

/*
 * Parse one stats line. Returns 0, -ENODATA for a blank line, -EINVAL for
 * anything malformed or incomplete.
 */
int stats__parse_line(const char *line, pid_t *tid, struct pvsched_counts *c)
{
	unsigned int seen = 0;
	unsigned long long t = 0;
	char buf[512], *tok, *save;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", line) >= sizeof(buf))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	for (tok = strtok_r(buf, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (stats__parse_token(tok, &t, c, &seen))
			return -EINVAL;
	}
	if (!seen)
		return -ENODATA;
	if ((seen & stats__required()) != stats__required() || !t ||
	    t > 0x7fffffff)
		return -EINVAL;
	*tid = t;
	return 0;
}

static struct tid_stats *stats__find(struct tid_stats *ts, unsigned int n,
				     pid_t tid)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ts[i].tid == tid)
			return &ts[i];
	}
	return NULL;
}

/*
 * Fill in the entries of @ts that have no source yet from a pvsched_count
 * stats file. Returns how many it filled, or a negative errno when the file
 * cannot be read. Malformed lines are skipped.
 */
int stats__read_count_file(const char *path, struct tid_stats *ts,
			   unsigned int n)
{
	struct pvsched_counts c;
	struct tid_stats *t;
	char line[512];
	int found = 0;
	pid_t tid;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (stats__parse_line(line, &tid, &c))
			continue;
		t = stats__find(ts, n, tid);
		if (!t || t->source != STATS_NONE)
			continue;
		t->source = STATS_PVSCHED_COUNT;
		t->counts = c;
		found++;
	}
	fclose(f);
	return found;
}

/*
 * Every line of a pvsched_count stats file, strictly: see stats.h. getline()
 * reads on until the end of the file, however many read()s that takes.
 */
int stats__read_count_all(const char *path, struct tid_stats *ts,
			  unsigned int n)
{
	struct pvsched_counts c;
	unsigned int nr = 0;
	size_t size = 0;
	char *line = NULL;
	ssize_t len;
	pid_t tid;
	int ret;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		errno = 0;
		len = getline(&line, &size, f);
		if (len < 0)
			break;
		if (strlen(line) != (size_t)len) {
			ret = -EBADMSG;		/* a NUL byte in the line */
			goto out;
		}
		ret = stats__parse_line(line, &tid, &c);
		if (ret == -ENODATA)
			continue;
		if (ret) {
			ret = -EBADMSG;
			goto out;
		}
		if (nr == n) {
			ret = -E2BIG;
			goto out;
		}
		ts[nr].tid = tid;
		ts[nr].source = STATS_PVSCHED_COUNT;
		ts[nr].counts = c;
		nr++;
	}
	/* getline() fails at the end of the file, on a read error or ENOMEM. */
	if (ferror(f) || !feof(f))
		ret = errno ? -errno : -EIO;
	else
		ret = (int)nr;
out:
	free(line);
	fclose(f);
	return ret;
}

/* pvsched_count clears all its counts on any write to its reset file. */
int stats__reset_count(const char *path)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1\n", 2) != 2)
		ret = -errno;
	close(fd);
	return ret;
}
