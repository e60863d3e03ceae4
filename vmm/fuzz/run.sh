#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz/run.sh fuzz SECONDS TARGET...   fuzz each target for SECONDS
# fuzz/run.sh check SECONDS TARGET...  each target over its corpus, then
#                                      SECONDS of fuzzing; TAP
#
# TARGET is io, linux or options: fuzz/fuzz_TARGET, its committed corpus
# fuzz/corpus/TARGET/ (read only: new inputs go to fuzz/work/TARGET/),
# crashes to fuzz/artifacts/TARGET/. A crash or a broken invariant is a
# failure: one line naming the target, the input and what went wrong.
# Run from vmm/ (make fuzz, make fuzz-check).

set -u
cd "$(dirname "$0")/.." || exit 2

mode=${1:-}
secs=${2:-}
shift 2 || { echo "usage: $0 fuzz|check SECONDS TARGET..." >&2; exit 2; }
case $mode in fuzz|check) ;; *) echo "usage: $0 fuzz|check SECONDS TARGET..." >&2; exit 2 ;; esac

declare -A max_len=([io]=2048 [linux]=16384 [options]=512)
n=0 failed=0

# tap OK|"not ok" TEXT: one result (check), or a line (fuzz).
result() {
	n=$((n + 1))
	if [ "$mode" = check ]; then
		echo "$1 $n - $2"
	else
		echo "==> [fuzz] $2"
	fi
	[ "$1" = ok ] || failed=$((failed + 1))
}

# why LOG: the one line that says what went wrong.
why() {
	local line

	line=$(grep -m 1 -E '^fuzz: invariant|ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:' "$1")
	echo "${line:-$(grep -v '^#\|^INFO\|^Running\|^Executed' "$1" | tail -n 1)}"
}

# progress LOG: libFuzzer's status lines, one at most every 15 s (TAP
# comments in check mode).
progress() {
	local last=-15 line pfx='    '

	[ "$mode" = check ] && pfx='# '

	while IFS= read -r line; do
		printf '%s\n' "$line" >> "$1"
		case $line in
		*INITED*|*DONE*|*'==ERROR'*|'fuzz: invariant'*|*'runtime error'*)
			echo "$pfx$line"; last=$SECONDS ;;
		'#'*exec/s*)
			if [ $((SECONDS - last)) -ge 15 ]; then
				echo "$pfx$line"
				last=$SECONDS
			fi ;;
		esac
	done
}

[ "$mode" = check ] && echo "1..$(($# * 2))"
for t in "$@"; do
	bin=fuzz/fuzz_$t corpus=fuzz/corpus/$t
	work=fuzz/work/$t art=fuzz/artifacts/$t
	mkdir -p "$work" "$art"
	log=$(mktemp)

	# The corpus, one input at a time: the failure names its input.
	bad=
	for f in "$corpus"/*; do
		[ -f "$f" ] || continue
		if ! "$bin" -runs=1 -timeout=10 "$f" > "$log" 2>&1; then
			bad=$f
			break
		fi
	done
	count=$(find "$corpus" -type f | wc -l)
	if [ -n "$bad" ]; then
		result "not ok" "fuzz_$t: corpus input $bad: $(why "$log")"
	else
		result ok "fuzz_$t: $count corpus inputs"
	fi

	: > "$log"
	[ "$mode" = fuzz ] && echo "==> [fuzz] fuzz_$t for $secs s"
	"$bin" -max_total_time="$secs" -max_len="${max_len[$t]}" \
		-timeout=10 -print_final_stats=1 -artifact_prefix="$art/" \
		"$work" "$corpus" 2>&1 | progress "$log"
	rc=${PIPESTATUS[0]}
	done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$done_line")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$done_line")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<< "$done_line")
	if [ "$rc" -eq 0 ] && [ -n "$done_line" ]; then
		result ok "fuzz_$t: $secs s, ${runs:-?} runs, ${eps:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, peak RSS ${rss:-?} MB, nothing found"
	else
		crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		result "not ok" "fuzz_$t: input ${crash:-(none saved)}: $(why "$log")"
	fi
	rm -f "$log"
done

if [ "$mode" = check ]; then
	echo "$((n - failed)) passed, $failed failed"
fi
[ "$failed" -eq 0 ]
