#!/usr/bin/env bash
# What cookie jars cost: the respondent flow of plans/stress.plan against nginx under
# /cookie-flow/, where every questions response sets a cookie, run with the jars on (each submit
# carries the cookie back) and off (`--set cookies=false`, nothing kept or sent) — the server's
# work the same for both. The two runs alternate, ROUNDS times, so that both meet the same
# machine; prints attempts per second and CPU time per attempt (user + system of survey-bot,
# which other load disturbs less) of each run, and the medians of the ratios (on / off).
# Last, one run under /session-flow/, where a submit without the cookie is answered 401: every
# submit there must be a 200.
#
#   bench/cookies.sh [CONCURRENCY=50] [DURATION=5] [THREADS=1] [ROUNDS=5]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
threads=${3:-1}
rounds=${4:-5}

need_packages
build_release
start_nginx 18081
base=http://127.0.0.1:18081

run() { # run NAME TARGET [OPTION…]: one stress run; prints its attempts per second and its CPU µs per attempt
    local name=$1 target=$2
    shift 2
    rm -rf "$out/cookies-$name"
    local TIMEFORMAT='%U %S' cpu
    cpu=$( { time "$bot" run "$root/plans/stress.plan" --threads "$threads" --concurrency "$concurrency" --duration "${duration}s" \
        --target "$target" --out "$out/cookies-$name" --format json --quiet "$@" >/dev/null 2>&1 || true; } 2>&1 )
    python3 - "$out/cookies-$name/stress-latest.json" $cpu <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["endpoints"]
attempts = e["questions"]["attempts"] + e["submit"]["attempts"]
print(round(r["throughput"]["attempts_per_s"]), round((float(sys.argv[2]) + float(sys.argv[3])) * 1e6 / attempts, 2))
PY
}

statuses() { # statuses NAME: the submit statuses of a run
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["endpoints"]["submit"]["status"])' \
        "$out/cookies-$1/stress-latest.json"
}

echo "== survey-bot run plans/stress.plan, concurrency $concurrency, --threads $threads, ${duration}s each, $rounds rounds, against nginx"
ratios=()
cpu_ratios=()
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for round in $(seq 1 "$rounds"); do
    read -r off off_cpu < <(run off "$base/cookie-flow" --set cookies=false)
    read -r on on_cpu < <(run on "$base/cookie-flow")
    ratios+=("$(ratio "$on" "$off")")
    cpu_ratios+=("$(ratio "$on_cpu" "$off_cpu")")
    printf 'round %d: jars off %8s attempts/s %6s CPU µs/attempt   jars on %8s attempts/s %6s CPU µs/attempt\n' \
        "$round" "$off" "$off_cpu" "$on" "$on_cpu"
done
printf 'throughput, jars on / off, median of %d rounds: %s\n' "$rounds" "$(printf '%s\n' "${ratios[@]}" | median)"
printf 'CPU per attempt, jars on / off, median of %d rounds: %s\n' "$rounds" "$(printf '%s\n' "${cpu_ratios[@]}" | median)"
read -r _ _ < <(run session "$base/session-flow")
printf 'under /session-flow/ (401 without the cookie), submit statuses: %s\n' "$(statuses session)"
