#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the baseline and the pvsched kernel in QEMU and time minivmm.

Each kernel boots once with -icount shift=0,sleep=off: the guest's clocks
then count emulated instructions (1 ns each) and no longer depend on the
host's load, so a run's virtual time is repeatable. Inside, minivmm runs
the cpuid payload (every exit handled in KVM) and the io payload (every
exit goes to userspace) for a fixed number of iterations, one exit each,
under each driver; a warm-up run per case is dropped, then the cases take
turns for --reps rounds. ns/exit is the vCPU thread's run time (first
KVM_RUN to the guest's DONE) over the iteration count, median of the
rounds. Wall-clock time per exit is taken on this machine from the console
lines around each run: it measures TCG emulation and the host's load, not
pvsched, and is shown for scale only.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

# ci/vmrun.py: a script run by path has its own directory in sys.path[0].
import vmrun

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
# The runs' own QEMU options, added to ci/vm-run's command line (vmrun):
# virtual time.
QEMU_ARGS = "-icount shift=0,sleep=off"

PAYLOADS = ("cpuid", "io")
PAYLOAD_TEXT = {
    "cpuid": "cpuid (exits handled in KVM)",
    "io": "io (exits to userspace)",
}

# (kernel, case name, label, minivmm driver options, callback source)
CASES = (
    ("base", "baseline", "baseline (unpatched 6.12)", "--no-pvsched", None),
    ("main", "none", "pvsched, no driver", "--pvsched=", None),
    ("main", "nop", "pvsched_nop, no area", "--pvsched=pvsched_nop --no-area",
     None),
    ("main", "noparea", "pvsched_nop, area", "--pvsched=pvsched_nop", None),
    ("main", "count", "pvsched_count (module)",
     "--pvsched=pvsched_count", "pvsched_count"),
    ("main", "boost", "pvsched_boost (module)", "--pvsched=pvsched_boost",
     None),
    ("main", "bpfnop", "bpf_pvsched_nop, no area",
     "--pvsched=bpf_pvsched_nop --no-area", None),
    ("main", "bpf", "bpf_pvsched_count (BPF)",
     "--pvsched=bpf_pvsched_count", "bpf_pvsched_count"),
    ("main", "bpfnoarea", "bpf_pvsched_count, no area",
     "--pvsched=bpf_pvsched_count --no-area", "bpf_pvsched_count"),
    # What users do without pvsched: the same counting in BPF programs on
    # KVM's tracepoints (kvm_entry, kvm_exit, kvm_inj_virq,
    # kvm_vcpu_wakeup), no driver assigned. Attached only around its own
    # runs: tracepoints see every VM.
    ("main", "tpcount", "BPF on KVM tracepoints, no driver",
     "--pvsched= --no-area", "bpf_pvsched_tpcount"),
    ("main", "bpfboost", "bpf_pvsched_boost (BPF)",
     "--pvsched=bpf_pvsched_boost", None),
)

# case -> largest allowed slowdown against the baseline, in percent: those
# of issue 21, and issue 34's for the boosting drivers, which ask the
# scheduler for nothing on an exit that changes nothing.
TARGETS = {"none": 0.5, "nop": 2.0, "bpf": 5.0, "boost": 4.0,
           "bpfboost": 4.0}

KERNELS = {
    "base": ("baseline", os.path.join(BUILD, "base")),
    "main": ("pvsched", BUILD),
}

SETUP = {
    "base": [
        # The baseline has no pvsched: minivmm must say so and exit 2.
        "minivmm --payload=io --iterations=1 >/dev/null 2>/tmp/err",
        'echo "BENCH-NOPVSCHED $? $(head -n 1 /tmp/err)"',
    ],
    "main": [
        "insmod /lib/modules/pvsched_count.ko || exit 1",
        "pvsched-bpf load count >/dev/null || exit 1",
        "pvsched-bpf load nop >/dev/null || exit 1",
        "insmod /lib/modules/pvsched_boost.ko || exit 1",
        "pvsched-bpf load boost >/dev/null || exit 1",
    ],
}


class BenchError(Exception):
    pass


