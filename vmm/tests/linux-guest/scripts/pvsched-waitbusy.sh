# A SCHED_FIFO 50 task blocked on CPU 1 (for up to 120 s) and, meanwhile,
# a normal busy loop on CPU 1; the run ends with both there, once they
# are: not after a fixed delay, which a slow guest may not have started
# them in.
# The shell gives background jobs /dev/null: the initramfs has no such node.
[ -e /dev/null ] || mknod /dev/null c 1 3
rtwait 1 1 50 120000 &
rt=$!
taskset -c 1 sh -c 'while :; do :; done' &
busy=$!

# pstat PID: "STATE CPU POLICY" of a task, from /proc/PID/stat (fields 3,
# 39 and 41; the name in field 2 has no space here), in $st; no fork.
pstat() {
	st=gone
	read -r s 2>/dev/null < "/proc/$1/stat" || return 0
	# shellcheck disable=SC2086 # split into fields
	set -- ${s##*) }
	st="$1 ${37} ${39}"
}

# Ready: rtwait asleep as SCHED_FIFO (1) on CPU 1, which it is only in
# its nanosleep, and the busy loop runnable on CPU 1. Whatever switches
# on CPU 1 after that leaves a normal task running while a real-time one
# waits. Give up after 60 s, saying what was seen.
read -r t0 _ < /proc/uptime
while :; do
	pstat $rt
	r=$st
	pstat $busy
	b=$st
	read -r t _ < /proc/uptime
	[ "$r" = "S 1 1" ] && [ "${b% *}" = "R 1" ] && break
	if [ "${t%.*}" -ge $((${t0%.*} + 60)) ]; then
		echo "waitbusy: not ready after 60 s: rtwait '$r', busy loop '$b'"
		exit 1
	fi
	sleep 0.1
done
echo "waitbusy: ready at ${t}s (${t0}s): rtwait '$r', busy loop '$b'"
sleep 0.5
