// SPDX-License-Identifier: GPL-2.0
/*
 * pvexit STATUS: end a Linux guest's run under minivmm with STATUS, by a
 * 1-byte OUT to minivmm's debug-exit port (0x501). Needs port access:
 * ioperm(2), which a kernel has only with CONFIG_X86_IOPL_IOPERM; without
 * it pvexit says so and exits 2 (the guest's /init then reboots instead).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>

#define DEBUG_EXIT_PORT	0x501

int main(int argc, char *argv[])
{
	unsigned long status;
	char *end;

	if (argc != 2) {
		fprintf(stderr, "usage: pvexit STATUS (0..255)\n");
		return 1;
	}
	status = strtoul(argv[1], &end, 0);
	if (*end || !*argv[1] || status > 255) {
		fprintf(stderr, "pvexit: '%s' is not in 0..255\n", argv[1]);
		return 1;
	}
	if (ioperm(DEBUG_EXIT_PORT, 1, 1)) {
		fprintf(stderr, "pvexit: ioperm(0x%x): %s%s\n", DEBUG_EXIT_PORT,
			strerror(errno),
			errno == ENOSYS ? " (no CONFIG_X86_IOPL_IOPERM)" : "");
		return 2;
	}
	outb(status, DEBUG_EXIT_PORT);
	fprintf(stderr, "pvexit: the VMM did not end the run\n");
	return 3;
}
