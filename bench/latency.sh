#!/usr/bin/env bash
# The tool's own overhead on a reported latency (target, SPEC §8: under 5 µs at p50 over http, recorded with
# the results in docs/performance.md). At one connection against nginx on loopback, wrk's
# median is the wire plus nginx plus a lean C client; survey-bot's median for the same
# request, from its report, is that plus everything the respondent engine adds (task,
# transport, parser, clock, histogram). The difference is the overhead. Both are run three
# times, alternating, and the medians of the runs compared.
#
# With ROUNDS above 3 it also prints the median of each round's own difference (its wrk and
# survey-bot runs back to back), which the machine's drift between rounds does not move.
#
#   bench/latency.sh [DURATION=5] [ROUNDS=3]
source "$(dirname "$0")/common.sh"
duration=${1:-5}
rounds=${2:-3}

need_packages
build_release
start_nginx 18080
base=http://127.0.0.1:18080

write_submit_lua

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$out/latency-runs.txt"
for run in $(seq 1 "$rounds"); do
    get=$(wrk -t1 -c1 -d"${duration}s" --latency "$base/questions" | wrk_p50)
    post=$(wrk -t1 -c1 -d"${duration}s" --latency -s "$out/submit.lua" "$base/question/submit" | wrk_p50)
    rm -rf "$out/latency"
    "$bot" run "$root/bench/plans/latency.plan" --duration "${duration}s" --out "$out/latency" --quiet || true
    read -r bot_get bot_post < <(report_p50 "$out/latency/latency-latest.json")
    echo "run $run: GET /questions p50 wrk $get µs, survey-bot $bot_get µs; POST /question/submit p50 wrk $post µs, survey-bot $bot_post µs"
    echo "$get $bot_get $post $bot_post" >>"$out/latency-runs.txt"
done

wrk_get=$(awk '{ print $1 }' "$out/latency-runs.txt" | median)
bot_get=$(awk '{ print $2 }' "$out/latency-runs.txt" | median)
wrk_post=$(awk '{ print $3 }' "$out/latency-runs.txt" | median)
bot_post=$(awk '{ print $4 }' "$out/latency-runs.txt" | median)
overhead_table "$wrk_get" "$bot_get" "$wrk_post" "$bot_post"
get_paired=$(awk '{ print $2 - $1 }' "$out/latency-runs.txt" | median)
post_paired=$(awk '{ print $4 - $3 }' "$out/latency-runs.txt" | median)
echo "median of the rounds' own differences: GET ${get_paired} µs, POST ${post_paired} µs (over $rounds rounds)"
echo "target (SPEC §8): overhead under 5 µs at p50 over http (20 µs over https: bench/https.sh)"
