# Real-time wake-ups across CPUs: 200 of a SCHED_FIFO 50 task on CPU 1
# from a normal one on CPU 0, each answered; then one such wake-up on
# CPU 1 behind a SCHED_FIFO 90 loop, after which the task moves to CPU 0
# and runs there. vCPU 1's wake_req counts the requests, and no priority
# is left pending: each task ran, or left.
rtwake remote 200
rtwake moved
