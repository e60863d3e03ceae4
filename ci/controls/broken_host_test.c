// SPDX-License-Identifier: GPL-2.0
/*
 * broken_host_test - negative control of ci/check.sh: a host test that
 * plans three checks, passes two and crashes before the third, as a host
 * test binary that segfaults half-way does. make check must turn red for
 * its exit status and for the result missing from its plan.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>

int main(void)
{
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	printf("1..3\n");
	printf("ok 1 - control: a check that passes\n");
	printf("ok 2 - control: another check that passes\n");
	raise(SIGSEGV);
	printf("ok 3 - control: never printed\n");
	return 0;
}
