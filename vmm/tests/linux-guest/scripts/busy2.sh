# Busy loops on CPU 0 and CPU 1 for 3 s (ci/tests/boot-rate.sh): both
# vCPUs run guest code while the host has timer interrupts to take. The
# run ends with both loops still there.
[ -e /dev/null ] || mknod /dev/null c 1 3
taskset -c 0 sh -c 'while :; do :; done' &
taskset -c 1 sh -c 'while :; do :; done' &
sleep 3
