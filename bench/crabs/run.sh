#!/usr/bin/env bash
# The Crabs experiment in spirit: coverage of Petri-net programs in the
# style of nsichneu (bench/crabs/gen_petri.py) after a budget of concolic
# search alone, the model checker alone, and the two alternating through
# the monitor, each on one worker. Prints one line per program and
# configuration: goals covered, proved unreachable, open, and the concolic
# engine's executions and monitor-pruned candidates.
#
# usage: bench/crabs/run.sh [SECONDS] [WALKDOWN]   (default 60, target/release/walkdown)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
secs="${1:-60}"
wd="${2:-$here/../../target/release/walkdown}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-10s %-16s %8s %8s %6s %6s %10s %8s\n' program engines goals covered unreach open executions pruned
for rounds in 2 9 17; do
  prog="$tmp/petri$rounds.c"
  python3 "$here/gen_petri.py" "$rounds" "$prog"
  for engines in concolic cegar concolic,cegar; do
    out="$tmp/out-$rounds-$engines"
    "$wd" gen "$prog" --engines "$engines" --jobs 1 --time "$secs" --out "$out" --quiet >/dev/null 2>&1 || true
    python3 - "$out/report.json" "petri$rounds" "$engines" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
goals = r["goals"]
count = lambda w: sum(1 for g in goals if g["status"] == w)
conc = next((e["figures"] for e in r["engines"] if e["name"] == "concolic"), {})
print(f'{sys.argv[2]:<10} {sys.argv[3]:<16} {len(goals):>8} {count("covered"):>8} {count("unreachable"):>6} {count("open"):>6} '
      f'{int(conc.get("executions", 0)):>10} {int(conc.get("monitor_pruned", 0)):>8}')
PY
  done
done
