#!/usr/bin/env bash
# The model checker alone with its three refinements (--refinement suffix,
# core, interpolants) on the seeds and on the public tasks whose
# unreach-call verdict is true: goals covered, proved unreachable and open,
# predicates, refinements (failed ones too), solver queries and, for
# interpolants, the paths sent and those that got none, per program and
# refinement, one line each.
#
# usage: [REFINEMENTS="suffix interpolants"] bench/cegar/refinement.sh [SECONDS] [WALKDOWN] [SHARED]
#        (defaults: 15, target/release/walkdown, ../shared)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
secs="${1:-15}"
wd="${2:-$here/../../target/release/walkdown}"
shared="${3:-$here/../../../shared}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
programs=("$shared"/bench/seeds/{all_tens,sixth_four,counter_branches,unreach_goal}.c)
for y in "$shared"/bench/sv/*/*.yml; do
  if grep -A1 "unreach-call.prp" "$y" | grep -q "expected_verdict: true"; then programs+=("$y"); fi
done
printf '%-44s %-7s %6s %7s %7s %5s %6s %5s %6s %8s %6s\n' program refine goals covered unreach open preds refs failed queries itp/no
for p in "${programs[@]}"; do
  for r in ${REFINEMENTS:-suffix core interpolants}; do
    out="$tmp/out"
    rm -rf "$out"
    "$wd" gen "$p" --engine cegar --refinement "$r" --jobs 1 --time "$secs" --out "$out" --quiet >/dev/null 2>&1 || true
    python3 - "$out/report.json" "${p#$shared/bench/}" "$r" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception:
    print(f"{sys.argv[2]:<44} {sys.argv[3]:<7} (no report)")
    sys.exit(0)
c = next((e["figures"] for e in r["engines"] if e["name"] == "cegar"), {})
i = lambda k: int(c.get(k, 0))
print(f'{sys.argv[2]:<44} {sys.argv[3][:7]:<7} {r["goals_total"]:>6} {r["goals_covered"]:>7} {r["goals_unreachable"]:>7} {r["goals_open"]:>5} '
      f'{i("predicates"):>6} {i("refinements"):>5} {i("failed_refinements"):>6} {i("queries"):>8} '
      f'{i("interpolations")}/{i("interpolation_failures")}')
PY
  done
done
