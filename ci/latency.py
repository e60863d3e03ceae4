#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot the pvsched kernel in QEMU and measure guest wake-up latency.

The kernel boots with one CPU and -icount shift=0,sleep=off: its clocks
count emulated instructions (1 ns each), so time inside is virtual, and
the vCPU thread, the host's CPU hogs and the kernel's workers all share
that one CPU. The RTC runs on that clock too, from a fixed date
(-rtc clock=vm), the initramfs is reproducible and the VM prints its
results only after the measurements: with the host's wall clock in the
boot, or a console that stalls the guest, runs differed; now a run
repeats the last one exactly if what it boots is the same. Inside,
minivmm runs the latency payload (one vCPU): every --period-us the guest
arms its LAPIC timer in TSC-deadline mode and halts (or spins); its
timer handler reads the TSC
and records wake-up latency = handler time - deadline, as cyclictest
does, with no exit per sample. Each case runs with or without busy
loops (ci/tests/hog.c, nice 0) beside the vCPU thread and under a
different driver; a run of the hogs alone gives their full rate. The
cases take turns for --reps rounds. The latency figures and the plot are
over all rounds' samples together (minivmm --latency-samples), the
counters (boosts, throttles, the hogs' share) those of the round with the
median p99.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# ci/vmrun.py: a script run by path has its own directory in sys.path[0].
import vmrun

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
# The runs' own QEMU options, added to ci/vm-run's command line (vmrun):
# virtual time, the RTC from a fixed date on that clock.
QEMU_ARGS = "-icount shift=0,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm"

# (case, label, hogs?, minivmm options). The guest halts between shots,
# as cyclictest's thread sleeps, unless --wait=spin.
CASES = (
    ("idle", "idle host, no driver", False, "--pvsched="),
    ("hog", "CPU hogs, no driver", True, "--pvsched="),
    # The guest raises PVSCHED_GUEST_BOOST around each wait: its vCPU
    # sleeps boosted and its wake-up preempts the hogs.
    ("boost", "CPU hogs, pvsched_boost", True,
     "--pvsched=pvsched_boost --boost=wait"),
    ("bpfboost", "CPU hogs, bpf_pvsched_boost", True,
     "--pvsched=bpf_pvsched_boost --boost=wait"),
    ("static", "CPU hogs, vCPU SCHED_FIFO 1 (chrt)", True,
     "--pvsched= --vcpu-fifo=1"),
    # The same plus PVSCHED_GUEST_BOOST_IRQ, and that flag alone: a tick
    # that finds the vCPU preempted or halted unboosted boosts it (WAKEUP,
    # applied by a kernel worker).
    ("boostirq", "CPU hogs, pvsched_boost, + BOOST_IRQ", True,
     "--pvsched=pvsched_boost --boost=wait --boost-irq"),
    ("irqonly", "CPU hogs, pvsched_boost, BOOST_IRQ only", True,
     "--pvsched=pvsched_boost --boost-irq"),
    # A guest that spins between shots: its ticks find its thread
    # running or preempted, never halted.
    ("spinhog", "spinning, CPU hogs, no driver", True,
     "--pvsched= --wait=spin"),
    ("spinirq", "spinning, CPU hogs, BOOST_IRQ", True,
     "--pvsched=pvsched_boost --boost-irq --wait=spin"),
    # A guest that never drops its request: the bounds throttle it.
    ("hold", "spinning, CPU hogs, BOOST held", True,
     "--pvsched=pvsched_boost --boost=hold --wait=spin"),
)

# RFC v1 (Dec 2023), cyclictest -i 500 under stress-ng on an Intel N4500:
# (label, average us, max us)
V1 = (
    ("vanilla", 887, 216835),
    ("dynamic boost (v1, in KVM)", 21, 13978),
    ("static RT vCPU", 25, 1728),
)

SETUP = [
    "insmod /lib/modules/pvsched_boost.ko || exit 1",
    "pvsched-bpf load boost >/dev/null || exit 1",
    'echo "LAT-CONFIG base_slice_ns $(cat '
    '/sys/kernel/debug/sched/base_slice_ns 2>/dev/null || echo -)"',
    'for s in prio max_us share_pct; do echo "LAT-CONFIG pvsched_boost_$s '
    '$(cat /proc/sys/kernel/pvsched_boost_$s)"; done',
    'echo "LAT-CONFIG release $(uname -r)"',
    'echo "LAT-CONFIG cpus $(nproc)"',
]


class LatencyError(Exception):
    pass


def vm_script(args):
    """The shell script the VM runs: setup, then the rounds of cases."""
    lines = ["#!/bin/sh"] + SETUP
    lines += [
        "hogs_start() {",
        "\thogpids=",
        "\ti=0",
        "\twhile [ $i -lt %d ]; do" % args.hogs,
        "\t\t/tests/hog > /tmp/hog.$i &",
        "\t\thogpids=\"$hogpids $!\"",
        "\t\ti=$((i + 1))",
        "\tdone",
        "}",
        "hogs_stop() {",
        "\tkill $hogpids",
        "\twait $hogpids",
        "\tcat /tmp/hog.* | sed \"s/^/LAT-HOG $1 $2 /\" >> /tmp/results",
        "\trm -f /tmp/hog.*",
        "}",
        "run() {",
        "\tcase=$1 rnd=$2 hogs=$3",
        "\tshift 3",
        "\t[ $hogs = 0 ] || hogs_start",
        "\tminivmm \"$@\" --payload=latency --vcpus=1 --period-us=%d "
        "--iterations=%d --latency-samples --json >/tmp/out 2>/tmp/err"
        % (args.period_us, args.samples),
        "\trc=$?",
        "\t[ $hogs = 0 ] || hogs_stop $case $rnd",
        "\techo \"LAT-JSON $case $rnd $rc $(cat /tmp/out)\" >> /tmp/results",
        "\t[ $rc -eq 0 ] || sed \"s/^/LAT-STDERR /\" /tmp/err >> /tmp/results",
        "\techo \"LAT-PROGRESS $case $rnd $rc\"",
        "}",
    ]
    for rnd in range(args.reps):
        # The hogs alone, for their full rate, as long as a case runs.
        lines.append("hogs_start; sleep %g; hogs_stop alone %d" %
                     (args.samples * args.period_us / 1e6, rnd))
        for name, _, hogs, opts in CASES:
            lines.append("run %s %d %d %s" % (name, rnd, 1 if hogs else 0,
                                              opts))
    # The results only now: a console that writes slower than the guest
    # does (QEMU's serial on a pipe) would stall it at host-dependent
    # points of its virtual time, and the runs would not repeat.
    lines.append("cat /tmp/results")
    return "\n".join(lines) + "\n"


def kernel_config():
    """What shapes the baseline: HZ, the preemption model, NO_HZ."""
    cfg = {}
    path = os.path.join(BUILD, "obj", "main", ".config")
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("CONFIG_HZ="):
                cfg["hz"] = int(line.split("=")[1])
            for model in ("PREEMPT_NONE", "PREEMPT_VOLUNTARY", "PREEMPT",
                          "PREEMPT_RT", "PREEMPT_DYNAMIC"):
                if line == "CONFIG_%s=y" % model:
                    cfg.setdefault("preempt", []).append(model)
            for nohz in ("HZ_PERIODIC", "NO_HZ_IDLE", "NO_HZ_FULL"):
                if line == "CONFIG_%s=y" % nohz:
                    cfg["tick"] = nohz
    return cfg


def boot(args):
    """Boot the pvsched kernel, run the cases; return (config, runs)."""
    script = os.path.join(BUILD, "latency-vm.sh")
    log = os.path.join(BUILD, "latency.log")
    with open(script, "w") as f:
        f.write(vm_script(args))
    os.chmod(script, 0o755)

    env = dict(os.environ, VMRUN_QUIET="")   # the console is read here
    cmd = vmrun.command(QEMU_ARGS, "-a", "quiet", "-l", log, "-k", BUILD,
                        "-t", str(args.timeout),
                        "-f", script + ":/root/latency.sh", "/root/latency.sh")
    print("==> [latency] %d rounds of %d cases, %d samples each, "
          "%d hog(s), QEMU -smp 1 %s (log %s)" %
          (args.reps, len(CASES), args.samples, args.hogs, QEMU_ARGS, log),
          flush=True)

    cfg = {}
    runs = {}
    hogs = {}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)
    for line in proc.stdout:
        line = line.rstrip("\n")
        if args.verbose:
            print("   ", line)
        if not line.startswith("LAT-"):
            continue
        tag, _, rest = line.partition(" ")
        if tag == "LAT-CONFIG":
            key, _, val = rest.partition(" ")
            cfg[key] = val
        elif tag == "LAT-JSON":
            name, rnd, rc, js = (rest.split(" ", 3) + [""])[:4]
            try:
                rep = json.loads(js)
            except ValueError:
                rep = None
            runs[(name, int(rnd))] = {"status": int(rc), "report": rep}
        elif tag == "LAT-PROGRESS":
            name, rnd, rc = rest.split(" ")
            print("    %s round %s: exit %s" % (name, rnd, rc), flush=True)
        elif tag == "LAT-HOG":
            name, rnd, text = rest.split(" ", 2)
            rate = None
            for word in text.split():
                if word.startswith("rate="):
                    rate = float(word[5:])
            hogs.setdefault((name, int(rnd)), []).append(rate)
        elif tag == "LAT-STDERR":
            print("    minivmm:", rest, file=sys.stderr)
    rc = proc.wait()
    if rc != 0:
        raise LatencyError("the VM ended with status %d, see %s" % (rc, log))
    return cfg, runs, hogs


