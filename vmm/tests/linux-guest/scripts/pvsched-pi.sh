# Priority inheritance across CPUs: a normal task on CPU 1 holds a PI
# mutex and spins for 2 s; 0.2 s in, a SCHED_FIFO 60 task on CPU 0 blocks
# on it, so that the holder runs boosted to 60 on CPU 1 without a context
# switch there. CPU 1 is isolated (isolcpus=1): nothing else runs on it.
dmesg | grep pvsched_guest
pispin 1 0 60 2
