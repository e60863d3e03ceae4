# A SCHED_FIFO 50 task that blocks on CPU 1 for 1 s, moved to CPU 0 while
# it sleeps, so that it wakes there; then 1 s in which CPU 1 idles with no
# real-time task waiting on it.
rtwait 1 0 50 1000
sleep 1
