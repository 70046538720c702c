#!/usr/bin/env bash
# Memory over a long run at full speed: bench/plans/long.plan (10 minutes, concurrency 50,
# against the in-process reference server), with the resident set size and the open file
# descriptors sampled every 10 s. Prints the samples and the change from minute 1 to the end.
#
#   bench/long.sh [DURATION=10m] [RUN OPTIONS…]     # e.g. --set builtin.tls=true for https
source "$(dirname "$0")/common.sh"
duration=${1:-10m}
shift || true
build_release
rm -rf "$out/long"
"$bot" run "$root/bench/plans/long.plan" --duration "$duration" --out "$out/long" --quiet "$@" &
pid=$!
samples="$out/long-samples.txt"
sample_until_exit "$pid" "$samples"
wait "$pid" || true
python3 - "$out/long/long-latest.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
attempts = sum(e["attempts"] for e in report["endpoints"].values())
print(f'{attempts} attempts, {report["throughput"]["attempts_per_s"]} attempts/s over {report["duration_s"]} s')
PY
flatness "$samples"
