# make latency's guest: cyclictest -m -p 90 -i CT_INTERVAL -l CT_LOOPS
# (ct.interval=, ct.loops= on the kernel command line; 500 us, 5000), its
# histogram in 1-us buckets up to 100 ms. First "CT-START" and a pause of
# ct.delay= seconds (0), in which the host starts its load
# (ci/tests/l2-latency.sh); then, after the measurement only (the console
# costs exits): "CT-STATUS rc", cyclictest's messages as "CT-OUT ...",
# the histogram's non-empty buckets as "CT-H us count", cyclictest's
# summary as "CT-S ...", and "CT-GUEST enable=Y|N" (the guest driver's
# pvsched_guest.enable). ct.break=US stops cyclictest at the first
# wake-up later than US (its -b), for tracing the host at that moment
# (ci/tests/l2-tail-trace.sh). ct.verbose=1 adds cyclictest's -v: every
# wake-up's latency in order, printed after the run as "CT-V loop us",
# for a time series of the late ones (kept in memory during the run).
interval=500
loops=5000
delay=0
brk=
verbose=
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	ct.interval=*) interval=${arg#ct.interval=} ;;
	ct.loops=*) loops=${arg#ct.loops=} ;;
	ct.delay=*) delay=${arg#ct.delay=} ;;
	ct.break=*) brk=${arg#ct.break=} ;;
	ct.verbose=1) verbose=-v ;;
	esac
done
# cyclictest's shared-memory snapshot wants /dev/shm.
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm
echo "CT-START"
sleep "$delay"
cyclictest -m -q -p 90 -i "$interval" -l "$loops" -h 100000 \
	${brk:+-b "$brk"} $verbose --histfile=/tmp/hist > /tmp/ct.out 2>&1
rc=$?
echo "CT-STATUS $rc"
if [ -n "$verbose" ]; then
	# "thread: loop: latency" lines, the rest as usual.
	sed -n 's/^ *0: *\([0-9]*\): *\([0-9]*\)$/CT-V \1 \2/p' /tmp/ct.out
	grep -v '^ *0: *[0-9]*: *[0-9]*$' /tmp/ct.out | sed 's/^/CT-OUT /'
else
	sed 's/^/CT-OUT /' /tmp/ct.out
fi
grep -v '^#' /tmp/hist | grep -v ' 0*$' | grep . | sed 's/^/CT-H /'
grep '^# [A-Z]' /tmp/hist | sed 's/^# /CT-S /'
echo "CT-GUEST enable=$(cat /sys/module/pvsched_guest/parameters/enable 2>/dev/null)"
