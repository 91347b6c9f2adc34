#!/usr/bin/env python3
"""Frama-C EVA as walkdown's annotation source on the public tasks: for each
task, `walkdown analyze --annotations eva --eva-precision P`; how many error
checks EVA verifies (and under which premise), how long it takes, and on
which tasks its results cannot be used and why.

usage: eva_tasks.py WALKDOWN SHARED [--precision P ...] [--timeout S]
"""
import argparse, glob, os, re, subprocess, time

def tasks(shared):
    out = []
    for y in sorted(glob.glob(os.path.join(shared, "bench/sv/*/*.yml"))):
        text = open(y).read()
        m = re.search(r"input_files:\s*'?([^'\n]+)'?", text)
        dm = "ilp32" if "ILP32" in text else "lp64"
        out.append((os.path.join(os.path.dirname(y), m.group(1).strip()), dm))
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("walkdown"); ap.add_argument("shared")
    ap.add_argument("--precision", type=int, nargs="+", default=[0, 8])
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    print("| task | precision | EVA s | checks | verified | premise | alarms | not used because |")
    print("|---|---:|---:|---:|---:|---|---:|---|")
    totals = {}
    for prog, dm in tasks(a.shared):
        for p in a.precision:
            t0 = time.time()
            r = subprocess.run([a.walkdown, "analyze", "--data-model", dm, "--annotations", "eva", "--eva-precision", str(p),
                                "--eva-timeout", str(a.timeout), prog], capture_output=True, text=True)
            wall = time.time() - t0
            out = r.stdout + r.stderr
            fig = dict(re.findall(r"^  (eva_\w+): (.*)$", out, re.M))
            checks = re.findall(r"^  g\d+\terror [^\t]*\t[^\t]*\t([^\t]*)\tpremise (\S+)", out, re.M)
            verified = [c for c in checks if c[0] != "unverified"]
            premises = sorted({c[1] for c in verified})
            reason = fig.get("eva_reason", "")
            if r.returncode not in (0, 1) and not fig:
                reason = (out.strip().splitlines() or ["?"])[-1][:120]
            name = "/".join(prog.split("/")[-2:])
            print(f"| {name} | {p} | {fig.get('eva_time_s', f'{wall:.2f}')} | {len(checks)} | {len(verified)} | {', '.join(premises) or '-'} | {fig.get('eva_alarms', '-')} | {reason[:100] or '-'} |", flush=True)
            t = totals.setdefault(p, {"tasks": 0, "checks": 0, "verified": 0, "tasks_verified": 0, "failed": 0, "time": 0.0})
            t["tasks"] += 1; t["checks"] += len(checks); t["verified"] += len(verified)
            t["tasks_verified"] += bool(verified); t["failed"] += bool(reason)
            t["time"] += float(fig.get("eva_time_s", wall))
    print()
    for p, t in totals.items():
        print(f"precision {p}: {t['tasks']} tasks, {t['checks']} error checks, {t['verified']} verified (on {t['tasks_verified']} tasks), "
              f"results not used on {t['failed']} tasks, EVA time {t['time']:.1f} s in all")

if __name__ == "__main__":
    main()
