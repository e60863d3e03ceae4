# make latency's guest: the cost of the guest driver's scheduler hook to
# the guest, hackbench -g HB_GROUPS -l HB_LOOPS (hb.groups=, hb.loops= on
# the kernel command line; 10, 200) HB_RUNS times (hb.runs=, 3): an
# "HB-TIME seconds" line per run, then "HB-GUEST enable=Y|N" (the guest
# driver's pvsched_guest.enable).
groups=10
loops=200
runs=3
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	hb.loops=*) loops=${arg#hb.loops=} ;;
	hb.runs=*) runs=${arg#hb.runs=} ;;
	hb.groups=*) groups=${arg#hb.groups=} ;;
	esac
done
i=0
while [ "$i" -lt "$runs" ]; do
	hackbench -g "$groups" -l "$loops" > /tmp/hb.out 2>&1 || { cat /tmp/hb.out; exit 1; }
	sed -n 's/^Time: /HB-TIME /p' /tmp/hb.out
	i=$((i + 1))
done
echo "HB-GUEST enable=$(cat /sys/module/pvsched_guest/parameters/enable 2>/dev/null)"