def vm_script(kernel, iterations, reps):
    """The shell script the VM runs: setup, warm-up, then the rounds."""
    tp = "bpf_pvsched_tpcount"
    cases = [c for c in CASES if c[0] == kernel]
    lines = ["#!/bin/sh", 'echo "BENCH-KERNEL $(uname -r)"']
    lines += SETUP[kernel]
    lines.append("run() {")
    lines.append('\techo "BENCH-BEGIN $1 $2 $3"')
    lines.append("\tminivmm $4 --payload=$2 --iterations=%d --json "
                 ">/tmp/out 2>/tmp/err" % iterations)
    lines.append("\trc=$?")
    lines.append('\techo "BENCH-END $1 $2 $3 $rc"')
    lines.append('\techo "BENCH-JSON $1 $2 $3 $(cat /tmp/out)"')
    lines.append('\t[ $rc -eq 0 ] || sed "s/^/BENCH-STDERR /" /tmp/err')
    lines.append("}")
    for rnd in range(reps + 1):
        for _, name, _, opts, source in cases:
            if name in ("none", "tpcount"):
                # The last VM with a driver went away: the static key is
                # disabled one second later (virtual time, instantly).
                lines.append("sleep 2")
            if source == tp:
                lines.append("pvsched-bpf load tpcount >/dev/null || exit 1")
            for payload in PAYLOADS:
                if source == tp:
                    lines.append("pvsched-bpf reset %s >/dev/null || exit 1"
                                 % tp)
                lines.append("run %s %s %d %s" % (name, payload, rnd,
                                                  shlex.quote(opts)))
                if source == tp:
                    lines.append('echo "BENCH-TPSTATS %s %s %d $(pvsched-bpf '
                                 'stats %s | tr \"\\n\" \";\")"'
                                 % (name, payload, rnd, tp))
            if source == tp:
                lines.append("pvsched-bpf unload %s >/dev/null || exit 1"
                             % tp)
    return "\n".join(lines) + "\n"


def boot(kernel, iterations, reps, verbose):
    """Boot @kernel, run its cases; return {(case, payload): [runs]}."""
    what, kdir = KERNELS[kernel]
    script = os.path.join(BUILD, "bench-%s.sh" % kernel)
    log = os.path.join(BUILD, "bench-%s.log" % kernel)
    with open(script, "w") as f:
        f.write(vm_script(kernel, iterations, reps))
    os.chmod(script, 0o755)

    nruns = (reps + 1) * len(PAYLOADS) * \
        len([c for c in CASES if c[0] == kernel])
    # About 50 us of wall time per emulated exit on this class of machine;
    # allow four times that.
    timeout = 120 + int(nruns * iterations * 200e-6)
    env = dict(os.environ, VMRUN_QUIET="")   # the console is read here
    cmd = vmrun.command(QEMU_ARGS, "-a", "quiet", "-l", log, "-k", kdir,
                        "-t", str(timeout), "-f", script + ":/root/bench.sh",
                        "/root/bench.sh")
    print("==> [bench] %s kernel: %d runs of %d exits in QEMU %s "
          "(log %s)" % (what, nruns, iterations, QEMU_ARGS, log), flush=True)

    runs = {}
    begin = {}
    info = {"kernel": kdir, "release": None, "nopvsched": None}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)
    for line in proc.stdout:
        now = time.monotonic()
        line = line.rstrip("\n")
        if verbose:
            print("   ", line)
        if not line.startswith("BENCH-"):
            continue
        tag, _, rest = line.partition(" ")
        if tag == "BENCH-KERNEL":
            info["release"] = rest
        elif tag == "BENCH-NOPVSCHED":
            rc, _, msg = rest.partition(" ")
            info["nopvsched"] = {"status": int(rc), "message": msg}
        elif tag == "BENCH-BEGIN":
            begin[tuple(rest.split())] = now
        elif tag == "BENCH-END":
            name, payload, rnd, rc = rest.split()
            key = (name, payload, rnd)
            runs.setdefault((name, payload), {})[int(rnd)] = {
                "status": int(rc), "wall_s": now - begin[key]}
        elif tag == "BENCH-JSON":
            name, payload, rnd, js = rest.split(" ", 3)
            try:
                rep = json.loads(js)
            except ValueError:
                rep = None
            runs[(name, payload)][int(rnd)]["report"] = rep
        elif tag == "BENCH-TPSTATS":
            name, payload, rnd, stats = (rest.split(" ", 3) + [""])[:4]
            runs[(name, payload)][int(rnd)]["tpstats"] = stats
        elif tag == "BENCH-STDERR":
            print("    minivmm:", rest, file=sys.stderr)
    rc = proc.wait()
    if rc != 0:
        raise BenchError("%s kernel: the VM ended with status %d, see %s"
                         % (what, rc, log))
    return info, runs


