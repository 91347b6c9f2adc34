#!/usr/bin/env bash
# Correctness witnesses on the public tasks whose unreach-call verdict is
# true: for each, the default `gen` with the given budget, then whether every
# reach_error goal ended unreachable (and by which engines), the witness's
# status, its invariants and the checks it passed, one line per task.
#
# usage: bench/witness/run.sh [SECONDS] [WALKDOWN] [SHARED] [OUTDIR]
#        (defaults: 30, target/release/walkdown, ../shared, a temporary dir)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
secs="${1:-30}"
wd="${2:-$here/../../target/release/walkdown}"
shared="${3:-$here/../../../shared}"
outdir="${4:-$(mktemp -d)}"
printf '%-44s %6s %-12s %-11s %5s %6s %8s  %s\n' task time reach_error witness invs tests queries reason
for y in "$shared"/bench/sv/*/*.yml; do
  grep -A1 "unreach-call.prp" "$y" | grep -q "expected_verdict: true" || continue
  name="${y#$shared/bench/sv/}"
  out="$outdir/${name//\//__}"
  rm -rf "$out"
  start=$(date +%s.%N)
  "$wd" gen "$y" --jobs 1 --time "$secs" --out "$out" --quiet >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  python3 - "$out/report.json" "$name" "$(echo "$end - $start" | bc)" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print(f"{sys.argv[2]:<44} (no report)")
    sys.exit(0)
re = [g for g in r["goals"] if g.get("kind") == "error reach_error"]
unreach = [g for g in re if g.get("status") == "unreachable"]
engines = sorted({g.get("proved_by", "?").split(":")[0] for g in unreach})
w = r.get("witness") or {}
print(f'{sys.argv[2]:<44} {float(sys.argv[3]):>6.1f} {len(unreach):>2}/{len(re):<2} {"+".join(engines)[:7]:<8} {w.get("status","-"):<11} '
      f'{w.get("loop_invariants",0):>5} {w.get("tests_checked",0):>6} {w.get("inductiveness_queries",0):>8}  {w.get("reason","")[:70]}')
PY
done
