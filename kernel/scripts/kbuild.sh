#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the pvsched kernel: extract Debian's linux-source-6.12 into build/,
# apply kernel/patches with git am, merge kernel/config fragments onto
# tinyconfig and build. Every stage is incremental.
#
# Usage:
#   kernel/scripts/kbuild.sh tree                 extract + apply the series
#   kernel/scripts/kbuild.sh build VARIANT        configure + build a variant
#   kernel/scripts/kbuild.sh worktree NAME        build/NAME: pristine worktree
#   kernel/scripts/kbuild.sh series               list the series' patch files
#   kernel/scripts/kbuild.sh selftest OUT         the series' KVM selftest,
#                                                 static, from build/linux
#
# Variants:
#   main      kernel/config/*.config                  -> build/bzImage ...
#   debug     main + kernel/config/debug/*.config     -> build/debug/...
#   guest     main + kernel/config/guest/*.config     -> build/guest/...
#   base      main config on build/linux-base         -> build/base/...
#   bisect    main config, whatever build/linux has checked out (series-check)
#   nohost    main, PARAVIRT_SCHED_HOST=n             (series-check)
#   nokvm     main, PARAVIRT_SCHED_KVM=n              (series-check)
#   kvmm      main, KVM=m                             (series-check)
#   rtgroup   main, RT_GROUP_SCHED=y                  (series-check)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
SRC=$BUILD/linux
TARBALL=/usr/src/linux-source-6.12.tar.xz
PATCHES=$ROOT/kernel/patches
CONFIGS=$ROOT/kernel/config
JOBS=${JOBS:-$(nproc)}

export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'
export KBUILD_BUILD_USER=pvsched
export KBUILD_BUILD_HOST=pvsched

stage() { echo "==> [kernel${VARIANT:+:$VARIANT}] $*"; }
die() { echo "kbuild: error: $*" >&2; exit 1; }

series_files() {
	local p

	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$PATCHES/$p" ] || die "series names missing patch $p"
		echo "$PATCHES/$p"
	done < "$PATCHES/series"
}

series_hash() {
	cat "$PATCHES/series" $(series_files) | sha256sum | cut -d' ' -f1
}

git_src() {
	git -C "$SRC" -c user.name=pvsched -c user.email=pvsched@localhost \
		-c commit.gpgsign=false "$@"
}

# Extract the pristine tree once and record it as the 'pristine' tag.
tree_extract() {
	[ -f "$TARBALL" ] || die "$TARBALL missing (package linux-source-6.12)"
	if [ -d "$SRC/.git" ] && git_src rev-parse -q --verify pristine >/dev/null; then
		return
	fi
	stage "extracting $(basename "$TARBALL")"
	rm -rf "$SRC" "$BUILD/linux-source-6.12"
	mkdir -p "$BUILD"
	tar -C "$BUILD" -xf "$TARBALL"
	mv "$BUILD/linux-source-6.12" "$SRC"
	git_src init -q
	git_src add -f -A
	git_src commit -q -m "pristine $(basename "$TARBALL")"
	git_src tag pristine
}

# (Re)apply the series when any patch changed.
tree_apply() {
	local want have

	want=$(series_hash)
	have=$(cat "$SRC/.git/pvsched-series" 2>/dev/null || true)
	if [ "$want $(git_src rev-parse HEAD)" = "$have" ] &&
	   [ -z "$(git_src status --porcelain)" ]; then
		stage "series up to date ($(git_src rev-list --count pristine..HEAD) patches)"
		return
	fi
	stage "applying series with git am"
	git_src am --abort >/dev/null 2>&1 || true
	git_src reset -q --hard pristine
	git_src clean -qfdx
	local files

	files=$(series_files)
	if [ -n "$files" ]; then
		# shellcheck disable=SC2086
		git_src am -q $files || die "git am failed"
	fi
	echo "$want $(git_src rev-parse HEAD)" > "$SRC/.git/pvsched-series"
}