def check_run(kernel, case, payload, rnd, run, iterations):
    """A run counts only if minivmm and the driver did all the work."""
    where = "%s/%s round %d" % (case[1], payload, rnd)
    rep = run.get("report")
    if run["status"] != 0 or not rep:
        raise BenchError("%s: minivmm exited %d" % (where, run["status"]))
    vcpu = rep["vcpu"][0]
    if not rep["ok"] or vcpu["result"] != "done" or \
            vcpu["count"] != iterations:
        raise BenchError("%s: guest did %s of %d iterations (%s)" %
                         (where, vcpu["count"], iterations, vcpu["result"]))
    if not vcpu.get("run_ns"):
        raise BenchError("%s: minivmm reported no run_ns" % where)
    if kernel == "main":
        opts = shlex.split(case[3])
        want = [o.partition("=")[2] for o in opts
                if o.startswith("--pvsched=")][0]
        got = rep["driver"]["final"]
        if got != want:
            raise BenchError("%s: VM ran with driver '%s', not '%s'" %
                             (where, got, want))
        area = "not-used" if "--no-area" in opts else "registered"
        if rep.get("pvsched_area") != area:
            raise BenchError("%s: vCPU areas %s, not %s" %
                             (where, rep.get("pvsched_area"), area))
    source = case[4]
    if source == "bpf_pvsched_tpcount":
        # pvsched-bpf stats lines, ";"-separated: the vCPU thread's.
        cb = {}
        for line in run.get("tpstats", "").split(";"):
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if kv.get("tid") == str(vcpu.get("tid")):
                cb = {"source": source, "vmexit": int(kv["vmexit"])}
        if cb.get("vmexit", 0) < iterations:
            raise BenchError("%s: the tracepoint programs counted %s "
                             "VMEXITs for %d exits" % (where, cb.get("vmexit"),
                                                       iterations))
    elif source:
        cb = vcpu.get("callbacks") or {}
        if cb.get("source") != source or cb.get("vmexit", 0) < iterations:
            raise BenchError("%s: driver counted %s VMEXITs (source %s) for "
                             "%d exits" % (where, cb.get("vmexit"),
                                           cb.get("source"), iterations))
    return vcpu["run_ns"] / iterations, run["wall_s"] * 1e6 / iterations


def summarize(runs_by_kernel, iterations, reps):
    results = []
    for case in CASES:
        kernel, name = case[0], case[1]
        for payload in PAYLOADS:
            per = runs_by_kernel[kernel].get((name, payload), {})
            virt, wall = [], []
            for rnd in range(1, reps + 1):
                if rnd not in per:
                    raise BenchError("%s/%s round %d: no result" %
                                     (name, payload, rnd))
                v, w = check_run(kernel, case, payload, rnd, per[rnd],
                                 iterations)
                virt.append(v)
                wall.append(w)
            med = statistics.median(virt)
            results.append({
                "case": name, "label": case[2], "kernel": kernel,
                "payload": payload,
                "virtual_ns_per_exit": med,
                "virtual_ns_per_exit_runs": virt,
                "spread_pct": (max(virt) - min(virt)) / med * 100,
                "wall_us_per_exit": statistics.median(wall),
                "wall_us_per_exit_runs": wall,
            })
    base = {r["payload"]: r["virtual_ns_per_exit"]
            for r in results if r["case"] == "baseline"}
    wbase = {r["payload"]: r["wall_us_per_exit"]
             for r in results if r["case"] == "baseline"}
    for r in results:
        r["vs_baseline_pct"] = \
            (r["virtual_ns_per_exit"] / base[r["payload"]] - 1) * 100
        r["wall_vs_baseline_pct"] = \
            (r["wall_us_per_exit"] / wbase[r["payload"]] - 1) * 100
        if r["case"] in TARGETS:
            r["target_pct"] = TARGETS[r["case"]]
            r["target_met"] = r["vs_baseline_pct"] <= TARGETS[r["case"]]
    return results


