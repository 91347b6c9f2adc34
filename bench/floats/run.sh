#!/usr/bin/env bash
# Symbolic floats against concrete ones (--no-symbolic-floats) on the float
# programs of this directory and the float tasks of the benchmark checkout
# (../shared/bench/sv/float-benchs, skipped when absent): goals covered,
# float queries (sat / unknown / concrete fallbacks) and their time, and
# whether every kept test ends natively (gcc) as it ends in the
# interpreter (walkdown run vs walkdown replay, one by one).
#
#   bench/floats/run.sh [SECONDS]     (default 10 per run)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
wd="$root/target/release/walkdown"
time=${1:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
shared=${WALKDOWN_SHARED:-$root/../shared}
programs=("$here"/*.c)
if [ -d "$shared/bench/sv/float-benchs" ]; then
  programs+=("$shared"/bench/sv/float-benchs/*.yml)
else
  echo "(no $shared/bench/sv/float-benchs: benchmark tasks skipped)" >&2
fi
printf '%-12s %-9s %7s %6s %5s %7s %8s %7s %9s\n' program floats covered fp_q fp_sat fp_unkn fallback fp_s disagree
for p in "${programs[@]}"; do
  name=$(basename "$p"); name=${name%.*}
  src=$p
  if [[ $p == *.yml ]]; then src=${p%.yml}.c; fi
  dm=LP64
  if [[ $p == *.yml ]] && grep -q 'data_model: ILP32' "$p"; then dm=ILP32; fi
  for mode in symbolic concrete; do
    flag=(); [ $mode = concrete ] && flag=(--no-symbolic-floats)
    dir="$out/$name-$mode"
    "$wd" gen "$p" --time "$time" --out "$dir" "${flag[@]}" >/dev/null 2>&1 || true
    read -r covered total q sat unk fb s < <(python3 - "$dir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = next((e['figures'] for e in r['engines'] if e['name'] == 'concolic'), {})
g = lambda k: f.get(k, 0)
print(r['goals_covered'], r['goals_total'], int(g('fp_queries')), int(g('fp_sat')), int(g('fp_unknown')),
      int(g('fp_fallbacks')), round(g('fp_s'), 2))
PY
)
    bad=0
    for t in "$dir"/test-suite/test-*.xml; do
      [ -e "$t" ] || continue
      mine=$("$wd" run "$src" --test "$t" --data-model $dm 2>/dev/null | sed -n 's/^outcome: //p' | sed -E 's/^error reach_error.*/reach_error/; s/^error assertion.*/assertion/' || true)
      native=$("$wd" replay "$src" "$t" --data-model $dm 2>/dev/null | head -1 | sed -E 's/^[^:]*: //; s/ \(.*//; s/^reach_error reached/reach_error/; s/^assertion failed.*/assertion/' || true)
      [ "$mine" = "$native" ] || { bad=$((bad + 1)); echo "  $name $mode $(basename "$t"): interpreter '$mine', native '$native'" >&2; }
    done
    printf '%-12s %-9s %7s %6s %5s %7s %8s %7s %9s\n' "$name" $mode "$covered/$total" "$q" "$sat" "$unk" "$fb" "$s" "$bad"
  done
done
