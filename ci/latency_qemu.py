#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of make latency's rows under Debian's QEMU (ci/latency-qemu.sh).

    latency_qemu.py [--reps R] [--hogs H] [--loops N] ... --out JSON LOG...

Reads the consoles of ci/latency-qemu.sh's VMs: per VM its "LQ-CONFIG"
lines and the hogs' rate alone ("LQ-ALONE hog: ... rate=R"), per run the
lines of ci/tests/l2-qemu.sh as "LQ-L2 CASE ROUND LINE" and
"LQ-DONE CASE ROUND rc". The latencies come from cyclictest's 1-us
histogram and are pooled over the rounds, as ci/latency.py does for the
Linux guest under minivmm (its code); the hogs' share is that of the
round with the median p99, against their rate alone in the same VM.
Prints the table, the checks (each run ended with all its samples; the
guest registered its area, or did not, as the case says; the VM's driver
and the vCPU thread's policy) and issue 23's targets; writes JSON.
Exit status 1 if a run failed or a check did not hold, else 0 (a missed
target is reported, not an error, as in ci/latency.py).
"""

import argparse
import json
import os
import re
import statistics
import sys
import time

# ci/latency.py and ci/vmrun.py: a script run by path has its own
# directory in sys.path[0].
import latency
import vmrun

# (case, label, hogs?, registered?, VM driver: "" none, None no pvsched,
#  vCPU thread's policy or None, every round? (else the first only: the
#  references))
CASES = (
    ("idle", "idle host, no driver", False, True, "", None, False),
    ("hog", "CPU hogs, no driver", True, True, "", None, True),
    ("boost", "CPU hogs, pvsched_boost (default driver)", True, True,
     "pvsched_boost", None, True),
    ("static", "CPU hogs, vCPU SCHED_FIFO 1 (chrt)", True, True, "",
     "SCHED_FIFO 1", True),
    ("bmig", "CPU hogs, pvsched_boost, plain -cpu host", True, False,
     "pvsched_boost", None, False),
    ("base", "unpatched kernel, CPU hogs", True, False, None, None, False),
)

# The guest's line when it registered its area through MSR_KVM_PVSCHED.
MSR_LINE = "pvsched_guest: MSR_KVM_PVSCHED, area version 1,"


def parse(logs):
    """Per VM log: its config, the hogs' rates alone, and per (case,
    round) the run's lines and status."""
    vms = []
    for log in logs:
        vm = {"log": log, "config": {}, "alone": [], "runs": {},
              "status": {}}
        with open(log, errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                tag, _, rest = line.partition(" ")
                if tag == "LQ-CONFIG":
                    key, _, val = rest.partition(" ")
                    vm["config"][key] = val
                elif tag == "LQ-ALONE":
                    m = re.search(r"rate=(\d+)", rest)
                    if m:
                        vm["alone"].append(float(m.group(1)))
                elif tag == "LQ-L2":
                    case, rnd, text = (rest.split(" ", 2) + [""])[:3]
                    vm["runs"].setdefault((case, int(rnd)), []).append(text)
                elif tag == "LQ-DONE":
                    case, rnd, rc = rest.split(" ")
                    vm["status"][(case, int(rnd))] = int(rc)
        vms.append(vm)
    return vms


def parse_run(lines):
    """One run of ci/tests/l2-qemu.sh, in the shape of ci/latency.py's
    parse_l2() for its l2_samples()."""
    run = {"hist": {}, "summary": {}, "rates": [], "guest": None,
           "status": None, "ct_status": None, "registered": False,
           "driver": None, "vcpu": None, "qemu": [], "qemu_exit": None}
    for line in lines:
        word, _, rest = line.partition(" ")
        if word == "CT-H":
            us, n = rest.split()
            run["hist"][int(us, 10)] = int(n, 10)
        elif word == "CT-S":
            key, _, val = rest.partition(":")
            run["summary"][key.strip()] = val.strip()
        elif word == "CT-STATUS":
            run["ct_status"] = int(rest)
        elif word == "CT-GUEST":
            run["guest"] = rest
        elif word == "hog:":
            m = re.search(r"rate=(\d+)", rest)
            if m:
                run["rates"].append(float(m.group(1)))
        elif word == "L2-DMESG":
            if MSR_LINE in rest:
                run["registered"] = True
        elif word == "L2-DRIVER":
            run["driver"] = rest
        elif word == "L2-VCPU":
            m = re.search(r"policy: (\S+).*priority: (\d+)", rest)
            run["vcpu"] = "%s %s" % m.groups() if m else rest
        elif word == "L2-QEMU":
            run["qemu"].append(rest)
        elif word == "L2-QEMU-EXIT":
            run["qemu_exit"] = int(rest)
        elif word == "L2-STATUS":
            run["status"] = int(rest)
    return run


def summarize(vms, args):
    """The rows, and the list of what failed."""
    results = []
    failed = []
    checks = []
    for name, label, with_hogs, registered, driver, policy, every in CASES:
        vm = next((v for v in vms if any(c == name for c, _ in v["runs"])),
                  None)
        if vm is None:
            failed.append("%s: no run" % name)
            continue
        alone = statistics.median(vm["alone"]) if vm["alone"] else None
        rounds = []
        pool = []
        notes = []
        reps = args.reps if every else 1
        for rnd in range(reps):
            where = "%s round %d" % (name, rnd)
            lines = vm["runs"].get((name, rnd))
            if lines is None:
                failed.append("%s: no result" % where)
                continue
            run = parse_run(lines)
            if run["status"] != 0 or vm["status"].get((name, rnd)) != 0:
                failed.append("%s: l2-qemu.sh exited %s (QEMU %s), see %s" %
                              (where, vm["status"].get((name, rnd)),
                               run["qemu_exit"], vm["log"]))
                continue
            try:
                ns, over = latency.l2_samples(run, name, rnd, args)
            except latency.LatencyError as e:
                failed.append(str(e))
                continue
            if with_hogs and (len(run["rates"]) != args.hogs or not alone):
                failed.append("%s: hogs reported %s, alone %s" %
                              (where, run["rates"], vm["alone"]))
                continue
            # What the case is about: the area, the VM's driver
            # (None: the kernel has no pvsched), the vCPU's policy.
            got_driver = run["driver"]
            ok = (run["registered"] == registered and
                  got_driver == driver and
                  (policy is None or run["vcpu"] == policy) and
                  run["guest"] == "enable=Y")
            checks.append(("%s: area %s, driver %s, vCPU %s, guest driver "
                           "%s" % (where,
                                   "registered" if run["registered"]
                                   else "not registered",
                                   "(no pvsched)" if got_driver is None
                                   else got_driver or "(none)",
                                   run["vcpu"] or "as QEMU made it",
                                   run["guest"]), ok))
            for q in run["qemu"]:
                if q not in notes:
                    notes.append(q)
            pool += ns
            rounds.append({
                "round": rnd,
                "latency": latency.pooled_stats(ns),
                "overflows": over,
                "late_100us": sum(1 for v in ns if v > 100000),
                "hog_rate": sum(run["rates"]) if with_hogs else None,
                "registered": run["registered"],
                "driver": got_driver,
                "vcpu": run["vcpu"],
            })
        if len(rounds) != reps:
            continue
        p99s = [r["latency"]["p99_ns"] for r in rounds]
        med = sorted(rounds, key=lambda r: r["latency"]["p99_ns"])[
            (len(rounds) - 1) // 2]
        res = {
            "case": name, "label": label,
            "kernel": "pvsched" if driver is not None else "unpatched",
            "hogs": args.hogs if with_hogs else 0,
            "latency": latency.pooled_stats(pool),
            "overflows": sum(r["overflows"] for r in rounds),
            "late_100us": sum(r["late_100us"] for r in rounds),
            "p99_ns_rounds": p99s,
            "p999_ns_rounds": [r["latency"]["p999_ns"] for r in rounds],
            "mean_ns_rounds": [r["latency"]["mean_ns"] for r in rounds],
            "median_round": med,
            "rounds": rounds,
            "registered": all(r["registered"] for r in rounds),
            "driver": rounds[0]["driver"],
            "qemu_messages": notes,
        }
        if with_hogs:
            res["hog_share_pct"] = med["hog_rate"] / (alone * args.hogs) \
                * 100
        results.append(res)
    return results, checks, failed


def targets(results):
    """Issue 23's, as ci/latency.py's targets_l2() holds the minivmm rows
    to."""
    by = {r["case"]: r for r in results}
    out = []
    if "hog" in by and "boost" in by:
        for key, what, factor in (("p99_ns", "p99", 10),
                                  ("mean_ns", "avg", 10),
                                  ("max_ns", "max", 5)):
            r = by["hog"]["latency"][key] / max(by["boost"]["latency"][key],
                                                1)
            out.append(("QEMU: pvsched_boost %s at least %dx lower than no "
                        "driver" % (what, factor), r >= factor, "%.1fx" % r))
    if "boost" in by and "static" in by:
        for key, what in (("p99_ns", "p99"), ("mean_ns", "avg")):
            r = by["boost"]["latency"][key] / max(
                by["static"]["latency"][key], 1)
            out.append(("QEMU: pvsched_boost %s within 2x of the static "
                        "SCHED_FIFO vCPU" % what, r <= 2, "%.2fx" % r))
    return out


def us(ns):
    return ns / 1000.0


def print_table(vms, results, checks, tgts, failed, args):
    cfg = vms[0]["config"] if vms else {}
    print()
    print("Linux guest (1 vCPU, the same kernel) under Debian's QEMU in the "
          "VM: %s," % cfg.get("l1_qemu", "?"))
    print("qemu-system-x86_64 -enable-kvm -cpu host,migratable=off (bmig: "
          "-cpu host); cyclictest -m -p 90 -i %d -l %d," % (args.period_us,
                                                            args.loops))
    print("us of virtual time (the test VM: QEMU %s, 1 CPU) from its 1-us "
          "histogram;" % args.qemu_args)
    print("all %d rounds' samples together (%s: the first round's only); "
          "%d nice-0 hog(s) where marked;" % (
              args.reps, ", ".join(c[0] for c in CASES if not c[6]),
              args.hogs))
    print("the boost server %s us of every %s us" % (
        cfg.get("sched_boost_runtime_us", "?"),
        cfg.get("sched_boost_period_us", "?")))
    print()
    hdr = "%-42s %5s %7s %5s %6s %6s %6s %6s | %6s %-4s %s" % (
        "case", "min", "avg", "p50", "p99", "p99.9", "max", ">100us",
        "hogs%", "area", "VM driver")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        lat = r["latency"]
        print("%-42s %5.0f %7.1f %5.0f %6.0f %6.0f %6.0f %6d | %6s %-4s %s" %
              (r["label"], us(lat["min_ns"]), us(lat["mean_ns"]),
               us(lat["p50_ns"]), us(lat["p99_ns"]), us(lat["p999_ns"]),
               us(lat["max_ns"]), r["late_100us"],
               "%.1f" % r["hog_share_pct"] if "hog_share_pct" in r else "-",
               "yes" if r["registered"] else "no",
               "(no pvsched)" if r["driver"] is None
               else r["driver"] or "(none)"))
    for r in results:
        if r["overflows"]:
            print("(%s: %d wake-ups later than the histogram's 100 ms, "
                  "counted at cyclictest's maximum)" % (r["case"],
                                                         r["overflows"]))
    print(">100us: wake-ups later than 100 us (of %d per round); hogs%%: "
          "their rate against theirs alone in" % args.loops)
    print("the same VM, in the round with the median p99; area: the guest "
          "registered it (MSR_KVM_PVSCHED)")
    print("per round, p99 / p99.9 us: " + "; ".join(
        "%s %s" % (r["case"], ", ".join(
            "%.0f/%.0f" % (us(a), us(b)) for a, b in zip(
                r["p99_ns_rounds"], r["p999_ns_rounds"])))
        for r in results))
    for r in results:
        for q in r["qemu_messages"]:
            print("QEMU said, %s: %s" % (r["case"], q))
    print()
    print("Checks:")
    bad = [(what, ok) for what, ok in checks if not ok]
    print("  %d runs as their case says (area, VM driver, vCPU policy, "
          "guest driver): %s" % (len(checks), "all" if not bad else
                                 "%d NOT" % len(bad)))
    for what, _ in bad:
        print("  NOT: %s" % what)
    for what in failed:
        print("  FAILED: %s" % what)
    print()
    print("Targets:")
    for what, ok, val in tgts:
        print("  %-66s %s (%s)" % (what, "met" if ok else "MISSED", val))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--hogs", type=int, default=2)
    ap.add_argument("--loops", type=int, default=5000,
                    help="cyclictest loops per run")
    ap.add_argument("--period-us", type=int, default=500)
    ap.add_argument("--qemu-args", default=latency.QEMU_ARGS,
                    help="the test VM's own QEMU options")
    ap.add_argument("--seconds", type=int, default=None,
                    help="how long the VMs took, for the JSON")
    ap.add_argument("--out", required=True)
    ap.add_argument("logs", nargs="+", metavar="LOG")
    args = ap.parse_args()
    # ci/latency.py's l2_samples() checks the runs' length against this.
    args.l2_loops = args.loops

    try:
        vms = parse(args.logs)
    except (OSError, ValueError) as e:
        print("latency-qemu: error: %s" % e, file=sys.stderr)
        return 1
    results, checks, failed = summarize(vms, args)
    tgts = targets(results)
    print_table(vms, results, checks, tgts, failed, args)
    out = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "qemu": vmrun.qemu_options(args.qemu_args),
        "config": {os.path.basename(vm["log"]): vm["config"] for vm in vms},
        "hog_rate_alone": {os.path.basename(vm["log"]):
                           statistics.median(vm["alone"]) if vm["alone"]
                           else None for vm in vms},
        "cyclictest": "cyclictest -m -q -p 90 -i %d -l %d -h 100000" % (
            args.period_us, args.loops),
        "period_us": args.period_us, "loops": args.loops,
        "hogs": args.hogs, "reps": args.reps, "seconds": args.seconds,
        "results": results,
        "checks": [{"what": w, "ok": ok} for w, ok in checks],
        "failed": failed,
        "targets": [{"what": w, "met": ok, "value": v} for w, ok, v in tgts],
    }
    with open(args.out + ".tmp", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(args.out + ".tmp", args.out)
    print("\nResults: %s%s" % (args.out, " (%d s)" % args.seconds
                               if args.seconds is not None else ""))
    return 1 if failed or any(not ok for _, ok in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
