// SPDX-License-Identifier: GPL-2.0
/*
 * minivmm host-side unit tests: no /dev/kvm, no bpf(2).
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ioport.h"
#include "tap.h"

char tap_tmpdir[] = "/tmp/minivmm-test.XXXXXX";
static int tap_passed, tap_failed;

int tap_count(const char *haystack, const char *needle)
{
	int n = 0;

	while ((haystack = strstr(haystack, needle))) {
		haystack++;
		n++;
	}
	return n;
}

void tap_slurp(const char *name, char *buf, size_t len)
{
	char path[4200];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tap_tmpdir, name);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

unsigned int tap_in_port(struct ioport_bus *io, unsigned short port,
			 unsigned int size)
{
	__u8 d[4] = { 0x5a, 0x5a, 0x5a, 0x5a };
	unsigned int v = 0, i;

	ioport__emulate(io, 0, port, d, size, 1, false);
	for (i = 0; i < size; i++)
		v |= (unsigned int)d[i] << 8 * i;
	return v;
}

void tap_out_port(struct ioport_bus *io, unsigned short port,
		  unsigned int size, unsigned int v)
{
	__u8 d[4] = { v, v >> 8, v >> 16, v >> 24 };

	ioport__emulate(io, 0, port, d, size, 1, true);
}

void tap__ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		tap_passed++;
	else
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_passed + tap_failed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
}

void tap__diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Run from vmm/, whatever the caller's directory: tests use ../ paths. */
static int chdir_vmm(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	return chdir(dirname(dirname(exe)));
}

int main(void)
{
	char cmd[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (chdir_vmm()) {
		perror("chdir");
		return 2;
	}
	if (!mkdtemp(tap_tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_options();
	test_payload();
	test_stats();
	test_report();
	test_latency();
	test_kvm_ioctl();
	test_linux();
	test_serial();
	test_pci();
	test_fake();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tap_tmpdir);
	if (system(cmd))
		diag("could not remove %s", tap_tmpdir);
	printf("1..%d\n", tap_passed + tap_failed);
	printf("%d passed, %d failed\n", tap_passed, tap_failed);
	return tap_failed ? 1 : 0;
}
