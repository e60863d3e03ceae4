#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Look for kernel reports (WARNING, BUG, KASAN, UBSAN, lockdep, RCU stalls,
# lockups, panics: ci/kernel-report-patterns) in VM console logs. Only
# kernel log lines count, each from its printk timestamp on: the live
# console and the dmesg dump that ci/vm-run adds with -d (VMRUN_DMESG=1).
#
# Usage: ci/scan-console.sh LOG...
#
# Prints each offending kernel message once, as "LOG: MESSAGE". Exit
# status 1 if there is one, 2 if a log is missing or its dmesg dump does
# not reach back to the boot banner (the log buffer wrapped: a report may
# be lost), else 0.
set -euo pipefail

PATTERNS=$(cd "$(dirname "$0")" && pwd)/kernel-report-patterns

[ $# -gt 0 ] || { echo "usage: $0 LOG..." >&2; exit 2; }
status=0
for log in "$@"; do
	if [ ! -r "$log" ]; then
		echo "scan-console: $log: no such console log" >&2
		status=2
		continue
	fi
	# awk reads the whole log: grep -q in a pipe would stop early, and
	# pipefail would take its writer's SIGPIPE for a failure.
	if grep -qx '# ---- dmesg ----' "$log" &&
	   ! awk '/^# ---- dmesg ----$/ { d = 1; next }
		  d && /^# \[ *0\.0+\] Linux version / { found = 1 }
		  END { exit !found }' "$log"; then
		echo "scan-console: $log: the dmesg dump does not reach back to the boot banner (\"Linux version\" at 0.000000): the log buffer wrapped" >&2
		status=2
	fi
	if sed -n 's/^.*\[ *[0-9]*\.[0-9]*\] //p' "$log" |
	   grep -E -f <(grep -vE '^(#|$)' "$PATTERNS") |
	   awk -v f="$log" '!seen[$0]++ { print f ": " $0 }'; then
		[ $status -ne 0 ] || status=1
	fi
done
exit $status
