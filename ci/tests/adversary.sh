#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash # busybox sh: local is there
# The adversary suite (busybox sh, KTAP): guests and VMMs that try to take
# more than a boost gives, against a nice-0 task pinned on their CPU, the
# victim (/tests/victim). The promise under test: a boost changes when a
# vCPU runs, not how much, and no guest behaviour changes that.
#
# Each case runs the same VMs twice on CPU $CPU, minivmm pinned there with
# all its threads: without a driver (the control), then with the boosting
# driver. Meanwhile the victim, pinned on the same CPU at nice 0, spins
# for $WINDOW s and reports its longest wait and its share of the CPU
# (the shell's nice value, 0).
# For each case:
#
#   - the boosted VMs were boosted: every vCPU's area counts boosts and
#     time run boosted (boosted_ns), the control's none, so that a case
#     whose adversary never got a boost cannot pass;
#   - the victim's longest wait is at most the control's plus the boost
#     server's runtime (kernel.sched_boost_runtime_us) plus a tick;
#   - its share of the CPU is at least the control's less $SHARE_SLACK
#     points.
#
# The cases: a guest that holds its request; one that toggles it at every
# exit, every ~0.1 ms and every ~1 ms of its own time (the toggle payload:
# busy loops of 2 instructions, 1 ns each on -icount); 2 and 4 vCPUs of
# one VM; 2 VMs of one user; a boosted vCPU that halts with a large
# halt_poll_ns (the latency payload); a boosted vCPU whose thread runs in
# the host kernel, faulting in fresh guest memory (toggle --touch).
#
# Run it on instruction-count time (QEMU's -icount): the waits and shares
# are CPU time, which only virtual time measures exactly (ci/check.sh runs
# it in a VM of its own). Needs minivmm, jq, /tests/victim, taskset, and
# pvsched_boost.ko; bpf_pvsched_boost (pvsched-bpf) for the BPF case.
# shellcheck disable=SC2016 # the $ in jq filters are jq's

# shellcheck source=/dev/null
. /tests/ktap_helpers.sh

CPU=1
WINDOW=1		# s the victim measures
WARMUP=0.3		# s the VMs run before it starts
SHARE_SLACK=5		# percentage points of the victim's share
TICK_US=4000		# CONFIG_HZ=250
BOOST_KO=/lib/modules/pvsched_boost.ko
RUNTIME=/proc/sys/kernel/sched_boost_runtime_us
# The bound of a kernel from before the boost server (v3, patches 1-29 of
# 2026-12-05), to see this suite fail there: its longest boost.
OLD_MAX_US=/proc/sys/kernel/pvsched_boost_max_us
HALT_POLL=/sys/module/kvm/parameters/halt_poll_ns
HALT_POLL_NS=10000000	# 10 ms: every halt could poll for its whole wait
LOOPS_01MS=50000	# toggle: ~0.1 ms of guest time per half round
LOOPS_1MS=500000	# ~1 ms
OUT=/tmp/adversary

# The cases: name, then minivmm's options (one VM), or "2vms" and its
# options for each of two VMs.
CASES="hold|--payload=toggle --boost=hold --busy-loops=100000
toggle-every-exit|--payload=toggle --busy-loops=1
toggle-0.1ms|--payload=toggle --busy-loops=$LOOPS_01MS
toggle-1ms|--payload=toggle --busy-loops=$LOOPS_1MS
2-vcpus|--payload=toggle --boost=hold --busy-loops=100000 --vcpus=2
4-vcpus|--payload=toggle --boost=hold --busy-loops=100000 --vcpus=4
2-vms|2vms --payload=toggle --boost=hold --busy-loops=100000
halt-poll|--payload=latency --boost=hold --period-us=2000
host-kernel|--payload=toggle --boost=hold --touch=256 --busy-loops=16"
NR_CASES=9
CHECKS_PER_CASE=3

mkdir -p $OUT
runtime_us=$(cat $RUNTIME 2>/dev/null || cat $OLD_MAX_US 2>/dev/null)
nr_bpf=0
command -v pvsched-bpf >/dev/null && nr_bpf=1

ktap_print_header
ktap_set_plan $(( (NR_CASES + nr_bpf) * CHECKS_PER_CASE ))

if [ -z "$runtime_us" ]; then
	ktap_exit_fail_msg "no $RUNTIME: a kernel without the boost"
fi
if ! grep -qw pvsched_boost /proc/sys/kernel/pvsched_available_drivers &&
   ! insmod $BOOST_KO; then
	ktap_exit_fail_msg "cannot load $BOOST_KO"
fi
if [ "$nr_bpf" = 1 ] &&
   ! grep -qw bpf_pvsched_boost /proc/sys/kernel/pvsched_available_drivers &&
   ! pvsched-bpf load boost >/dev/null; then
	ktap_exit_fail_msg "pvsched-bpf load boost failed"
fi
echo "# boost runtime $runtime_us us; victim on CPU $CPU for $WINDOW s"

