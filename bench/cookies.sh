#!/usr/bin/env bash
# What cookie jars cost: the respondent flow of plans/stress.plan against nginx, once plain and
# once under /session-flow/, where every questions response sets a session cookie that each of
# the respondent's submits must carry back (else 401). The two runs alternate, ROUNDS times, so
# that both meet the same machine; prints attempts per second of each run, each round's ratio
# (the jar's flow / plain) and the median of the ratios, for throughput and for CPU time per
# attempt (user + system), which other load on the machine disturbs less.
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

run() { # run NAME TARGET: one stress run; prints its attempts per second and its CPU µs per attempt
    rm -rf "$out/cookies-$1"
    local TIMEFORMAT='%U %S' cpu
    cpu=$( { time "$bot" run "$root/plans/stress.plan" --threads "$threads" --concurrency "$concurrency" --duration "${duration}s" \
        --target "$2" --out "$out/cookies-$1" --format json --quiet >/dev/null 2>&1 || true; } 2>&1 )
    python3 - "$out/cookies-$1/stress-latest.json" $cpu <<'PY'
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
    read -r plain plain_cpu < <(run plain "$base")
    read -r jar jar_cpu < <(run jar "$base/session-flow")
    ratios+=("$(ratio "$jar" "$plain")")
    cpu_ratios+=("$(ratio "$jar_cpu" "$plain_cpu")")
    printf 'round %d: plain %8s attempts/s %6s CPU µs/attempt   cookie jar %8s attempts/s %6s CPU µs/attempt   (jar submits %s)\n' \
        "$round" "$plain" "$plain_cpu" "$jar" "$jar_cpu" "$(statuses jar)"
done
printf 'throughput, cookie jar / plain, median of %d rounds: %s\n' "$rounds" "$(printf '%s\n' "${ratios[@]}" | median)"
printf 'CPU per attempt, cookie jar / plain, median of %d rounds: %s (less contended by other load than throughput)\n' \
    "$rounds" "$(printf '%s\n' "${cpu_ratios[@]}" | median)"
