#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make latency's hang handling (ci/latency.py boot()), without a VM: a
fake boot_vm() whose VM hangs in a given item a given number of times.
TAP output, one result per check."""

import argparse
import contextlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import latency  # noqa: E402


def args_for(retries):
    return argparse.Namespace(reps=1, linux=False, hogs=2, samples=10,
                              period_us=500, retries=retries, stall=1,
                              l2_loops=10, hb_loops=1, hb_runs=1,
                              l2_runtime_us=0, l2_timeout=1, timeout=1)


def run(retries, hangs):
    """boot() with the first item's VM hanging @hangs times: the number of
    VMs booted, whether boot() gave up, and the items' lines the last VM
    was given."""
    vms = []

    def fake_boot_vm(args, items, log, cfg, runs, hogs, l2, done):
        vms.append(list(items))
        key = items[0][0]
        if len(vms) <= hangs:
            return -9, key
        done.update(k for k, _ in items)
        return 0, None

    real = latency.boot_vm
    latency.boot_vm = fake_boot_vm
    try:
        # Its progress lines are not TAP.
        with open(os.devnull, "w") as null, \
             contextlib.redirect_stdout(null):
            latency.boot(args_for(retries))
        gave_up = False
    except latency.LatencyError:
        gave_up = True
    finally:
        latency.boot_vm = real
    return len(vms), gave_up, vms[-1]


def main():
    checks = []
    # --retries N: N new VMs for an item that hangs, no more.
    for retries in (0, 1, 2):
        nr, gave_up, _ = run(retries, hangs=100)
        checks.append((nr == 1 + retries and gave_up,
                       "--retries %d, a VM that always hangs: %d VMs in "
                       "all, then an error (booted %d)" %
                       (retries, 1 + retries, nr)))
    nr, gave_up, last = run(2, hangs=2)
    shifted = last[0][1].startswith("sleep 0.274; ")
    checks.append((nr == 3 and not gave_up and shifted,
                   "--retries 2, two hangs: a third VM runs the item "
                   "0.274 s later and the run completes (booted %d)" % nr))
    nr, gave_up, _ = run(2, hangs=0)
    checks.append((nr == 1 and not gave_up,
                   "no hang: one VM (booted %d)" % nr))

    print("TAP version 13")
    print("1..%d" % len(checks))
    failed = 0
    for i, (ok, desc) in enumerate(checks, 1):
        print("%sok %d %s" % ("" if ok else "not ", i, desc))
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
