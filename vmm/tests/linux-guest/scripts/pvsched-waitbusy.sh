# A SCHED_FIFO 50 task blocked on CPU 1 for 5 s and, meanwhile, a normal
# busy loop on CPU 1; the run ends 1 s in, with both still there. The
# shell gives background jobs /dev/null: the initramfs has no such node.
[ -e /dev/null ] || mknod /dev/null c 1 3
rtwait 1 1 50 5000 &
taskset -c 1 sh -c 'while :; do :; done' &
sleep 1
