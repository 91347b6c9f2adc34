#!/usr/bin/env python3
"""The experiment of the verification-annotations paper on walkdown: for each
program, annotation source and configuration (uv, pv, may, must, may+must),
`walkdown gen --engine concolic --jobs 1 --mutation-share 0` with errors as
the goal; tests generated, runs, time to the first and the last error, errors
found, each against UV of the same source.

Programs: the project's annotated fixtures (crates/walkdown/tests/annotations),
the seeds with errors and the public tasks whose error is reachable
(unreach-call=false in their task file) from SHARED/bench.

usage: experiment.py WALKDOWN SHARED OUT [--time S] [--property P] [--only SUBSTR]
"""
import argparse, glob, json, os, re, subprocess, sys, time

CONFIGS = ["uv", "pv", "may", "must", "may+must"]

def programs(root, shared):
    out = []
    for f in sorted(glob.glob(os.path.join(root, "crates/walkdown/tests/annotations/*.c"))):
        out.append(("own", f, None, ["source", "self", "eva"]))
    seeds = os.path.join(shared, "bench/seeds")
    for f in sorted(glob.glob(os.path.join(seeds, "*.c"))):
        text = open(f, errors="replace").read()
        if "reach_error" not in text:
            continue
        srcs = ["source", "eva"] if "__VERIFIER_assert_verified" in text else ["self", "eva"]
        out.append(("seed", f, None, srcs))
    for y in sorted(glob.glob(os.path.join(shared, "bench/sv/*/*.yml"))):
        text = open(y).read()
        if not re.search(r"unreach-call\.prp\s*\n\s*expected_verdict:\s*false", text):
            continue
        m = re.search(r"input_files:\s*'?([^'\n]+)'?", text)
        dm = "ilp32" if "ILP32" in text else "lp64"
        out.append(("task", os.path.join(os.path.dirname(y), m.group(1).strip()), dm, ["self", "eva"]))
    return out

def run(walkdown, program, dm, source, config, prop, budget, out):
    cmd = [walkdown, "gen", "--quiet", "--jobs", "1", "--engine", "concolic", "--mutation-share", "0",
           "--time", str(budget), "--property", prop, "--annotations", source, "--verification", config,
           "--out", out, program]
    if dm:
        cmd[2:2] = ["--data-model", dm]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    try:
        r = json.load(open(os.path.join(out, "report.json")))
    except Exception:
        return {"failed": (p.stderr.strip().splitlines() or ["no report"])[-1], "wall_s": wall}
    tests = {t["file"]: t for t in r["tests"]}
    found = sorted(tests[e["test"]]["found_at_s"] for e in r["errors"] if e["test"] in tests)
    conc = next((e for e in r["engines"] if e["name"] == "concolic"), {"figures": {}})["figures"]
    ann = r.get("annotations") or {}
    checks = ann.get("checks", [])
    return {
        "tests": len(r["tests"]), "errors": len(r["errors"]),
        "runs": int(conc.get("executions", 0)), "pruned": int(conc.get("pruned", 0)),
        "tryfirst": int(conc.get("tryfirst", 0)),
        "first_s": found[0] if found else None, "last_s": found[-1] if found else None,
        "elapsed_s": r["elapsed_s"], "wall_s": wall,
        "verified": sum(1 for c in checks if c["status"] != "unverified"), "checks": len(checks),
        "reason": ann.get("instrumentation", {}).get("reason"),
        "error_locs": sorted(e["location"] for e in r["errors"]),
    }

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("walkdown"); ap.add_argument("shared"); ap.add_argument("out")
    ap.add_argument("--time", type=float, default=10)
    ap.add_argument("--property", default="coverage-error", choices=["coverage-error", "errors"])
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for kind, prog, dm, sources in programs(root, a.shared):
        if a.only not in prog:
            continue
        name = os.path.basename(prog)
        for src in sources:
            for c in CONFIGS:
                d = os.path.join(a.out, "runs", f"{name}.{src}.{c.replace('+', '_')}")
                row = {"kind": kind, "program": name, "source": src, "config": c}
                row.update(run(a.walkdown, prog, dm, src, c, a.property, a.time, d))
                rows.append(row)
                print(json.dumps(row), flush=True)
    json.dump(rows, open(os.path.join(a.out, "rows.json"), "w"), indent=1)
    # Per source and configuration, against UV of the same program and source.
    lines = [f"property {a.property}, --time {a.time}", "",
             "| source | config | programs | errors | tests | runs | pruned | first error s (sum) | last error s (sum) | lost vs uv | failed |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for src in ["source", "self", "eva"]:
        for c in CONFIGS:
            rs = [r for r in rows if r["source"] == src and r["config"] == c]
            if not rs:
                continue
            ok = [r for r in rs if "failed" not in r]
            lost = []
            for r in ok:
                uv = next((u for u in rows if u["program"] == r["program"] and u["source"] == src and u["config"] == "uv" and "failed" not in u), None)
                # coverage-error stops at the first error, whichever it is;
                # `errors` should find each one UV finds.
                if uv and (set(uv["error_locs"]) - set(r["error_locs"]) if a.property == "errors" else uv["errors"] > r["errors"]):
                    lost.append(r["program"])
            fs = lambda k: round(sum(r[k] for r in ok if r[k] is not None), 2)
            lines.append(f"| {src} | {c} | {len(ok)} | {sum(r['errors'] for r in ok)} | {sum(r['tests'] for r in ok)} | "
                         f"{sum(r['runs'] for r in ok)} | {sum(r['pruned'] for r in ok)} | {fs('first_s')} | {fs('last_s')} | "
                         f"{', '.join(lost) or '-'} | {len(rs) - len(ok)} |")
    text = "\n".join(lines) + "\n"
    open(os.path.join(a.out, "summary.md"), "w").write(text)
    print(text)

if __name__ == "__main__":
    main()