def print_table(results, iterations, reps):
    by = {(r["case"], r["payload"]): r for r in results}
    print()
    print("pvsched exit-path cost: %d exits per run, median of %d runs, "
          "1 vCPU" % (iterations, reps))
    print("Virtual time: QEMU %s, 1 ns per emulated instruction;"
          % QEMU_ARGS)
    print("repeatable, independent of this machine's load.")
    print()
    hdr = "%-28s" % "kernel / driver"
    sub = "%-28s" % ""
    for p in PAYLOADS:
        hdr += " | %-29s" % PAYLOAD_TEXT[p]
        sub += " | %9s %9s %9s" % ("ns/exit", "vs base", "spread")
    print(hdr)
    print(sub)
    print("-" * len(sub))
    for case in CASES:
        row = "%-28s" % case[2]
        for p in PAYLOADS:
            r = by[(case[1], p)]
            vs = "-" if case[1] == "baseline" else \
                "%+.2f%%" % r["vs_baseline_pct"]
            row += " | %9.1f %9s %8.2f%%" % (r["virtual_ns_per_exit"], vs,
                                             r["spread_pct"])
        print(row)
    print()
    print("Wall clock, us/exit (TCG-emulated, depends on the host's load: "
          "noisy, for scale only)")
    for case in CASES:
        row = "%-28s" % case[2]
        for p in PAYLOADS:
            r = by[(case[1], p)]
            vs = "" if case[1] == "baseline" else \
                " (%+.1f%%)" % r["wall_vs_baseline_pct"]
            row += " | %-29s" % ("%.2f%s" % (r["wall_us_per_exit"], vs))
        print(row)
    print()
    print("Targets (virtual ns/exit against the baseline, both payloads):")
    for case in CASES:
        if case[1] not in TARGETS:
            continue
        rs = [by[(case[1], p)] for p in PAYLOADS]
        ok = all(r["target_met"] for r in rs)
        print("  %-26s <= +%.1f%%: %s (%s)" % (
            case[2], TARGETS[case[1]], "met" if ok else "MISSED",
            ", ".join("%s %+.2f%%" % (r["payload"], r["vs_baseline_pct"])
                      for r in rs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=100000,
                    help="exits per run (default 100000)")
    ap.add_argument("--reps", type=int, default=3,
                    help="measured runs per case (default 3)")
    ap.add_argument("--out", default=os.path.join(BUILD, "bench.json"),
                    help="JSON results (default build/bench.json)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show the VM consoles")
    args = ap.parse_args()
    if args.iterations < 1000 or args.reps < 1:
        ap.error("need --iterations >= 1000 and --reps >= 1")

    t0 = time.time()
    runs, infos = {}, {}
    try:
        for kernel in ("base", "main"):
            infos[kernel], runs[kernel] = boot(kernel, args.iterations,
                                               args.reps, args.verbose)
        np = infos["base"]["nopvsched"]
        if not np or np["status"] != 2 or "no pvsched" not in np["message"]:
            raise BenchError("baseline kernel: minivmm without --no-pvsched "
                             "should exit 2 saying the kernel has no pvsched, "
                             "got %s" % np)
        if infos["base"]["release"] != infos["main"]["release"]:
            raise BenchError("baseline runs %s, pvsched kernel %s" %
                             (infos["base"]["release"],
                              infos["main"]["release"]))
        results = summarize(runs, args.iterations, args.reps)
    except BenchError as e:
        print("bench: error: %s" % e, file=sys.stderr)
        return 1

    print_table(results, args.iterations, args.reps)
    out = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)),
        "kernel_release": infos["main"]["release"],
        "qemu": vmrun.qemu_options(QEMU_ARGS),
        "iterations": args.iterations,
        "reps": args.reps,
        "baseline_without_pvsched": infos["base"]["nopvsched"],
        "results": results,
    }
    with open(args.out + ".tmp", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(args.out + ".tmp", args.out)
    print("\nResults: %s (%.0f s)" % (args.out, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
