#!/usr/bin/env bash
# What the timeline costs (issue 16's "Cost"): throughput of the respondent flow with the
# timeline on (report.interval: 1s, the default) against off (report.interval: off), and the
# memory it holds at its bound.
#
# 1. Throughput: `survey-bot run plans/stress.plan` against nginx, on and off in turn, ROUNDS
#    times each for DURATION seconds; prints each run's attempts/s, the medians and their ratio
#    (the target: on / off ≥ 0.97).
# 2. Memory: bench/plans/long.plan at full speed for MEMORY_S seconds with the timeline off, and
#    with intervals of 100 ms: a run of MEMORY_S ≥ 72 s outgrows the 720 intervals at least
#    once, so the timeline reaches its largest size (it never holds more than 720 intervals,
#    however long the run, so an hour at the default 1 s holds no more). Prints the RSS of both
#    at the end, and the difference: what a one-hour run's timeline costs at most (target:
#    under 10 MB).
#
#   bench/timeline.sh [CONCURRENCY=50] [DURATION=5] [ROUNDS=3] [MEMORY_S=90]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
rounds=${3:-3}
memory_s=${4:-90}

need_packages
build_release
start_nginx 18080
base=http://127.0.0.1:18080

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_flow() { # interval → attempts/s
    rm -rf "$out/timeline-flow"
    "$bot" run "$root/plans/stress.plan" --concurrency "$concurrency" --respondents 100000000 --duration "${duration}s" \
        --target "$base" --set "report.interval=$1" --out "$out/timeline-flow" --format json --quiet >/dev/null 2>&1 || true
    report_rate "$out/timeline-flow/stress-latest.json"
}

echo "== throughput: plans/stress.plan against nginx, concurrency $concurrency, ${duration}s a run, timeline on and off in turn"
on=()
off=()
for round in $(seq 1 "$rounds"); do
    off+=("$(run_flow off)")
    on+=("$(run_flow 1s)")
    printf 'round %d: off %8s attempts/s   on %8s attempts/s\n' "$round" "${off[-1]}" "${on[-1]}"
done
median_on=$(median "${on[@]}")
median_off=$(median "${off[@]}")
printf 'median: off %s attempts/s, on %s attempts/s\n' "$median_off" "$median_on"
printf 'timeline on / off: %s (target ≥ 0.97)\n' "$(ratio "$median_on" "$median_off")"

echo "== memory: bench/plans/long.plan for ${memory_s}s at full speed, timeline off, then every 100 ms (bounded at 720 intervals)"
rss_of_run() { # interval → RSS in MB at the end of the run, and the timeline's size
    rm -rf "$out/timeline-long"
    "$bot" run "$root/bench/plans/long.plan" --duration "${memory_s}s" --set "report.interval=$1" --out "$out/timeline-long" \
        --quiet >/dev/null 2>&1 &
    local pid=$! rss=""
    # The last reading before the run ends: the report is made after the loops stop.
    sleep $((memory_s - 2))
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    wait "$pid" || true
    local points
    points=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1])).get("timeline")
print(f"{len(t[\"survey\"])} intervals of {t[\"interval_s\"]} s" if t else "no timeline")' "$out/timeline-long/long-latest.json")
    awk -v k="$rss" -v p="$points" 'BEGIN { printf "%.1f %s\n", k / 1024, p }'
}
read -r rss_off _ <<<"$(rss_of_run off)"
printf 'timeline off: RSS %s MB\n' "$rss_off"
read -r rss_on points_on <<<"$(rss_of_run 100ms)"
printf 'timeline every 100 ms: RSS %s MB, the report kept %s\n' "$rss_on" "$points_on"
printf 'the timeline at its bound (any run length): %s MB of RSS (target: under 10 MB)\n' \
    "$(awk -v a="$rss_on" -v b="$rss_off" 'BEGIN { printf "%+.1f", a - b }')"
