# The guest driver's log and whether it publishes, then a SCHED_FIFO 50
# loop on CPU 1 for 2 s, then one that sleeps 10 ms after each ms of
# work, for 1 s.
dmesg | grep pvsched_guest
echo "ACTIVE: $(cat /sys/module/pvsched_guest/parameters/active 2>&1)"
rtspin 1 50 2
rtspin 1 50 1 10
