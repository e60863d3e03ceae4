#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series in kernel/patches/, produced rather than hand-kept.
#
#   series.sh write   (make series) write kernel/patches/ from the kernel
#                     tree that holds the series on top of the 'pristine'
#                     tag ($SERIES_TREE, default build/linux-dev if it
#                     exists, else build/linux): the patches with
#                     git format-patch, and the cover letter from
#                     kernel/cover-letter.txt, its cost and effect tables
#                     filled in from build/bench.json (make bench) and
#                     build/latency.json (make latency), followed by the
#                     shortlog and diffstat that git format-patch
#                     --cover-letter gives for the tree.
#   series.sh check   (make check) one TAP check: the committed cover
#                     letter's shortlog and diffstat are those of the
#                     series as make kernel applied it (build/linux).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
PATCHES=$ROOT/kernel/patches
COVER=$PATCHES/0000-cover-letter.patch

die() {
	echo "series: error: $*" >&2
	exit 1
}

# The shortlog and diffstat of git format-patch --cover-letter for $1:
# everything after its "*** BLURB HERE ***" line.
cover_tail() {
	local tree=$1 tmp

	tmp=$(mktemp -d)
	git -C "$tree" format-patch -q --cover-letter -o "$tmp" pristine..HEAD
	sed '1,/^\*\*\* BLURB HERE \*\*\*$/d' "$tmp/0000-cover-letter.patch" |
		sed '1{/^$/d}'
	rm -rf "$tmp"
}

# The committed cover letter's own tail: from its shortlog's first author
# line ("NAME (N):") on.
committed_tail() {
	sed -n '/^[A-Za-z].* ([0-9]*):$/,$p' "$COVER"
}

# Fill kernel/cover-letter.txt's @KEYS@ from the JSON results.
cover_body() {
	local nr=$1

	python3 - "$ROOT/kernel/cover-letter.txt" "$BUILD/bench.json" \
		"$BUILD/latency.json" "$nr" <<-'PY'
	import json, sys

	tmpl, bench_path, lat_path, nr = sys.argv[1:5]
	bench = json.load(open(bench_path))
	lat = json.load(open(lat_path))

	# make bench's cases, as the cover letter names them.
	COST = [("baseline", "unpatched 6.12"), ("none", "no driver"),
		("nop", "pvsched_nop, no area"), ("noparea", "pvsched_nop, area"),
		("count", "pvsched_count"), ("boost", "pvsched_boost (no flag)"),
		("bpfnop", "BPF, empty, no area"), ("bpf", "BPF, counting"),
		("bpfnoarea", "BPF, counting, no area"),
		("bpfboost", "BPF, boost (no flag)"),
		("tpcount", "BPF on KVM tracepoints,\n counting, no driver")]
	by = {}
	for r in bench["results"]:
	    by[(r["case"], r["payload"])] = r

	def cell(case, payload):
	    r = by[(case, payload)]
	    ns = "%.1f" % r["virtual_ns_per_exit"]
	    if case == "baseline":
	        return ns
	    return "%s %9s" % (ns, "(%+.2f%%)" % r["vs_baseline_pct"])

	cost = []
	for case, label in COST:
	    lines = label.split("\n")
	    cost += ["  " + l for l in lines[:-1]]
	    row = "  %-26s %-16s     %s" % (lines[-1], cell(case, "cpuid"),
	                                    cell(case, "io"))
	    cost.append(row.rstrip())

	# make latency's cases for the effect table.
	EFFECT = [("idle", "idle host, no driver"), ("hog", "CPU hogs, no driver"),
		  ("boost", "CPU hogs, pvsched_boost"),
		  ("boostirq", "  + PVSCHED_GUEST_BOOST_IRQ"),
		  ("static", "CPU hogs, vCPU SCHED_FIFO")]
	lby = {r["case"]: r for r in lat["results"]}
	eff = ["                                  p50       p99     p99.9 (us)"]
	for case, label in EFFECT:
	    l = lby[case]["latency"]
	    eff.append("  %-28s%7.1f %9.1f %9.1f" % (label, l["p50_ns"] / 1000,
	                                          l["p99_ns"] / 1000,
	                                          l["p999_ns"] / 1000))

	# make latency's Linux guest: cyclictest in it, RFC v1's experiment.
	L2 = [("l2idle", "idle host, no driver"), ("l2hog", "CPU hogs, no driver"),
	      ("l2boost", "CPU hogs, pvsched_boost"),
	      ("l2static", "CPU hogs, vCPU SCHED_FIFO"),
	      ("l2off", "  the guest half off")]
	V1_LINE = ("RFC v1 (Intel N4500, under stress-ng): vanilla 887 / 216835 us (avg /\n"
	           "max), dynamic boost in KVM 21 / 13978, static RT vCPU 25 / 1728.")
	if lat.get("linux"):
	    l2by = {r["case"]: r for r in lat["linux"]["results"]}
	    l2 = ["                                  avg       p99       max (us)"]
	    for case, label in L2:
	        l = l2by[case]["latency"]
	        l2.append("  %-28s%7.1f %9.0f %9.0f" % (label, l["mean_ns"] / 1000,
	                                             l["p99_ns"] / 1000,
	                                             l["max_ns"] / 1000))
	    l2_section = "\n".join([
	        "RFC v1's experiment, with a Linux guest whose driver (patch 33) asks for",
	        "the boost: cyclictest -m -p 90 -i 500 in a 1-vCPU guest of the same",
	        "kernel, the same hogs, %d wake-ups, the boost server's default" %
	        lat["linux"]["results"][0]["latency"]["samples"],
	        "bandwidth (2 ms of 4 ms):",
	        ""] + l2 + ["", V1_LINE])
	else:
	    l2_section = "\n".join([
	        "RFC v1's experiment itself, cyclictest in a Linux guest whose driver",
	        "(patch 33) asks for the boost, is make latency and the end of make",
	        "demo in the repository; its docs/benchmarks.md has the figures.",
	        "", V1_LINE])
	text = open(tmpl).read()
	keys = {
	    "@L2_SECTION@": l2_section,
	    "@NR@": nr,
	    "@COST_TABLE@": "\n".join(cost),
	    "@EFFECT_TABLE@": "\n".join(eff),
	    "@BENCH_ITERATIONS@": str(bench["iterations"]),
	    "@BENCH_REPS@": str(bench["reps"]),
	    "@LAT_SAMPLES@": str(lat["samples"] * lat["reps"]),
	    "@BOOST_HOGS_PCT@": "%.1f" % lby["boost"]["hog_share_pct"],
	    "@HOLD_HOGS_PCT@": "%.1f" % lby["hold"]["hog_share_pct"],
	}
	for k, v in keys.items():
	    if k not in text:
	        sys.exit("series: kernel/cover-letter.txt has no %s" % k)
	    text = text.replace(k, v)
	sys.stdout.write(text)
	PY
}

