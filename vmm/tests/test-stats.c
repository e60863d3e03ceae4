// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "tap.h"

#define LINE "tid=1234 register=1 unregister=2 vmenter=300 vmexit=299 " \
	     "halt=7 intr_inj=8"

static bool counts_are(const struct pvsched_counts *c, unsigned long long r,
		       unsigned long long u, unsigned long long en,
		       unsigned long long ex, unsigned long long h,
		       unsigned long long i)
{
	return c->reg == r && c->unreg == u && c->vmenter == en &&
	       c->vmexit == ex && c->halt == h && c->intr_inj == i;
}

static void test_parse_line(void)
{
	struct pvsched_counts c;
	pid_t tid = 0;

	ok(!stats__parse_line(LINE, &tid, &c) && tid == 1234 &&
	   counts_are(&c, 1, 2, 300, 299, 7, 8), "a stats line");
	ok(!stats__parse_line(LINE "\n", &tid, &c), "with its newline");
	ok(!stats__parse_line("  intr_inj=8 halt=7\tvmexit=299 vmenter=300 "
			      "unregister=2 register=1 tid=99\n", &tid, &c) &&
	   tid == 99 && counts_are(&c, 1, 2, 300, 299, 7, 8),
	   "any key order and spacing");
	ok(!stats__parse_line(LINE " future=5", &tid, &c),
	   "unknown keys are ignored");
	ok(!stats__parse_line("tid=1 register=18446744073709551615 "
			      "unregister=0 vmenter=0 vmexit=0 halt=0 "
			      "intr_inj=0", &tid, &c) && c.reg == ~0ULL,
	   "2^64-1");
	ok(stats__parse_line("\n", &tid, &c) == -ENODATA, "blank line");
	ok(stats__parse_line("", &tid, &c) == -ENODATA, "empty line");
	ok(stats__parse_line("tid=1 register=1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5", &tid, &c) == -EINVAL,
	   "missing intr_inj");
	ok(stats__parse_line("register=1 unregister=2 vmenter=3 vmexit=4 "
			     "halt=5 intr_inj=6", &tid, &c) == -EINVAL,
	   "missing tid");
	ok(stats__parse_line(LINE " halt=9", &tid, &c) == -EINVAL,
	   "duplicate key");
	ok(stats__parse_line("tid=1 register=1 unregister=2 vmenter=3x "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "trailing garbage in a number");
	ok(stats__parse_line("tid=1 register=-1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "negative count");
	ok(stats__parse_line("tid=1 register=18446744073709551616 "
			     "unregister=2 vmenter=3 vmexit=4 halt=5 "
			     "intr_inj=6", &tid, &c) == -EINVAL, "overflow");
	ok(stats__parse_line("tid=0 register=1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "tid 0");
	ok(stats__parse_line("tid=1 register= unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 intr_inj=6", &tid, &c) ==
	   -EINVAL, "empty value");
	ok(stats__parse_line(LINE " =5", &tid, &c) == -EINVAL, "empty key");
	ok(stats__parse_line(LINE " junk", &tid, &c) == -EINVAL,
	   "token without '='");
}

/* The optional wakeup key: kernels before the WAKEUP event have none. */
static void test_parse_wakeup(void)
{
	struct pvsched_counts c;
	pid_t tid = 0;

	ok(!stats__parse_line(LINE " wakeup=3\n", &tid, &c) && tid == 1234 &&
	   counts_are(&c, 1, 2, 300, 299, 7, 8) && c.has_wakeup &&
	   c.wakeup == 3, "a stats line with wakeup");
	ok(!stats__parse_line(LINE, &tid, &c) && !c.has_wakeup && !c.wakeup,
	   "without wakeup (an older kernel): still parsed, wakeup unknown");
	ok(!stats__parse_line("wakeup=0 intr_inj=8 halt=7 vmexit=299 "
			      "vmenter=300 unregister=2 register=1 tid=99",
			      &tid, &c) && tid == 99 && c.has_wakeup &&
	   !c.wakeup && counts_are(&c, 1, 2, 300, 299, 7, 8),
	   "wakeup=0 first, any key order: known, 0");
	ok(!stats__parse_line(LINE " wakeup=18446744073709551615", &tid, &c) &&
	   c.has_wakeup && c.wakeup == ~0ULL, "wakeup 2^64-1");
	ok(!stats__parse_line(LINE " wakeup=4 future=5", &tid, &c) &&
	   c.has_wakeup && c.wakeup == 4, "wakeup, then an unknown key");
	ok(stats__parse_line(LINE " wakeup=3 wakeup=3", &tid, &c) == -EINVAL,
	   "duplicate wakeup");
	ok(stats__parse_line("wakeup=1 " LINE " wakeup=2", &tid, &c) == -EINVAL,
	   "duplicate wakeup, apart");
	ok(stats__parse_line(LINE " wakeup=", &tid, &c) == -EINVAL,
	   "wakeup without a value");
	ok(stats__parse_line(LINE " wakeup=-1", &tid, &c) == -EINVAL,
	   "negative wakeup");
	ok(stats__parse_line(LINE " wakeup=3x", &tid, &c) == -EINVAL,
	   "trailing garbage in wakeup");
	ok(stats__parse_line("tid=1 register=1 unregister=2 vmenter=3 "
			     "vmexit=4 halt=5 wakeup=6", &tid, &c) == -EINVAL,
	   "wakeup does not make up for a missing intr_inj");
	ok(stats__parse_line("wakeup=6", &tid, &c) == -EINVAL,
	   "wakeup alone");
}

static void test_read_file(void)
{
	struct tid_stats ts[3] = {
		{ .tid = 1234 }, { .tid = 55 }, { .tid = 77 },
	};
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats", tap_tmpdir);
	f = fopen(path, "w");
	fprintf(f, "tid=999 register=1 unregister=1 vmenter=1 vmexit=1 "
		"halt=1 intr_inj=1\n"
		"tid=55 broken\n"
		LINE "\n"
		"tid=55 register=1 unregister=0 vmenter=10 vmexit=10 "
		"halt=0 intr_inj=0\n");
	fclose(f);

	ts[2].source = STATS_BPF;
	ok(stats__read_count_file(path, ts, 3) == 2, "two vCPU tids found");
	ok(ts[0].source == STATS_PVSCHED_COUNT &&
	   counts_are(&ts[0].counts, 1, 2, 300, 299, 7, 8),
	   "counts of tid 1234");
	ok(ts[1].source == STATS_PVSCHED_COUNT && ts[1].counts.vmenter == 10,
	   "a malformed line is skipped, the good one used");
	ok(ts[2].source == STATS_BPF, "an entry with a source is kept");

	snprintf(path, sizeof(path), "%s/no-such-file", tap_tmpdir);
	ok(stats__read_count_file(path, ts, 3) == -ENOENT, "missing file");
}

/* A file with and without wakeup: each line says for its own thread. */
static void test_read_file_wakeup(void)
{
	struct tid_stats ts[3] = {
		{ .tid = 10 }, { .tid = 11 }, { .tid = 12 },
	};
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats-wakeup", tap_tmpdir);
	f = fopen(path, "w");
	fprintf(f, "tid=10 register=1 unregister=0 vmenter=9 vmexit=9 "
		"halt=3 intr_inj=4 wakeup=3\n"
		"tid=11 register=1 unregister=0 vmenter=9 vmexit=9 "
		"halt=3 intr_inj=4\n"
		"tid=12 register=1 unregister=0 vmenter=9 vmexit=9 "
		"halt=3 intr_inj=4 wakeup=1 wakeup=2\n");
	fclose(f);

	ok(stats__read_count_file(path, ts, 3) == 2,
	   "lines with and without wakeup read, the duplicate one skipped");
	ok(ts[0].source == STATS_PVSCHED_COUNT && ts[0].counts.has_wakeup &&
	   ts[0].counts.wakeup == 3 && ts[0].counts.intr_inj == 4,
	   "tid 10: wakeup 3");
	ok(ts[1].source == STATS_PVSCHED_COUNT && !ts[1].counts.has_wakeup &&
	   ts[1].counts.halt == 3, "tid 11: no wakeup key, wakeup unknown");
	ok(ts[2].source == STATS_NONE, "tid 12: duplicate wakeup, no counts");
}

static void test_reset(void)
{
	char path[4096], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/reset", tap_tmpdir);
	f = fopen(path, "w");
	fclose(f);
	ok(!stats__reset_count(path), "reset writes");
	f = fopen(path, "r");
	ok(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "1\n"),
	   "reset wrote \"1\\n\"");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/no-dir/reset", tap_tmpdir);
	ok(stats__reset_count(path) == -ENOENT, "no reset file");
	ok(!strcmp(stats__source_name(STATS_NONE), "-") &&
	   !strcmp(stats__source_name(STATS_PVSCHED_COUNT), "pvsched_count") &&
	   !strcmp(stats__source_name(STATS_BPF), "bpf_pvsched_count"),
	   "source names");
}

/* @name in the scratch directory, holding @len bytes of @text. */
static const char *write_tmp(const char *name, const char *text, size_t len)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tap_tmpdir, name);
	f = fopen(path, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
	return path;
}

#define WRITE_TMP(name, text)	write_tmp(name, text, sizeof(text) - 1)

/* stats__read_count_all: every line, strictly. */
static void test_read_count_all(void)
{
	struct tid_stats ts[4];
	const char *path;

	path = WRITE_TMP("all", "tid=10 register=1 unregister=0 vmenter=9 "
			 "vmexit=9 halt=3 intr_inj=4 wakeup=3\n"
			 LINE "\n"
			 "tid=12 register=2 unregister=1 vmenter=5 vmexit=5 "
			 "halt=0 intr_inj=6\n");
	memset(ts, 0, sizeof(ts));
	ok(stats__read_count_all(path, ts, 4) == 3, "all: three threads");
	ok(ts[0].tid == 10 && ts[0].source == STATS_PVSCHED_COUNT &&
	   counts_are(&ts[0].counts, 1, 0, 9, 9, 3, 4) &&
	   ts[0].counts.has_wakeup && ts[0].counts.wakeup == 3,
	   "all: tid 10 first, with wakeup 3");
	ok(ts[1].tid == 1234 && ts[1].source == STATS_PVSCHED_COUNT &&
	   counts_are(&ts[1].counts, 1, 2, 300, 299, 7, 8) &&
	   !ts[1].counts.has_wakeup, "all: tid 1234 second, no wakeup");
	ok(ts[2].tid == 12 && ts[2].source == STATS_PVSCHED_COUNT &&
	   counts_are(&ts[2].counts, 2, 1, 5, 5, 0, 6),
	   "all: tid 12 third");
	ok(stats__read_count_all(path, ts, 3) == 3,
	   "all: exactly n threads fit");

	path = WRITE_TMP("all-blank", "\n" LINE "\n\n  \t \n"
			 "tid=12 register=2 unregister=1 vmenter=5 vmexit=5 "
			 "halt=0 intr_inj=6\n\n");
	memset(ts, 0, sizeof(ts));
	ok(stats__read_count_all(path, ts, 4) == 2 && ts[0].tid == 1234 &&
	   ts[1].tid == 12, "all: blank lines ignored");
	path = WRITE_TMP("all-empty", "");
	ok(stats__read_count_all(path, ts, 4) == 0, "all: an empty file");
	path = WRITE_TMP("all-nonl", LINE "\ntid=12 register=2 "
			 "unregister=1 vmenter=5 vmexit=5 halt=0 intr_inj=6");
	memset(ts, 0, sizeof(ts));
	ok(stats__read_count_all(path, ts, 4) == 2 && ts[1].tid == 12 &&
	   ts[1].counts.intr_inj == 6,
	   "all: a last line without its newline is read");

	path = WRITE_TMP("all-malformed", LINE "\ntid=55 broken\n"
			 "tid=12 register=2 unregister=1 vmenter=5 vmexit=5 "
			 "halt=0 intr_inj=6\n");
	ok(stats__read_count_all(path, ts, 4) == -EBADMSG,
	   "all: a malformed line: -EBADMSG");
	path = WRITE_TMP("all-missing", LINE "\ntid=12 register=2 "
			 "unregister=1 vmenter=5 vmexit=5 halt=0\n");
	ok(stats__read_count_all(path, ts, 4) == -EBADMSG,
	   "all: a line without intr_inj: -EBADMSG");
	path = WRITE_TMP("all-dup", LINE " wakeup=1 wakeup=2\n");
	ok(stats__read_count_all(path, ts, 4) == -EBADMSG,
	   "all: a duplicate key: -EBADMSG");
	path = WRITE_TMP("all-nul", LINE "\0 junk\n");
	ok(stats__read_count_all(path, ts, 4) == -EBADMSG,
	   "all: a NUL byte in a line: -EBADMSG");

	path = WRITE_TMP("all-big", LINE "\n" LINE "\n" LINE "\n");
	memset(ts, 0, sizeof(ts));
	ts[2].tid = 42;
	ok(stats__read_count_all(path, ts, 2) == -E2BIG,
	   "all: three threads, room for two: -E2BIG");
	ok(ts[2].tid == 42 && ts[2].source == STATS_NONE,
	   "all: nothing written beyond ts[n - 1]");

	path = WRITE_TMP("all-missing-file", "");
	unlink(path);
	ok(stats__read_count_all(path, ts, 4) == -ENOENT,
	   "all: a missing file: -ENOENT");
}

/* A stats file much larger than one read(): every line is read. */
static void test_read_count_all_long(void)
{
	static struct tid_stats ts[512];
	char path[4096];
	unsigned int i;
	bool all = true;
	FILE *f;

	snprintf(path, sizeof(path), "%s/all-long", tap_tmpdir);
	f = fopen(path, "w");
	for (i = 0; i < 300; i++)
		fprintf(f, "tid=%u register=1 unregister=0 "
			"vmenter=%llu vmexit=%llu halt=%u intr_inj=%u "
			"wakeup=%u\n", 1000 + i, 100000000000ULL + i,
			100000000000ULL + i, i, 2 * i, i / 2);
	fclose(f);

	ok(stats__read_count_all(path, ts, 512) == 300,
	   "all: 300 lines (more than one read()): 300 threads");
	for (i = 0; i < 300; i++) {
		if (ts[i].tid != (pid_t)(1000 + i) ||
		    ts[i].source != STATS_PVSCHED_COUNT ||
		    !counts_are(&ts[i].counts, 1, 0, 100000000000ULL + i,
				100000000000ULL + i, i, 2 * i) ||
		    !ts[i].counts.has_wakeup || ts[i].counts.wakeup != i / 2) {
			diag("line %u: tid %d", i, (int)ts[i].tid);
			all = false;
			break;
		}
	}
	ok(all, "all: each of the 300 threads in order, counts right");
	ok(stats__read_count_all(path, ts, 299) == -E2BIG,
	   "all: 300 lines, room for 299: -E2BIG");
}

void test_stats(void)
{
	diag("stats");
	test_parse_line();
	test_parse_wakeup();
	test_read_file();
	test_read_file_wakeup();
	test_read_count_all();
	test_read_count_all_long();
	test_reset();
}
