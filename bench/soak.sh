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
sample_until_exit "$pid" "$samples"
wait "$pid" || true
accepted=$(python3 -c 'import json,urllib.request; print(json.load(urllib.request.urlopen("http://127.0.0.1:18082/__stats"))["connections"]["accepted"])')
python3 - "$out/soak/soak-latest.json" "$accepted" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
attempts = sum(e["attempts"] for e in report["endpoints"].values())
print(f'{attempts} attempts, {report["throughput"]["attempts_per_s"]} attempts/s over {report["duration_s"]} s, '
      f'{sys.argv[2]} connections opened and closed, {report["respondents"]["completed"]} respondents completed')
PY
flatness "$samples"
