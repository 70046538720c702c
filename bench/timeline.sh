#!/usr/bin/env bash
# What the timeline costs (issue 16's "Cost"): throughput of the respondent flow with the
# timeline on (report.interval: 1s, the default) against off (report.interval: off), and the
# memory it holds at its bound.
#
# 1. Throughput: `survey-bot run plans/stress.plan` against nginx, on and off in turn (each first
#    in every other round), ROUNDS times each for DURATION seconds; prints each run's attempts/s, the medians and their ratio
#    (the target: on / off ≥ 0.97), and the same for attempts per second of survey-bot's own CPU
#    time, which a busy shared machine disturbs far less.
# 2. Memory: bench/plans/long.plan at full speed for MEMORY_S seconds with the timeline off, and
#    with intervals of 100 ms: a run of MEMORY_S ≥ 72 s outgrows the 720 intervals at least
#    once, so the timeline reaches its largest size (it never holds more than 720 intervals,
#    however long the run, so an hour at the default 1 s holds no more). Prints the RSS of both
#    at the end, and the difference: what a one-hour run's timeline costs at most (target:
#    under 10 MB). MEMORY_S=0 skips it.
#
#   bench/timeline.sh [CONCURRENCY=50] [DURATION=5] [ROUNDS=6] [MEMORY_S=90]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
rounds=${3:-6}
memory_s=${4:-90}

need_packages
# survey-bot alone: survey-bench is not used here.
(cd "$root" && swift build -c release --product survey-bot >&2)
bot="$root/.build/release/survey-bot"
start_nginx 18080
base=http://127.0.0.1:18080

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_flow() { # interval → "attempts/s CPU-µs-per-attempt"
    rm -rf "$out/timeline-flow"
    local cpu
    cpu=$( { TIMEFORMAT='%U %S'; time "$bot" run "$root/plans/stress.plan" --concurrency "$concurrency" --respondents 100000000 \
        --duration "${duration}s" --target "$base" --set "report.interval=$1" --out "$out/timeline-flow" --format json \
        --quiet >/dev/null 2>&1 || true; } 2>&1)
    python3 - "$out/timeline-flow/stress-latest.json" $cpu <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
attempts = sum(e["attempts"] for e in r["endpoints"].values())
cpu = float(sys.argv[2]) + float(sys.argv[3])
print(round(r["throughput"]["attempts_per_s"]), round(cpu * 1e6 / max(attempts, 1), 2))
PY
}

echo "== throughput: plans/stress.plan against nginx, concurrency $concurrency, ${duration}s a run, timeline on and off in turn"
on=()
off=()
on_cpu=()
off_cpu=()
for round in $(seq 1 "$rounds"); do
    # Each goes first in every other round: the machine's drift falls on both alike.
    if [ $((round % 2)) -eq 1 ]; then
        read -r rate cpu <<<"$(run_flow off)"; off+=("$rate"); off_cpu+=("$cpu")
        read -r rate cpu <<<"$(run_flow 1s)"; on+=("$rate"); on_cpu+=("$cpu")
    else
        read -r rate cpu <<<"$(run_flow 1s)"; on+=("$rate"); on_cpu+=("$cpu")
        read -r rate cpu <<<"$(run_flow off)"; off+=("$rate"); off_cpu+=("$cpu")
    fi
    printf 'round %d: off %8s attempts/s %6s CPU µs/attempt   on %8s attempts/s %6s CPU µs/attempt\n' \
        "$round" "${off[-1]}" "${off_cpu[-1]}" "${on[-1]}" "${on_cpu[-1]}"
done
median_on=$(median "${on[@]}")
median_off=$(median "${off[@]}")
cpu_on=$(median "${on_cpu[@]}")
cpu_off=$(median "${off_cpu[@]}")
printf 'median: off %s attempts/s (%s CPU µs each), on %s attempts/s (%s CPU µs each)\n' "$median_off" "$cpu_off" "$median_on" "$cpu_on"
printf 'timeline on / off, attempts/s: %s (target ≥ 0.97)\n' "$(ratio "$median_on" "$median_off")"
# On a shared machine attempts/s moves with the neighbours' load; the CPU survey-bot spends per
# attempt moves much less, and is what the timeline adds to: the throughput it allows.
printf 'timeline on / off, attempts per CPU second: %s (target ≥ 0.97)\n' "$(ratio "$cpu_off" "$cpu_on")"
# The machine drifts between rounds more than on and off differ: each round's own ratio (its two
# runs back to back) and their median cancel the drift.
paired=()
for i in "${!on[@]}"; do paired+=("$(awk -v a="${on[$i]}" -v b="${off[$i]}" 'BEGIN { printf "%.4f", a / b }')"); done
printf 'timeline on / off, median of the rounds'"'"' own ratios: %s (attempts/s: %s)\n' "$(median "${paired[@]}")" "${paired[*]}"
[ "$memory_s" -gt 0 ] || exit 0

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
    points=$(python3 - "$out/timeline-long/long-latest.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])).get("timeline")
print(f"{len(t['survey'])} intervals of {t['interval_s']} s" if t else "no timeline")
PY
)
    awk -v k="$rss" -v p="$points" 'BEGIN { printf "%.1f %s\n", k / 1024, p }'
}
read -r rss_off _ <<<"$(rss_of_run off)"
printf 'timeline off: RSS %s MB\n' "$rss_off"
read -r rss_on points_on <<<"$(rss_of_run 100ms)"
printf 'timeline every 100 ms: RSS %s MB, the report kept %s\n' "$rss_on" "$points_on"
printf 'the timeline at its bound (any run length): %s MB of RSS (target: under 10 MB)\n' \
    "$(awk -v a="$rss_on" -v b="$rss_off" 'BEGIN { printf "%+.1f", a - b }')"
