#!/usr/bin/env bash
# The whole respondent flow against its peers: wrk hammering POST /question/submit (the call
# that makes up 10 of a respondent's 11 requests) and GET /questions on nginx, then
# `survey-bot run plans/stress.plan --concurrency 50` against the same nginx. Prints req/s and
# the ratio of survey-bot's attempts per second to wrk's requests per second.
#
# Then the same with one thread each: `survey-bot run --threads 1` against `wrk -t1` running the
# flow's mix itself (a Lua script sending 10 POSTs to each GET), so that neither side has more
# of the machine.
#
#   bench/flow.sh [CONCURRENCY=50] [DURATION=5]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}

need_packages
build_release
start_nginx 18080
base=http://127.0.0.1:18080

write_submit_lua
echo "== wrk: POST /question/submit and GET /questions, concurrency $concurrency, ${duration}s each"
wrk_post=$(wrk -t2 -c"$concurrency" -d"${duration}s" -s "$out/submit.lua" "$base/question/submit" | tee "$out/wrk-submit.txt" | wrk_rps)
wrk_get=$(wrk -t2 -c"$concurrency" -d"${duration}s" "$base/questions" | tee "$out/wrk-questions.txt" | wrk_rps)

echo "== survey-bot run plans/stress.plan --concurrency $concurrency against nginx"
rm -rf "$out/flow"
"$bot" run "$root/plans/stress.plan" --concurrency "$concurrency" --target "$base" --out "$out/flow" --format json --quiet || true
bot_rate=$(report_rate "$out/flow/stress-latest.json")
python3 - "$out/flow/stress-latest.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["endpoints"]
print(f'   {e["questions"]["attempts"] + e["submit"]["attempts"]} attempts in {r["duration_s"]} s, '
      f'{r["respondents"]["completed"]} respondents completed, '
      f'submit p50 {e["submit"]["latency_ms"]["p50"]} ms p99 {e["submit"]["latency_ms"]["p99"]} ms')
PY
weighted=$(mix_rate "$wrk_post" "$wrk_get")
printf '%-40s %10s req/s\n' "wrk POST /question/submit" "$wrk_post" "wrk GET /questions" "$wrk_get" \
    "wrk, the flow's mix (10 POST : 1 GET)" "$weighted" "survey-bot run (respondent flow)" "$bot_rate"
printf 'survey-bot run / wrk (same mix): %s\n' "$(ratio "$bot_rate" "$weighted")"

echo "== one thread each: wrk -t1 with the flow's mix (10 POST : 1 GET) vs survey-bot run --threads 1, concurrency $concurrency"
write_mix_lua "$out/mix.lua"
wrk_mix=$(wrk -t1 -c"$concurrency" -d"${duration}s" -s "$out/mix.lua" "$base" | tee "$out/wrk-mix-t1.txt" | wrk_rps)
rm -rf "$out/flow-t1"
"$bot" run "$root/plans/stress.plan" --threads 1 --concurrency "$concurrency" --duration "${duration}s" --target "$base" \
    --out "$out/flow-t1" --format json --quiet || true
bot_t1=$(report_rate "$out/flow-t1/stress-latest.json")
printf '%-40s %10s req/s\n' "wrk -t1, the flow's mix" "$wrk_mix" "survey-bot run --threads 1" "$bot_t1"
printf 'survey-bot run --threads 1 / wrk -t1 (same mix): %s\n' "$(ratio "$bot_t1" "$wrk_mix")"
