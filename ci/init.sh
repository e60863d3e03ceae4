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
# Module autoloading (request_module(), e.g. a driver named before it is
# loaded): the kernel runs /sbin/modprobe, which finds a module by name or
# alias in /lib/modules/RELEASE. The suite loads its modules by path from
# /lib/modules, where ci/mkinitramfs.sh puts them; busybox depmod indexes
# links to them.
ln -s /bin/busybox /sbin/modprobe
rel=$(uname -r)
mkdir -p "/lib/modules/$rel"
for ko in /lib/modules/*.ko; do
	[ -e "$ko" ] && ln -s "../${ko##*/}" "/lib/modules/$rel/"
done
depmod
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