# variant_setup VARIANT: sets OBJ, OUT, SRCDIR and EXTRA config lines.
variant_setup() {
	SRCDIR=$SRC
	OBJ=$BUILD/obj/$1
	OUT=$BUILD/$1
	EXTRA=()
	FRAGS=("$CONFIGS"/*.config)
	case "$1" in
	main)	OUT=$BUILD ;;
	debug)	FRAGS+=("$CONFIGS"/debug/*.config) ;;
	guest)	FRAGS+=("$CONFIGS"/guest/*.config) ;;
	base)	SRCDIR=$BUILD/linux-base ;;
	nohost)	EXTRA=("# CONFIG_PARAVIRT_SCHED_HOST is not set") ;;
	nokvm)	EXTRA=("# CONFIG_PARAVIRT_SCHED_KVM is not set") ;;
	kvmm)	EXTRA=("CONFIG_KVM=m" "CONFIG_KVM_AMD=m" "CONFIG_KVM_INTEL=m") ;;
	rtgroup) EXTRA=("CONFIG_RT_GROUP_SCHED=y") ;;
	bisect)	;;
	*)	die "unknown variant $1" ;;
	esac
}

# A worktree of the source repository at the pristine tag.
cmd_worktree() {
	local dir=$BUILD/$1

	if [ ! -d "$dir" ]; then
		stage "creating worktree $1 at pristine"
		git_src worktree prune
		git_src worktree add -q --detach "$dir" pristine
	fi
	git -C "$dir" am --abort >/dev/null 2>&1 || true
	git -C "$dir" checkout -q --detach pristine
}

config_make() {
	local frag tmp want line sym

	mkdir -p "$OBJ"
	tmp=$OBJ/pvsched-fragment.config
	cat "${FRAGS[@]}" > "$tmp"
	printf '%s\n' "${EXTRA[@]}" >> "$tmp"
	want=$( (cat "$tmp"; git -C "$SRCDIR" rev-parse HEAD) | sha256sum)
	if [ -f "$OBJ/.config" ] && [ "$want" = "$(cat "$OBJ/.pvsched-config" 2>/dev/null)" ]; then
		return
	fi
	stage "configuring: tinyconfig + $(cd "$CONFIGS" && echo "${FRAGS[@]#$CONFIGS/}") ${EXTRA[*]}"
	make -s -C "$SRCDIR" O="$OBJ" ARCH=x86_64 tinyconfig >/dev/null
	(cd "$SRCDIR" && KCONFIG_CONFIG=$OBJ/.config \
		scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" "$tmp" >/dev/null)
	make -s -C "$SRCDIR" O="$OBJ" ARCH=x86_64 olddefconfig >/dev/null

	# Every requested option must survive olddefconfig; a later line
	# for the same symbol overrides an earlier one.
	local bad=() order=()
	local -A req=()
	while read -r line; do
		case "$line" in
		CONFIG_*=*)	sym=${line%%=*} ;;
		'# CONFIG_'*' is not set')
			sym=${line#\# }; sym=${sym%% *} ;;
		*)	continue ;;
		esac
		[ -n "${req[$sym]+x}" ] || order+=("$sym")
		req[$sym]=$line
	done < "$tmp"
	for sym in "${order[@]}"; do
		line=${req[$sym]}
		case "$line" in
		CONFIG_*=*)
			grep -qx -- "$line" "$OBJ/.config" || bad+=("$line") ;;
		*)
			! grep -q "^$sym=" "$OBJ/.config" || bad+=("$line") ;;
		esac
	done
	if [ "$1" = base ]; then
		# The pristine tree has no pvsched symbols.
		local b filtered=()
		for b in "${bad[@]}"; do
			case "$b" in *PARAVIRT_SCHED*|*SAMPLE_PVSCHED*|*PVSCHED_GUEST*|*CONFIG_SAMPLES=*) ;;
			*) filtered+=("$b") ;; esac
		done
		bad=("${filtered[@]}")
	fi
	if [ ${#bad[@]} -ne 0 ]; then
		printf '  not in final .config: %s\n' "${bad[@]}" >&2
		# Early patches of the series lack later symbols, and a
		# variant's override drops the options depending on it.
		case "$1" in
		bisect|nohost|nokvm|kvmm) ;;
		*) die "config fragments do not apply cleanly" ;;
		esac
	fi
	for line in "${EXTRA[@]}"; do
		case "$line" in
		CONFIG_*=*)
			grep -qx -- "$line" "$OBJ/.config" ||
				die "variant $1: $line did not apply" ;;
		*)
			sym=${line#\# }; sym=${sym%% *}
			! grep -q "^$sym=" "$OBJ/.config" ||
				die "variant $1: $line did not apply" ;;
		esac
	done
	echo "$want" > "$OBJ/.pvsched-config"
}

kbuild_make() {
	local log=$OBJ/build.log cc="gcc"

	command -v ccache >/dev/null && cc="ccache gcc"
	# The bisect builds step one tree through every patch of the series:
	# ccache (4.7) has handed them back the .d file of an object compiled
	# at a later patch, naming headers the earlier patch does not have,
	# and fixdep then fails. Plain gcc there; make's own dependencies keep
	# those builds incremental.
	[ "$VARIANT" = bisect ] && cc="gcc"
	if ! make -C "$SRCDIR" O="$OBJ" ARCH=x86_64 -j"$JOBS" \
		CC="$cc" HOSTCC="$cc" "$@" > "$log" 2>&1; then
		grep -E 'error|Error|warning:' "$log" | head -40 >&2 || true
		tail -20 "$log" >&2
		die "build failed ($VARIANT), full log: $log"
	fi
	if grep -q 'warning:' "$log"; then
		echo "  compiler warnings ($VARIANT):" >&2
		grep 'warning:' "$log" | sort -u | head -20 >&2
	fi
}

artifacts() {
	mkdir -p "$OUT/modules"
	cp "$OBJ/arch/x86/boot/bzImage" "$OUT/bzImage.tmp" && mv "$OUT/bzImage.tmp" "$OUT/bzImage"
	cp "$OBJ/vmlinux" "$OUT/vmlinux.tmp" && mv "$OUT/vmlinux.tmp" "$OUT/vmlinux"
	rm -f "$OUT"/modules/*.ko
	find "$OBJ" -name '*.ko' -exec cp {} "$OUT/modules/" \;
}

cmd_tree() {
	tree_extract
	tree_apply
}

cmd_build() {
	local t0=$SECONDS

	VARIANT=$1
	shift
	variant_setup "$VARIANT"
	if [ "$VARIANT" = base ]; then
		cmd_worktree linux-base
	fi
	config_make "$VARIANT"
	stage "building ($JOBS jobs, log $OBJ/build.log)"
	kbuild_make "${@:-all}"
	if [ $# -eq 0 ]; then
		artifacts
		stage "done in $((SECONDS - t0))s: $OUT/bzImage"
	fi
}

# The KVM selftest that the series adds, built from the patched tree
# against its UAPI headers (installed into the main build's object tree),
# linked statically for the test initramfs, copied to $1. TARGET_ARCH, last
# on the compiler's command line, undoes the selftests' -march=x86-64-v2:
# the test VM's qemu64 CPU lacks SSE4.2 and POPCNT (SIGILL).
cmd_selftest() {
	local kvm=$SRC/tools/testing/selftests/kvm
	local out=$BUILD/obj/selftests/kvm
	local log=$BUILD/obj/selftests/build.log

	[ -f "$kvm/x86_64/pvsched_test.c" ] ||
		die "$kvm/x86_64/pvsched_test.c missing: make kernel-tree"
	VARIANT=selftest
	mkdir -p "$out"
	stage "building x86_64/pvsched_test (log $log)"
	if ! { make -C "$SRC" O="$BUILD/obj/main" ARCH=x86_64 -s headers &&
	       make -C "$kvm" -s OUTPUT="$out" \
		KHDR_INCLUDES="-isystem $BUILD/obj/main/usr/include" \
		LDFLAGS="-static -pthread -no-pie" TARGET_ARCH=-march=x86-64 \
		"$out/x86_64/pvsched_test"; } > "$log" 2>&1; then
		tail -20 "$log" >&2
		die "selftest build failed, full log: $log"
	fi
	mkdir -p "$(dirname "$1")"
	cp "$out/x86_64/pvsched_test" "$1"
}

case "${1:-}" in
tree)	cmd_tree ;;
selftest) cmd_selftest "${2:?usage: $0 selftest OUT}" ;;
worktree) cmd_worktree "$2" ;;
series)	series_files ;;
build)	shift; cmd_build "$@" ;;
*)	echo "usage: $0 tree | build VARIANT [make targets] | selftest OUT" >&2; exit 2 ;;
esac
