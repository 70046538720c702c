#!/usr/bin/env bash
# Memory over a long run at full speed: bench/plans/long.plan (10 minutes, concurrency 50,
# against the in-process reference server), with the resident set size and the open file
# descriptors sampled every 10 s. Prints the samples and the change from minute 1 to the end.
#
#   bench/long.sh [DURATION=10m]
source "$(dirname "$0")/common.sh"
duration=${1:-10m}
build_release
rm -rf "$out/long"
"$bot" run "$root/bench/plans/long.plan" --duration "$duration" --out "$out/long" --quiet &
pid=$!
samples="$out/long-samples.txt"
: >"$samples"
elapsed=0
while kill -0 "$pid" 2>/dev/null; do
    sleep 10
    elapsed=$((elapsed + 10))
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    fds=$( (ls "/proc/$pid/fd" 2>/dev/null || true) | wc -l)
    [ -n "$rss" ] && printf '%5d s  RSS %7.1f MB  fds %d\n' "$elapsed" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$fds" | tee -a "$samples"
done
wait "$pid" || true
python3 - "$samples" "$out/long/long-latest.json" <<'PY'
import json, re, sys
rows = [re.findall(r"[\d.]+", line) for line in open(sys.argv[1])]
rows = [(int(r[0]), float(r[1]), int(r[2])) for r in rows if len(r) >= 3]
report = json.load(open(sys.argv[2]))
attempts = sum(e["attempts"] for e in report["endpoints"].values())
print(f'{attempts} attempts, {report["throughput"]["attempts_per_s"]} attempts/s over {report["duration_s"]} s')
minute1 = next((r for r in rows if r[0] >= 60), rows[0])
last = rows[-1]
print(f'RSS at {minute1[0]} s: {minute1[1]:.1f} MB; at {last[0]} s: {last[1]:.1f} MB; change {100 * (last[1] - minute1[1]) / minute1[1]:+.1f}%')
print(f'open fds: min {min(r[2] for r in rows)}, max {max(r[2] for r in rows)}')
PY
