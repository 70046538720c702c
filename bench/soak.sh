#!/usr/bin/env bash
# Soak: ten minutes at a steady rate (bench/plans/soak.plan) against `survey-bot serve` with
# --close-connections, so that every request opens and closes a connection of its own. The
# run's resident set size and open file descriptors are sampled every 10 s; both must stay flat.
#
#   bench/soak.sh [DURATION=10m]
source "$(dirname "$0")/common.sh"
duration=${1:-10m}
build_release
"$bot" serve --port 18082 --close-connections >"$out/soak-serve.log" 2>&1 &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null || true' EXIT
wait_for_port 18082
rm -rf "$out/soak"
"$bot" run "$root/bench/plans/soak.plan" --duration "$duration" --out "$out/soak" --quiet &
pid=$!
samples="$out/soak-samples.txt"
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
accepted=$(python3 -c 'import json,urllib.request; print(json.load(urllib.request.urlopen("http://127.0.0.1:18082/__stats"))["connections"]["accepted"])')
python3 - "$samples" "$out/soak/soak-latest.json" "$accepted" <<'PY'
import json, re, sys
rows = [re.findall(r"[\d.]+", line) for line in open(sys.argv[1])]
rows = [(int(r[0]), float(r[1]), int(r[2])) for r in rows if len(r) >= 3]
report = json.load(open(sys.argv[2]))
attempts = sum(e["attempts"] for e in report["endpoints"].values())
print(f'{attempts} attempts, {report["throughput"]["attempts_per_s"]} attempts/s over {report["duration_s"]} s, '
      f'{sys.argv[3]} connections opened and closed, {report["respondents"]["completed"]} respondents completed')
minute1 = next((r for r in rows if r[0] >= 60), rows[0])
last = rows[-1]
print(f'RSS at {minute1[0]} s: {minute1[1]:.1f} MB; at {last[0]} s: {last[1]:.1f} MB; change {100 * (last[1] - minute1[1]) / minute1[1]:+.1f}%')
print(f'open fds: at {minute1[0]} s {minute1[2]}, at {last[0]} s {last[2]}, max {max(r[2] for r in rows)}')
PY
