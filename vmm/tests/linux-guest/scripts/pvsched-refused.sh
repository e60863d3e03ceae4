# The guest driver's log and whether it publishes (its static key), with
# a host that refused every area; then a SCHED_FIFO 50 task that sleeps
# 10 ms after each ms of work on CPU 1 for 1 s, which a published switch
# would write into the area, had it one.
dmesg | grep pvsched_guest
echo "ACTIVE: $(cat /sys/module/pvsched_guest/parameters/active 2>&1)"
rtspin 1 50 1 10
