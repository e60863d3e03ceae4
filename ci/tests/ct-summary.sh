#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo's summary of one cyclictest run in a Linux guest: reads the
# guest's console on stdin (its "CT-H us count" lines, the histogram's
# non-empty 1-us buckets; ci/tests/l2-latency.sh -s, l2-qemu.sh -s) and
# prints "min avg p50 p99 max" in us, or "FAILED (no samples)" with exit
# status 1.
# The buckets are zero-padded: busybox awk would read them as octal.
tr -d '\r' | sed -n 's/^CT-H 0*\([0-9][0-9]*\) 0*\([0-9][0-9]*\)$/\1 \2/p' |
	awk '{ us[NR] = $1; n[NR] = $2; total += $2; sum += $1 * $2 }
	     END {
		if (!total) { print "FAILED (no samples)"; exit 1 }
		for (i = 1; i <= NR; i++) {
			seen += n[i]
			if (!p50 && seen * 2 >= total) p50 = us[i]
			if (!p99 && seen * 100 >= total * 99) p99 = us[i]
		}
		printf "%d %.1f %d %d %d\n", us[1], sum / total, p50, p99, us[NR]
	     }'
