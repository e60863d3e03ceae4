# Wake-ups that ask nothing of another vCPU: 200 of a SCHED_FIFO 50 task
# on CPU 1 from a normal task on CPU 1 (local), then 200 of a normal task
# on CPU 1 from one on CPU 0.
rtwake local 200
rtwake normal 200