# vms TAG DRIVER OPTIONS...: the case's VMs, in the background, each
# reporting to $OUT/TAG.N.json; "2vms" first makes two.
vms() {
	local tag="$1" drv="$2" n i

	shift 2
	n=1
	if [ "$1" = 2vms ]; then
		n=2
		shift
	fi
	i=0
	while [ "$i" -lt "$n" ]; do
		# shellcheck disable=SC2068 # the options, one word each
		taskset -c "$CPU" minivmm --pvsched="$drv" $@ \
			--seconds="$SECONDS_RUN" --json \
			> "$OUT/$tag.$i.json" 2> "$OUT/$tag.$i.err" &
		i=$((i + 1))
	done
}

# measure TAG DRIVER OPTIONS...: the VMs, and the victim beside them;
# its line in $OUT/TAG.victim.
measure() {
	local tag="$1"

	vms "$@"
	sleep "$WARMUP"
	taskset -c "$CPU" /tests/victim "$WINDOW" > "$OUT/$tag.victim"
	wait
}

# field FILE KEY: KEY=VALUE of the victim's line.
field() {
	sed -n "s/.* $2=\([0-9.]*\).*/\1/p" "$1"
}

# boosted TAG WANT: does every vCPU of the TAG runs have boosts and
# boosted_ns (WANT=yes), or none of either (no)?
boosted() {
	for f in "$OUT/$1".*.json; do
		[ -s "$f" ] || return 1
		if [ "$2" = yes ]; then
			jq -e '.ok and (.vcpu | length) > 0 and
			       all(.vcpu[]; .pvsched_area.boosts > 0 and
					    .pvsched_area.boosted_ns > 0)' \
				"$f" >/dev/null || return 1
		else
			jq -e '.ok and (.vcpu | length) > 0 and
			       all(.vcpu[]; .pvsched_area.boosts == 0 and
					    .pvsched_area.boosted_ns == 0)' \
				"$f" >/dev/null || return 1
		fi
	done
}

diag_runs() {
	for f in "$OUT/$1".*; do
		echo "# $f:"
		jq -c '[.vcpu[] | {tid, count, area: .pvsched_area}]' "$f" \
			2>/dev/null | sed 's/^/#   /' ||
			sed 's/^/#   /' "$f"
	done
}

# run_case NAME DRIVER OPTIONS...: the control, the boosted run, three
# checks.
run_case() {
	local name="$1" drv="$2" c_wait a_wait c_share a_share limit

	shift 2
	SECONDS_RUN=$(echo "$WARMUP $WINDOW" | awk '{ print $1 + $2 + 0.5 }')
	rm -f $OUT/ctl.* $OUT/adv.*
	measure ctl "" "$@"
	measure adv "$drv" "$@"
	c_wait=$(field $OUT/ctl.victim max_wait_us)
	a_wait=$(field $OUT/adv.victim max_wait_us)
	c_share=$(field $OUT/ctl.victim share)
	a_share=$(field $OUT/adv.victim share)
	echo "# $name ($drv): control wait ${c_wait:-?} us share ${c_share:-?}%; boosted wait ${a_wait:-?} us share ${a_share:-?}%"

	if boosted ctl no && boosted adv yes; then
		ktap_test_pass "$name, $drv: the adversary was boosted, the control not"
	else
		diag_runs ctl
		diag_runs adv
		ktap_test_fail "$name, $drv: the adversary was boosted, the control not"
	fi
	limit=$(( ${c_wait:-0} + runtime_us + TICK_US ))
	if [ -n "$a_wait" ] && [ -n "$c_wait" ] &&
	   [ "$a_wait" -le "$limit" ]; then
		ktap_test_pass "$name, $drv: the victim's longest wait ${a_wait} us <= control ${c_wait} + runtime $runtime_us + tick $TICK_US"
	else
		ktap_test_fail "$name, $drv: the victim's longest wait ${a_wait:-?} us <= control ${c_wait:-?} + runtime $runtime_us + tick $TICK_US"
	fi
	if [ -n "$a_share" ] && [ -n "$c_share" ] &&
	   awk -v a="$a_share" -v c="$c_share" -v s=$SHARE_SLACK \
		'BEGIN { exit !(a + 0 >= c - s) }'; then
		ktap_test_pass "$name, $drv: the victim's share ${a_share}% >= control ${c_share}% - $SHARE_SLACK"
	else
		ktap_test_fail "$name, $drv: the victim's share ${a_share:-?}% >= control ${c_share:-?}% - $SHARE_SLACK"
	fi
}

old_poll=$(cat $HALT_POLL)
echo "$CASES" > $OUT/cases
# Not in a pipe: the KTAP counts live in this shell.
while IFS='|' read -r name opts; do
	[ -n "$name" ] || continue
	[ "$name" != halt-poll ] || echo $HALT_POLL_NS > $HALT_POLL
	# shellcheck disable=SC2086 # the options, one word each
	run_case "$name" pvsched_boost $opts
	echo "$old_poll" > $HALT_POLL
done < $OUT/cases
if [ "$nr_bpf" = 1 ]; then
	run_case hold bpf_pvsched_boost --payload=toggle --boost=hold \
		--busy-loops=100000
fi
ktap_finished
