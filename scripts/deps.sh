#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the project needs, if any are missing, and
# check that the kernel source is the version the series was made for.
# Usage: scripts/deps.sh [EXTRA_PACKAGE]...	(e.g. make latency's gnuplot-nox)
set -euo pipefail

# The linux-source-6.12 the patches in kernel/patches apply to. Another
# version may or may not take them: say so before git am fails halfway.
LINUX_SOURCE_VERSION=6.12.118-1~deb12u1

PKGS=(
	linux-source-6.12
	build-essential bc bison flex libelf-dev libssl-dev
	dwarves pahole python3 perl kmod rsync git xz-utils
	clang llvm bpftool libbpf-dev zlib1g-dev libclang-rt-14-dev
	qemu-system-x86 cpio busybox-static ccache jq python3-unicorn
	rt-tests
	dpkg-dev patch meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev
	"$@"
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	     grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -ne 0 ]; then
	echo "==> [deps] installing: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		SUDO=sudo
	else
		SUDO=
	fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

have=$(dpkg-query -W -f='${Version}' linux-source-6.12)
if [ "$have" != "$LINUX_SOURCE_VERSION" ]; then
	echo "deps: error: linux-source-6.12 is $have; the series is made for $LINUX_SOURCE_VERSION (apt-get install linux-source-6.12=$LINUX_SOURCE_VERSION, or rebase kernel/patches)" >&2
	exit 1
fi
