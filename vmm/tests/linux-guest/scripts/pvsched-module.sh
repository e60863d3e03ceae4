# The guest driver as a module (the guest variant, make guest), with
# CPU 1 isolated: not loaded, then loaded (both CPUs register their
# areas); a FIFO 50 task that works 1 ms and sleeps 0.7 s on CPU 1 starts
# and blocks, counted as waiting there; the module is unloaded (both
# areas unregistered) and loaded again while that task runs on. At the
# end, the task asleep, vCPU 1 must ask BOOST | BOOST_IRQ for it: the
# count of the first load went with it. Then a FIFO 70 loop on CPU 1
# asks with its priority.
# The shell gives background jobs /dev/null: the initramfs has no such node.
[ -e /dev/null ] || mknod /dev/null c 1 3
echo "BEFORE: $(cat /sys/module/pvsched_guest/parameters/active 2>&1)"
insmod /lib/modules/pvsched_guest.ko && echo "INSMOD: ok"
sleep 1
echo "ACTIVE: $(cat /sys/module/pvsched_guest/parameters/active 2>&1)"
rtspin 1 50 60 700 > /dev/null &
sleep 1
rmmod pvsched_guest && echo "RMMOD: ok"
echo "AFTER RMMOD: $(cat /sys/module/pvsched_guest/parameters/active 2>&1)"
sleep 1.5
insmod /lib/modules/pvsched_guest.ko && echo "INSMOD AGAIN: ok"
sleep 1
echo "ACTIVE AGAIN: $(cat /sys/module/pvsched_guest/parameters/active 2>&1)"
rtspin 1 70 0.5
sleep 2.5
dmesg | grep pvsched_guest