cmd_write() {
	local tree=${SERIES_TREE:-} tmp nr

	if [ -z "$tree" ]; then
		tree=$BUILD/linux
		[ ! -d "$BUILD/linux-dev/.git" ] && [ ! -f "$BUILD/linux-dev/.git" ] ||
			tree=$BUILD/linux-dev
	fi
	git -C "$tree" rev-parse -q --verify pristine >/dev/null ||
		die "$tree has no 'pristine' tag (SERIES_TREE: a tree with the series on it)"
	for f in bench.json latency.json; do
		[ -f "$BUILD/$f" ] ||
			die "build/$f missing: run make ${f%.json} first"
	done
	nr=$(git -C "$tree" rev-list --count pristine..HEAD)
	[ "$nr" -gt 0 ] || die "$tree has no commits on top of pristine"

	tmp=$(mktemp -d)
	git -C "$tree" format-patch -q -o "$tmp" pristine..HEAD
	{
		# The headers of the last patch, ours: the first may be a
		# backport under its upstream author.
		sed -n '1,/^Subject:/p' "$(ls "$tmp"/[0-9][0-9][0-9][0-9]-*.patch | tail -n 1)" |
			sed '$d' |
			sed '1s/^From [0-9a-f]*/From 0000000000000000000000000000000000000000/'
		cover_body "$nr"
		echo
		cover_tail "$tree"
	} > "$tmp/cover"
	rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
	mv "$tmp/cover" "$COVER"
	mv "$tmp"/[0-9][0-9][0-9][0-9]-*.patch "$PATCHES/"
	(cd "$PATCHES" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') \
		> "$PATCHES/series"
	rm -rf "$tmp"
	echo "series: wrote $nr patches and the cover letter to kernel/patches from $tree"
}

cmd_check() {
	local what="cover letter: shortlog and diffstat are those of the series (build/linux)"

	echo "1..1"
	if [ -d "$BUILD/linux/.git" ] &&
	   diff -u <(committed_tail) <(cover_tail "$BUILD/linux") > "$BUILD/series-cover.diff"; then
		echo "ok 1 $what"
	else
		echo "not ok 1 $what"
		sed 's/^/# /' "$BUILD/series-cover.diff" 2>/dev/null | head -20
	fi
}

case ${1:-} in
write)	cmd_write ;;
check)	cmd_check ;;
*)	echo "usage: $0 write | check" >&2; exit 2 ;;
esac
