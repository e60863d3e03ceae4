#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In-VM TAP tests of minivmm with the pvsched drivers (busybox sh).
# Needs pvsched_count loaded and pvsched-bpf on PATH.

n=0
fails=0
OUT=/tmp/minivmm.out

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n $1"
	sed 's/^/# /' "$OUT"
}

check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# Per-vCPU rows of minivmm's report: vcpu tid result count io mmio hlt
# other driver register unregister vmenter vmexit halt intr_inj run_s
# ns/iter.
rows() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 15' "$OUT"
}

counts_ok() {	# $1: nvcpus, $2: need halt/intr_inj (1/0), $3: driver
	[ "$(rows | wc -l)" -eq "$1" ] || return 1
	rows | awk -v h="$2" -v d="$3" '
		$3 != "done" || $9 != d || $10 != 1 || $12 == 0 ||
		$12 != $13 || (h && ($14 == 0 || $15 == 0)) { bad = 1 }
		END { exit bad }'
}

echo "TAP version 13"
echo "1..18"

minivmm --list-drivers > $OUT 2>&1
check "minivmm --list-drivers lists pvsched_nop" grep -qw pvsched_nop $OUT

minivmm --pvsched=pvsched_count --vcpus=2 --payload=halt --seconds=2 > $OUT 2>&1
check "halt payload with pvsched_count exits 0" [ $? -eq 0 ]
check "pvsched_count: register 1, vmenter == vmexit > 0, halt, intr_inj" \
	counts_ok 2 1 pvsched_count
check "final driver is pvsched_count" grep -q "final pvsched_count" $OUT

minivmm --pvsched=pvsched_count --vcpus=2 --payload=halt --seconds=2 \
	--switch=pvsched_nop@1 > $OUT 2>&1
check "--switch=pvsched_nop@1 exits 0" [ $? -eq 0 ]
check "--switch hands back the previous name" grep -q "previous pvsched_count" $OUT
check "--switch changes the final driver" grep -q "final pvsched_nop" $OUT
check "--switch: old driver saw register 1 and unregister 1 per vCPU" \
	sh -c "awk '\$1 ~ /^[0-9]+\$/ && NF >= 15 && (\$10 != 1 || \$11 != 1 || \$12 != \$13) { bad = 1 } END { exit bad }' $OUT"

minivmm --pvsched=no_such_driver --payload=io --iterations=10 > $OUT 2>&1
rc=$?
check "unknown driver fails with status 3" [ $rc -eq 3 ]
check "unknown driver error lists the available drivers" \
	grep -q "available: .*pvsched_nop" $OUT

minivmm --vcpus=zero > $OUT 2>&1
check "bad option value is a usage error (status 1)" [ $? -eq 1 ]

minivmm --pvsched= --payload=io --iterations=1000 > $OUT 2>&1
check "io payload without a driver exits 0" [ $? -eq 0 ]

minivmm --pvsched=pvsched_nop --payload=cpuid --iterations=10000 > $OUT 2>&1
check "cpuid payload with pvsched_nop exits 0" [ $? -eq 0 ]

minivmm --no-pvsched --payload=cpuid --iterations=10000 > $OUT 2>&1
check "--no-pvsched: cpuid payload exits 0" [ $? -eq 0 ]
check "--no-pvsched: report says pvsched was not used" \
	grep -q "^driver: pvsched not used" $OUT

if pvsched-bpf load count > /dev/null 2>&1 || grep -qw bpf_pvsched_count /proc/sys/kernel/pvsched_available_drivers; then
	minivmm --pvsched=bpf_pvsched_count --vcpus=2 --payload=halt --seconds=2 > $OUT 2>&1
	check "halt payload with bpf_pvsched_count exits 0" [ $? -eq 0 ]
	check "bpf_pvsched_count: register 1, vmenter == vmexit > 0, halt, intr_inj" \
		counts_ok 2 1 bpf_pvsched_count
	pvsched-bpf unload bpf_pvsched_count > $OUT 2>&1
	check "bpf_pvsched_count unloads" [ $? -eq 0 ]
else
	n=$((n + 1)); echo "not ok $n bpf_pvsched_count loads"; fails=$((fails + 1))
	n=$((n + 1)); echo "ok $n # SKIP bpf_pvsched_count counts"
	n=$((n + 1)); echo "ok $n # SKIP bpf_pvsched_count unload"
fi

[ $fails -eq 0 ]
