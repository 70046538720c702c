#!/usr/bin/env bash
# What the exports cost the load: `survey-bot run plans/stress.plan` against nginx, plain, with
# `--raw` (every attempt written as a JSON line), and with `--raw --metrics-listen` (live metrics
# rendered every second and scraped every second by curl). Runs alternate, ROUNDS times each, and
# the script prints each variant's best attempts/s and its ratio to the plain run's, with the
# raw lines dropped (they should be 0 on a disk that keeps up).
#
#   bench/exports.sh [CONCURRENCY=50] [DURATION=5] [ROUNDS=2]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
rounds=${3:-2}

need_packages
build_release
start_nginx 18081
base=http://127.0.0.1:18081

run() { # run NAME EXTRA-ARGS…: one run into $out/exports-NAME, prints attempts/s
    local name=$1
    shift
    rm -rf "$out/exports-$name"
    "$bot" run "$root/plans/stress.plan" --concurrency "$concurrency" --duration "${duration}s" --target "$base" \
        --out "$out/exports-$name" --format json --quiet "$@" || true
    report_rate "$out/exports-$name/stress-latest.json"
}

best() { tr ' ' '\n' | sort -n | tail -1; }

plain=() raw=() live=()
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds: ${duration}s each, concurrency $concurrency"
    plain+=("$(run plain)")
    raw+=("$(run raw --raw "$out/exports-attempts.jsonl")")
    # A scraper every second while the run goes on, on a port picked ahead.
    port=$((19000 + round))
    (for _ in $(seq 1 "$duration"); do sleep 1; curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true; done) &
    scraper=$!
    live+=("$(run live --raw "$out/exports-attempts.jsonl" --metrics-listen "127.0.0.1:$port")")
    wait "$scraper" || true
done
p=$(echo "${plain[*]}" | best)
r=$(echo "${raw[*]}" | best)
l=$(echo "${live[*]}" | best)
dropped=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["raw"]["dropped"])' "$out/exports-live/stress-latest.json")
lines=$(wc -l <"$out/exports-attempts.jsonl")
printf '%-44s %10s attempts/s   runs: %s\n' "plain" "$p" "${plain[*]}" "--raw" "$r" "${raw[*]}" \
    "--raw --metrics-listen (scraped every second)" "$l" "${live[*]}"
printf -- '--raw / plain: %s\n' "$(ratio "$r" "$p")"
printf -- '--raw --metrics-listen / plain: %s\n' "$(ratio "$l" "$p")"
printf 'last run: %s lines written, %s dropped\n' "$lines" "$dropped"
