#!/bin/sh
# /init of the test initramfs: mount the pseudo filesystems, run /run.sh
# (added by ci/vm-run) or a shell, report its status and power off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
hostname pvsched-vm
cd /root 2>/dev/null || cd /

if [ -x /run.sh ]; then
	echo "PVSCHED-VM-READY"
	/run.sh
	echo "PVSCHED-EXIT-STATUS=$?"
else
	echo "pvsched test VM: minivmm, pvsched-bpf, jq, modules in /lib/modules"
	setsid cttyhack sh -l
fi
sync
reboot -f
