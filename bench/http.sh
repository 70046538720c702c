#!/usr/bin/env bash
# The HTTP engine against its peers: wrk, hey and survey-bot's event-loop client, each for
# DURATION seconds at CONCURRENCY connections against nginx serving the survey API on loopback,
# then wrk against nginx and against survey-bot's reference server. Prints req/s and ratios.
#
#   bench/http.sh [CONCURRENCY=50] [DURATION=5]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}

need_packages
build_release
start_nginx 18080
nginx_url=http://127.0.0.1:18080/questions

echo "== client: GET /questions on nginx, concurrency $concurrency, ${duration}s each"
wrk_nginx=$(wrk -t2 -c"$concurrency" -d"${duration}s" "$nginx_url" | tee "$out/wrk-nginx.txt" | wrk_rps)
hey_nginx=$(hey -z "${duration}s" -c "$concurrency" "$nginx_url" | tee "$out/hey-nginx.txt" | hey_rps)
bot_nginx=$("$bench" "$nginx_url" --concurrency "$concurrency" --duration "$duration" | tee "$out/bench-nginx.txt" | bench_rps)
cat "$out/bench-nginx.txt"
printf '%-28s %10s req/s\n' "wrk" "$wrk_nginx" "hey" "$hey_nginx" "survey-bot client" "$bot_nginx"
printf 'survey-bot / wrk: %s   survey-bot / hey: %s\n' "$(ratio "$bot_nginx" "$wrk_nginx")" "$(ratio "$bot_nginx" "$hey_nginx")"

echo "== server: wrk against nginx and against survey-bot serve, concurrency $concurrency"
serve_against_nginx http://127.0.0.1:18081 "$wrk_nginx"
