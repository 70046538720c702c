#!/usr/bin/env bash
# Memory of 10,000 concurrent respondents with think time against the in-process reference
# server (bench/plans/crowd.plan), measured by /usr/bin/time -v: the peak resident set.
#
#   bench/memory.sh
source "$(dirname "$0")/common.sh"
command -v /usr/bin/time >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq time >/dev/null; }
build_release
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
rm -rf "$out/crowd"
/usr/bin/time -v "$bot" run "$root/bench/plans/crowd.plan" --out "$out/crowd" --quiet 2>"$out/crowd-time.txt" || true
peak=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$out/crowd-time.txt")
wall=$(awk '/Elapsed \(wall clock\)/ { print $NF }' "$out/crowd-time.txt")
python3 - "$out/crowd/crowd-latest.json" "$peak" "$wall" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
peak_mb = int(sys.argv[2]) / 1024
print(f'{r["respondents"]["started"]} respondents, {r["respondents"]["completed"]} completed, '
      f'{r["endpoints"]["submit"]["attempts"]} submits, wall {sys.argv[3]}')
print(f'peak RSS: {peak_mb:.1f} MB (target: under 150 MB)')
PY
