#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make latency's Linux guest, in the VM: minivmm boots the Linux guest of
# /tests/linux (one vCPU) with l2run=cyclictest or l2run=hackbench
# (vmm/tests/linux-guest/scripts/), HOGS busy loops (/tests/hog) beside
# its vCPU thread from the guest's "CT-START" to its "CT-STATUS" (the end
# of cyclictest), so that their rate is that of the measurement.
#
#   l2-latency.sh [-H HOGS] [-w SECS] [-a APPEND] [-t SECS] [-s] -- MINIVMM_OPTION...
#
# -H HOGS   busy loops, nice 0 (0)
# -w SECS   how long cyclictest runs, about: the end is looked for only
#           after that (0), so that looking does not load the CPU before
# -a APPEND more guest kernel command line (e.g. "ct.loops=2000" or
#           "l2run=hackbench hb.runs=3"; l2run=cyclictest ct.delay=0.5 by
#           default)
# -t SECS   the run's limit (600): minivmm is stopped after it
# -s        a summary line only (make demo): "min avg p50 p99 max" in us
#           of the histogram (ct-summary.sh, beside this), or "FAILED ..."
#
# Prints the guest's CT-/HB- lines (their CRs stripped), each hog's
# "hog: ... rate=R" line, "L2-JSON <minivmm's report>" and last
# "L2-STATUS rc" (minivmm's exit status). Exit status: minivmm's.
KERNEL=${L2_KERNEL:-/tests/linux/bzImage}
INITRD=${L2_INITRD:-/tests/linux/initrd.cpio}
HOGS=0
WAIT=0
APPEND=
TIMEOUT=600
SUMMARY=
while getopts H:w:a:t:s opt; do
	case $opt in
	H) HOGS=$OPTARG ;;
	w) WAIT=$OPTARG ;;
	a) APPEND=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	s) SUMMARY=1 ;;
	*) echo "usage: $0 [-H HOGS] [-w SECS] [-a APPEND] [-t SECS] [-s] -- MINIVMM_OPTION..." >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
OUT=/tmp/l2-latency.out
CON=/tmp/l2-latency.con

timeout "$TIMEOUT" minivmm --kernel="$KERNEL" --initrd="$INITRD" --vcpus=1 \
	--json --append="console=ttyS0 quiet panic=-1 l2run=cyclictest ct.delay=0.5 $APPEND" \
	"$@" < /dev/null > "$OUT" 2> "$CON" &
vmm=$!
hogpids=
if [ "$HOGS" -gt 0 ]; then
	# The hogs start when the guest is about to measure: its boot runs
	# alone, so that the hogs' rate is that of the measurement.
	while kill -0 "$vmm" 2> /dev/null && ! grep -q '^CT-START' "$CON"; do
		sleep 0.05
	done
	i=0
	while [ "$i" -lt "$HOGS" ]; do
		/tests/hog > "/tmp/l2-hog.$i" &
		hogpids="$hogpids $!"
		i=$((i + 1))
	done
	sleep "$WAIT"
	while kill -0 "$vmm" 2> /dev/null && ! grep -q '^CT-STATUS' "$CON"; do
		sleep 0.01
	done
	# shellcheck disable=SC2086 # a list of pids
	kill $hogpids
	# shellcheck disable=SC2086
	wait $hogpids
fi
wait "$vmm"
rc=$?

if [ -n "$SUMMARY" ]; then
	rm -f /tmp/l2-hog.*
	if [ "$rc" != 0 ] || ! grep -q '^CT-STATUS 0' "$CON"; then
		echo "FAILED (minivmm status $rc; see $CON)"
		exit "$rc"
	fi
	"$(dirname "$0")/ct-summary.sh" < "$CON"
	exit "$rc"
fi
tr -d '\r' < "$CON" | grep -E '^(CT|HB)-'
cat /tmp/l2-hog.* 2> /dev/null
rm -f /tmp/l2-hog.*
echo "L2-JSON $(cat "$OUT")"
echo "L2-STATUS $rc"
exit "$rc"
