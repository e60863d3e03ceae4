#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the project needs, if any are missing.
# Usage: scripts/deps.sh [EXTRA_PACKAGE]...	(e.g. make latency's gnuplot-nox)
set -euo pipefail

PKGS=(
	linux-source-6.12
	build-essential bc bison flex libelf-dev libssl-dev
	dwarves pahole python3 perl kmod rsync git xz-utils
	clang llvm bpftool libbpf-dev zlib1g-dev
	qemu-system-x86 cpio busybox-static ccache jq
	"$@"
)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	     grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

echo "==> [deps] installing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
