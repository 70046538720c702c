#!/usr/bin/env bash
# The step model's cost: a six-step journey with captures, checks and a page loop
# (bench/plans/journey.plan) against the default journey (plans/stress.plan), both run by
# survey-bot with one thread against the same nginx (bench/nginx.conf.in), as attempts per
# CPU-second of survey-bot's own (user + system, from GNU time), and its peak memory.
#
#   bench/journey.sh [CONCURRENCY=50] [DURATION=5] [ROUNDS=3]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
rounds=${3:-3}

need_packages
need /usr/bin/time=time
build_release
start_nginx 18080
base=http://127.0.0.1:18080

printf '%-8s %-10s %10s %8s %12s %8s %10s %11s\n' round journey attempts cpu_s "attempts/cpu" rss_mb answers completed
declare -a ratios
for round in $(seq 1 "$rounds"); do
    read -r da dc dm dn dr df < <(run_plan journey-default "$bot" "$root/plans/stress.plan" "$base")
    read -r ja jc jm jn jr jf < <(run_plan journey-six-step "$bot" "$root/bench/plans/journey.plan" "$base/journey")
    [ "$df" = 0 ] && [ "$jf" = 0 ] || { echo "failed attempts: default $df, six-step $jf" >&2; exit 1; }
    drate=$(awk -v a="$da" -v c="$dc" 'BEGIN { printf "%.0f", a / c }')
    jrate=$(awk -v a="$ja" -v c="$jc" 'BEGIN { printf "%.0f", a / c }')
    printf '%-8s %-10s %10s %8.2f %12s %8.1f %10s %11s\n' "$round" default "$da" "$dc" "$drate" "$dm" "$dn" "$dr"
    printf '%-8s %-10s %10s %8.2f %12s %8.1f %10s %11s\n' "$round" six-step "$ja" "$jc" "$jrate" "$jm" "$jn" "$jr"
    ratios+=("$(ratio "$jrate" "$drate")")
done
printf 'six-step journey / default journey, attempts per CPU-second: %s\n' "${ratios[*]}"
