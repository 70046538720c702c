#!/usr/bin/env bash
# The open model against the closed model, on one nginx on loopback, same threads, same
# concurrency cap. Two parts:
#
# 1. Cost of an arrival. Both models at the same attempts per second, below saturation: the
#    closed model with CONCURRENCY / 10 respondents thinking 5 to 15 ms before each submit, then
#    the open model with the same respondents (same think) arriving at the rate the closed run
#    achieved. Prints the client's CPU (user + system, from /usr/bin/time) per attempt of each
#    and their ratio.
# 2. The curve. The closed model at full speed (no think) gives the pace; then the open model
#    is offered 10%, 20%, … 100% of it (respondents per second = offered attempts per second /
#    the calls a respondent makes) and the table gives achieved attempts/s, dropped arrivals,
#    submit p50/p99, the arrivals' start lag p99 (how late the tool itself started them) and
#    the client's CPU per attempt.
#
#   bench/open.sh [THREADS=2] [CONCURRENCY=2000] [DURATION=5] [BINARY=.build/release/survey-bot]
#
# nginx runs one worker (access log off), so that the client and the server share the two
# cores of the machine this was measured on as they did when the problem was found.
# A fourth argument runs another build of survey-bot (the version before a change) instead of
# building this one.
source "$(dirname "$0")/common.sh"
threads=${1:-2}
concurrency=${2:-2000}
duration=${3:-5}

need_packages
need /usr/bin/time=time
if [ $# -ge 4 ]; then bot=$4; else build_release; fi
nginx_workers=${nginx_workers:-1} start_nginx 18080
base=http://127.0.0.1:18080
dir="$out/open"
rm -rf "$dir" && mkdir -p "$dir"

# A respondent's calls: GET /questions, then a submit for each of nginx's questions.
calls=$(python3 -c 'import json, sys; print(1 + len(json.load(open(sys.argv[1]))))' "$out/nginx/questions.json")

# run_bot NAME CONCURRENCY ARGS…: one run of plans/stress.plan against nginx for $duration, timed.
run_bot() {
    local name=$1 cap=$2
    shift 2
    /usr/bin/time -f '%U %S' -o "$dir/$name.time" "$bot" run "$root/plans/stress.plan" --target "$base" \
        --threads "$threads" --concurrency "$cap" --duration "${duration}s" --respondents 100000000 \
        --out "$dir/$name" --format json --quiet "$@" || true
}

# figures NAME: one line of the run's figures, in the order of the table's columns.
figures() {
    python3 - "$dir/$1/stress-latest.json" "$dir/$1.time" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
user, system = (float(x) for x in open(sys.argv[2]).read().split()[-2:])
attempts = sum(e["attempts"] for e in r["endpoints"].values())
submit = r["endpoints"]["submit"]["latency_ms"]
lag = (r.get("lag") or {}).get("arrivals_ms") or {}
print(round(attempts / r["duration_s"]), r["respondents"].get("dropped", 0), submit["p50"], submit["p99"],
      lag.get("p99", "n/a"), round(1e6 * (user + system) / max(1, attempts), 1))
PY
}

echo "== 1. cost of an arrival: both models at the same rate, respondents thinking 5 to 15 ms before each submit"
# A tenth of $concurrency respondents in the closed model set a rate well below saturation;
# the open model's arrive at the rate they achieved, and may have ten times as many under way,
# so that none is dropped for the cap: the comparison is of the cost, not of the cap. The think
# time is drawn (5 to 15 ms) so that respondents are out of step, as real ones are: with one
# fixed think time, closed-model respondents that started together stay in lockstep, and their
# loop wakes once for a crowd of them — cheaper per attempt than any spread-out traffic. That
# case is measured too, last.
thinkers=$((concurrency / 10))
run_bot closed-think "$thinkers" --set think=5ms..15ms
read -r closed_rate _ _ _ _ closed_cpu < <(figures closed-think)
rate=$(awk -v a="$closed_rate" -v c="$calls" 'BEGIN { printf "%.0f", a / c }')
run_bot open-think "$concurrency" --set think=5ms..15ms --rate "$rate/s"
read -r open_rate open_dropped _ _ open_lag open_cpu < <(figures open-think)
printf '%-48s %10s attempts/s %8s µs CPU per attempt\n' \
    "closed, $thinkers respondents, think 5ms..15ms" "$closed_rate" "$closed_cpu" \
    "open, $rate respondents/s, think 5ms..15ms" "$open_rate" "$open_cpu"
printf 'open / closed, CPU per attempt: %s (dropped %s, start lag p99 %s ms)\n' \
    "$(ratio "$open_cpu" "$closed_cpu")" "$open_dropped" "$open_lag"
run_bot closed-lockstep "$thinkers" --set think=10ms
read -r lockstep_rate _ _ _ _ lockstep_cpu < <(figures closed-lockstep)
printf '%-48s %10s attempts/s %8s µs CPU per attempt\n' "closed, $thinkers respondents, think 10ms (lockstep)" \
    "$lockstep_rate" "$lockstep_cpu"

echo "== 2. the curve: the closed model's pace, then the open model offered a share of it"
run_bot closed "$concurrency"
read -r pace _ p50 p99 _ cpu < <(figures closed)
printf '%-8s %10s %10s %8s %8s %10s %10s %12s %10s\n' "offered" "attempts/s" "achieved" "ratio" "dropped" \
    "submit p50" "submit p99" "start lag p99" "CPU/attempt"
printf '%-8s %10s %10s %8s %8s %7s ms %7s ms %12s %7s µs\n' "closed" "-" "$pace" "-" "-" "$p50" "$p99" "-" "$cpu"
for share in 10 20 30 40 50 60 70 80 90 100; do
    offered=$(awk -v p="$pace" -v s="$share" 'BEGIN { printf "%.0f", p * s / 100 }')
    rate=$(awk -v o="$offered" -v c="$calls" 'BEGIN { printf "%.0f", o / c }')
    offered=$(awk -v r="$rate" -v c="$calls" 'BEGIN { printf "%.0f", r * c }')
    run_bot "open-$share" "$concurrency" --rate "$rate/s"
    read -r achieved dropped p50 p99 lag cpu < <(figures "open-$share")
    printf '%-8s %10s %10s %8s %8s %7s ms %7s ms %9s ms %7s µs\n' "$share%" "$offered" "$achieved" \
        "$(ratio "$achieved" "$offered")" "$dropped" "$p50" "$p99" "$lag" "$cpu"
done