def percentile(sorted_ns, permille):
    """Nearest rank, as minivmm's: the ceil(p * n)-th smallest."""
    n = len(sorted_ns)
    rank = -(-permille * n // 1000)
    return sorted_ns[max(rank, 1) - 1]


def pooled_stats(samples):
    """minivmm's statistics over the samples of all rounds."""
    ns = sorted(samples)
    return {
        "samples": len(ns), "min_ns": ns[0], "max_ns": ns[-1],
        "mean_ns": round(sum(ns) / len(ns)),
        "p50_ns": percentile(ns, 500), "p99_ns": percentile(ns, 990),
        "p999_ns": percentile(ns, 999),
    }


def check_run(name, rnd, run, args):
    where = "%s round %d" % (name, rnd)
    rep = run.get("report")
    if run["status"] != 0 or not rep:
        raise LatencyError("%s: minivmm exited %d" % (where, run["status"]))
    vcpu = rep["vcpu"][0]
    lat = vcpu.get("latency")
    if not rep["ok"] or vcpu["result"] != "done" or not lat or \
            lat["samples"] != args.samples or \
            len(lat.get("samples_ns", [])) != args.samples:
        raise LatencyError("%s: %s, %s samples of %d" %
                           (where, vcpu["result"],
                            lat and lat["samples"], args.samples))
    return rep, vcpu, lat


def summarize(runs, hogs, args):
    alone = [r for rnd in range(args.reps) for r in hogs.get(("alone", rnd),
                                                             [])]
    if len(alone) != args.reps * args.hogs or None in alone:
        raise LatencyError("the hogs alone reported %s" % alone)
    alone_rate = statistics.median(alone)
    results = []
    for name, label, with_hogs, opts in CASES:
        rounds = []
        pool = []
        for rnd in range(args.reps):
            run = runs.get((name, rnd))
            if not run:
                raise LatencyError("%s round %d: no result" % (name, rnd))
            rep, vcpu, lat = check_run(name, rnd, run, args)
            rates = hogs.get((name, rnd), [])
            if with_hogs and (len(rates) != args.hogs or None in rates):
                raise LatencyError("%s round %d: hogs reported %s" %
                                   (name, rnd, rates))
            area = vcpu.get("pvsched_area") or {}
            pool += lat.pop("samples_ns")
            rounds.append({
                "round": rnd,
                "latency": lat,
                "hog_rate": sum(rates) if with_hogs else None,
                "boosts": area.get("boosts"),
                "throttles": area.get("throttles"),
                "boosted_ns": area.get("boosted_ns"),
                "run_ns": vcpu.get("run_ns"),
                "driver": rep["driver"]["final"],
            })
        p99s = [r["latency"]["p99_ns"] for r in rounds]
        med = sorted(rounds, key=lambda r: r["latency"]["p99_ns"])[
            (len(rounds) - 1) // 2]
        res = {
            "case": name, "label": label, "hogs": args.hogs if with_hogs
            else 0, "options": opts,
            # The latency figures: all rounds' samples together.
            "latency": pooled_stats(pool),
            "samples_sorted": sorted(pool),
            # The counters: the round with the median p99.
            "median_round": med,
            "p99_ns_rounds": p99s,
            "p99_spread_pct": (max(p99s) - min(p99s)) / max(med["latency"][
                "p99_ns"], 1) * 100,
        }
        if with_hogs:
            # The hogs' share of the CPU: their rate against theirs alone.
            res["hog_share_pct"] = med["hog_rate"] / (alone_rate *
                                                      args.hogs) * 100
        if med["boosted_ns"] is not None and med["run_ns"]:
            res["boosted_pct_of_run"] = med["boosted_ns"] / med["run_ns"] \
                * 100
        results.append(res)
    return alone_rate, results


def targets(results, args):
    by = {r["case"]: r for r in results}

    def p99(c):
        return by[c]["latency"]["p99_ns"]
    out = []
    out.append(("pvsched_boost p99 at least 10x lower than no driver",
                p99("hog") >= 10 * p99("boost"),
                "%.1fx" % (p99("hog") / max(p99("boost"), 1))))
    out.append(("pvsched_boost p99 within 2x of the static SCHED_FIFO vCPU",
                p99("boost") <= 2 * p99("static"),
                "%.2fx" % (p99("boost") / max(p99("static"), 1))))
    # "Within", as for the static row above: no worse than, here by more
    # than 10%; a lower p99 than the module's is no miss.
    out.append(("bpf_pvsched_boost p99 within 10% of pvsched_boost",
                p99("bpfboost") <= 1.1 * p99("boost"),
                "%+.1f%%" % ((p99("bpfboost") / max(p99("boost"), 1) - 1)
                             * 100)))
    # A guest that never drops its request is boosted for at most
    # share_pct of each window; the rest of the CPU is shared fairly, so
    # the hogs keep at least (100 - share) * hogs / (hogs + 1) percent.
    share = args.share_pct
    bound = (100 - share) * args.hogs / (args.hogs + 1)
    got = by["hold"]["hog_share_pct"]
    out.append(("hogs keep >= %.0f%% of the CPU against a guest that holds "
                "its boost (share %d%%)" % (bound, share), got >= bound,
                "%.1f%%" % got))
    return out


def us(ns):
    return ns / 1000.0


def print_table(cfg, alone_rate, results, tgts, args):
    print()
    print("Guest wake-up latency, us of virtual time (QEMU %s, 1 CPU), "
          "%d samples every %d us," % (QEMU_ARGS, args.samples,
                                       args.period_us))
    print("all %d rounds' samples together; %d nice-0 hog(s) beside the "
          "vCPU thread where marked" % (args.reps, args.hogs))
    print()
    hdr = "%-40s %8s %8s %8s %8s %9s %9s | %6s %6s %6s %7s" % (
        "case", "min", "mean", "p50", "p99", "p99.9", "max", "hogs%",
        "boosts", "thrtl", "boost%")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        m = r["median_round"]
        lat = r["latency"]
        print("%-40s %8.1f %8.1f %8.1f %8.1f %9.1f %9.1f | %6s %6s %6s %7s"
              % (r["label"], us(lat["min_ns"]), us(lat["mean_ns"]),
                 us(lat["p50_ns"]), us(lat["p99_ns"]), us(lat["p999_ns"]),
                 us(lat["max_ns"]),
                 "%.1f" % r["hog_share_pct"] if "hog_share_pct" in r
                 else "-",
                 m["boosts"] if m["boosts"] is not None else "-",
                 m["throttles"] if m["throttles"] is not None else "-",
                 "%.1f" % r["boosted_pct_of_run"]
                 if "boosted_pct_of_run" in r else "-"))
    print()
    print("hogs%, boosts, thrtl, boost%: of the round with the median "
          "p99. hogs%: the hogs' loop rate against")
    print("theirs alone (%.3g iterations/s each); boost%%: the vCPU "
          "thread's boosted CPU time over its run time." % alone_rate)
    print("p99 spread over the rounds: "
          + ", ".join("%s %.1f%%" % (r["case"], r["p99_spread_pct"])
                      for r in results))
    print()
    print("RFC v1 (Intel N4500, cyclictest -i 500 under stress-ng), us:")
    for label, avg, mx in V1:
        print("  %-36s avg %6d  max %8d" % (label, avg, mx))
    print()
    print("Config: HZ=%s, %s, %s, base_slice_ns %s; pvsched_boost prio %s, "
          "max_us %s, share_pct %s" % (
              cfg.get("hz"), "+".join(cfg.get("preempt", [])) or "-",
              cfg.get("tick"), cfg.get("base_slice_ns"),
              cfg.get("pvsched_boost_prio"), cfg.get("pvsched_boost_max_us"),
              cfg.get("pvsched_boost_share_pct")))
    print()
    print("Targets:")
    for what, ok, val in tgts:
        print("  %-66s %s (%s)" % (what, "met" if ok else "MISSED", val))


# Line colours and dash types per case: halted guests solid, spinning
# guests dashed; no driver grey/black, static RT gold, boosts in colour.
STYLE = {
    "idle": ("#999999", 1), "hog": ("#000000", 1), "boost": ("#1f77b4", 1),
    "bpfboost": ("#17becf", 1), "static": ("#d4a017", 1),
    "boostirq": ("#2ca02c", 1), "irqonly": ("#9467bd", 1),
    "spinhog": ("#000000", 2), "spinirq": ("#d62728", 2),
    "hold": ("#ff7f0e", 2),
}


def plot(results, samples, png):
    """Latency CDFs of the cases on log scales (gnuplot), from every
    sample of every round: the CDF, and its complement on log-log axes
    for the tails. The points go to PNG's name with .dat."""
    data = png[:-4] + ".dat"
    with open(data, "w") as f:
        for r in results:
            ns = samples[r["case"]]
            total = len(ns)
            f.write("# %s\n" % r["label"])
            for i, v in enumerate(ns):
                # The last of equal values: fraction <= x, > x (min 1e-5)
                if i + 1 < total and ns[i + 1] == v:
                    continue
                f.write("%g %g %g\n" % (us(max(v, 100)), (i + 1) / total,
                                         max(1 - (i + 1) / total, 1e-5)))
            f.write("\n\n")
    gp = [
        "set terminal pngcairo size 1500,650 font ',10' noenhanced",
        "set output '%s'" % png,
        "set multiplot layout 1,2 title 'Guest wake-up latency, 1 vCPU, "
        "QEMU -icount virtual time (make latency); solid: guest halts "
        "between shots, dashed: spins'",
        "set logscale x",
        "set grid",
        "set xlabel 'wake-up latency (us)'",
        "set ylabel 'fraction of wake-ups <= x'",
        "set yrange [0:1.02]",
        "set key right bottom",
    ]

    def plots(col):
        return "plot " + ", ".join(
            "'%s' index %d using 1:%d with steps lw 2 lc rgb '%s' dt %d "
            "title '%s'" % (data, i, col, STYLE.get(r["case"], ("#000000",
                                                                  1))[0],
                           STYLE.get(r["case"], ("#000000", 1))[1],
                           r["label"] if col == 2 else "")
            for i, r in enumerate(results))
    gp.append(plots(2))
    gp += [
        "set logscale y",
        "set yrange [1e-4:1.2]",
        "set ylabel 'fraction of wake-ups later than x'",
        "unset key",
    ]
    gp.append(plots(3))
    gp.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True,
                   check=True)


def compare(a, b):
    """p99 of each case in two result files; 1 if any differs by > 5%."""
    with open(a) as f:
        ra = {r["case"]: r for r in json.load(f)["results"]}
    with open(b) as f:
        rb = {r["case"]: r for r in json.load(f)["results"]}
    bad = 0
    print("%-40s %10s %10s %8s" % ("case", "p99 A", "p99 B", "diff"))
    for case, r in ra.items():
        pa = r["latency"]["p99_ns"]
        pb = rb[case]["latency"]["p99_ns"]
        diff = (pb - pa) / max(pa, 1) * 100
        ok = abs(diff) <= 5
        bad += not ok
        print("%-40s %10.1f %10.1f %+7.1f%%%s" % (r["label"], us(pa), us(pb),
                                                 diff, "" if ok else " !"))
    print("every p99 within 5%%: %s" % ("yes" if not bad else "NO"))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=5000,
                    help="wake-ups per run (default 5000)")
    ap.add_argument("--period-us", type=int, default=500,
                    help="timer period, us (default 500, cyclictest -i 500)")
    ap.add_argument("--hogs", type=int, default=2,
                    help="busy loops beside the vCPU thread (default 2)")
    ap.add_argument("--reps", type=int, default=3,
                    help="rounds of all cases (default 3)")
    ap.add_argument("--timeout", type=int, default=3600,
                    help="for the VM, seconds (default 3600)")
    ap.add_argument("--out", default=os.path.join(BUILD, "latency.json"))
    ap.add_argument("--png", default=os.path.join(BUILD, "latency.png"))
    ap.add_argument("--compare", nargs=2, metavar="JSON",
                    help="compare the p99s of two result files and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.compare:
        try:
            return compare(*args.compare)
        except (OSError, ValueError, KeyError) as e:
            print("latency: --compare: %s" % e, file=sys.stderr)
            return 2
    if args.samples < 100 or args.reps < 1 or args.hogs < 1:
        ap.error("need --samples >= 100, --reps >= 1, --hogs >= 1")

    t0 = time.time()
    try:
        cfg, runs, hogs = boot(args)
        cfg.update(kernel_config())
        args.share_pct = int(cfg.get("pvsched_boost_share_pct", 50))
        alone_rate, results = summarize(runs, hogs, args)
        tgts = targets(results, args)
    except (LatencyError, KeyError, ValueError) as e:
        print("latency: error: %s" % e, file=sys.stderr)
        return 1

    samples = {r["case"]: r.pop("samples_sorted") for r in results}
    print_table(cfg, alone_rate, results, tgts, args)
    out = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)),
        "qemu": vmrun.qemu_options(QEMU_ARGS),
        "config": cfg,
        "samples": args.samples, "period_us": args.period_us,
        "hogs": args.hogs, "reps": args.reps,
        "hog_rate_alone": alone_rate,
        "results": results,
        "targets": [{"what": w, "met": ok, "value": v} for w, ok, v in tgts],
        "rfc_v1": [{"case": c, "avg_us": a, "max_us": m} for c, a, m in V1],
    }
    with open(args.out + ".tmp", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(args.out + ".tmp", args.out)
    plot(results, samples, args.png)
    print("\nResults: %s, %s (%.0f s)" % (args.out, args.png,
                                          time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
