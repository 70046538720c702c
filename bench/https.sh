#!/usr/bin/env bash
# The https:// path — survey-bot's event-loop client over the system's OpenSSL, certificate
# verification on — against wrk and hey, all against nginx serving the survey API over TLS on
# loopback: the raw client at CONCURRENCY, the respondent flow at CONCURRENCY, the median
# latency at one connection, and survey-bot's own https server under wrk.
#
# A throwaway CA signs nginx's certificate; survey-bot trusts it through tls.ca_file (the bench
# client through --ca-file). wrk and hey verify nothing, so every ratio favours them slightly.
#
#   bench/https.sh [CONCURRENCY=50] [DURATION=5]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}

need_packages
build_release

tls="$out/tls"
make_certificates "$tls"

start_nginx 18443 "$tls/server.crt" "$tls/server.key"
base=https://127.0.0.1:18443
write_submit_lua

echo "== client: GET /questions over https on nginx, concurrency $concurrency, ${duration}s each"
wrk_get=$(wrk -t2 -c"$concurrency" -d"${duration}s" "$base/questions" | tee "$out/wrk-https-questions.txt" | wrk_rps)
hey_get=$(hey -z "${duration}s" -c "$concurrency" "$base/questions" | tee "$out/hey-https-questions.txt" | hey_rps)
bot_get=$("$bench" "$base/questions" --ca-file "$tls/ca.crt" --concurrency "$concurrency" --duration "$duration" \
    | tee "$out/bench-https.txt" | bench_rps)
cat "$out/bench-https.txt"
printf '%-28s %10s req/s\n' "wrk" "$wrk_get" "hey" "$hey_get" "survey-bot client" "$bot_get"
printf 'survey-bot / wrk: %s   survey-bot / hey: %s\n' "$(ratio "$bot_get" "$wrk_get")" "$(ratio "$bot_get" "$hey_get")"

echo "== the respondent flow over https, concurrency $concurrency, ${duration}s each"
wrk_post=$(wrk -t2 -c"$concurrency" -d"${duration}s" -s "$out/submit.lua" "$base/question/submit" | tee "$out/wrk-https-submit.txt" | wrk_rps)
rm -rf "$out/https-flow"
"$bot" run "$root/plans/stress.plan" --concurrency "$concurrency" --duration "${duration}s" --target "$base" \
    --set tls.ca_file="$tls/ca.crt" --out "$out/https-flow" --format json --quiet || true
bot_rate=$(report_rate "$out/https-flow/stress-latest.json")
read -r flow_get flow_post < <(report_p50 "$out/https-flow/stress-latest.json")
weighted=$(mix_rate "$wrk_post" "$wrk_get")
printf '%-40s %10s req/s\n' "wrk, the flow's mix (10 POST : 1 GET)" "$weighted" "survey-bot run" "$bot_rate"
printf 'survey-bot / wrk: %s   (survey-bot p50: GET %s µs, POST %s µs)\n' "$(ratio "$bot_rate" "$weighted")" "$flow_get" "$flow_post"

echo "== p50 at one connection over https, ${duration}s each"
get=$(wrk -t1 -c1 -d"${duration}s" --latency "$base/questions" | wrk_p50)
post=$(wrk -t1 -c1 -d"${duration}s" --latency -s "$out/submit.lua" "$base/question/submit" | wrk_p50)
rm -rf "$out/https-latency"
"$bot" run "$root/bench/plans/latency.plan" --target "$base" --duration "${duration}s" --set tls.ca_file="$tls/ca.crt" \
    --out "$out/https-latency" --quiet || true
read -r bot_get_p50 bot_post_p50 < <(report_p50 "$out/https-latency/latency-latest.json")
overhead_table "$get" "$bot_get_p50" "$post" "$bot_post_p50"

echo "== server: wrk against nginx and against survey-bot serve over https, concurrency $concurrency"
serve_against_nginx https://127.0.0.1:18444 "$wrk_get" --tls-cert "$tls/server.crt" --tls-key "$tls/server.key"
