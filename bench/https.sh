#!/usr/bin/env bash
# The https:// path (URLSession, certificate verification on) against wrk, both against nginx
# serving the survey API over TLS on loopback: the respondent flow at CONCURRENCY, and the
# median latency at one connection.
#
# URLSession on Linux trusts only the system's certificate store, so this script makes a
# throwaway CA, adds it to the store (/usr/local/share/ca-certificates) for the length of the
# run, and takes it out again on exit. Run it on a machine you may change, as CI's.
#
#   bench/https.sh [CONCURRENCY=50] [DURATION=5]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}

need_packages
build_release
command -v update-ca-certificates >/dev/null || { echo "update-ca-certificates (ca-certificates) is needed" >&2; exit 1; }

tls="$out/tls"
rm -rf "$tls" && mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=survey-bot bench CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$tls/san.cnf"
openssl x509 -req -days 1 -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
    -extfile "$tls/san.cnf" -out "$tls/server.crt" 2>/dev/null

start_nginx 18443 "$tls/server.crt" "$tls/server.key"
store=/usr/local/share/ca-certificates/survey-bot-bench-ca.crt
cleanup() {
    kill "$nginx_pid" 2>/dev/null || true
    rm -f "$store"
    update-ca-certificates --fresh >/dev/null 2>&1 || true
}
trap cleanup EXIT
cp "$tls/ca.crt" "$store"
update-ca-certificates >/dev/null 2>&1
base=https://localhost:18443
write_submit_lua

echo "== the respondent flow over https, concurrency $concurrency, ${duration}s each"
wrk_post=$(wrk -t2 -c"$concurrency" -d"${duration}s" -s "$out/submit.lua" "$base/question/submit" | tee "$out/wrk-https-submit.txt" | wrk_rps)
wrk_get=$(wrk -t2 -c"$concurrency" -d"${duration}s" "$base/questions" | tee "$out/wrk-https-questions.txt" | wrk_rps)
rm -rf "$out/https-flow"
"$bot" run "$root/plans/stress.plan" --concurrency "$concurrency" --duration "${duration}s" --target "$base" \
    --out "$out/https-flow" --format json --quiet || true
bot_rate=$(report_rate "$out/https-flow/stress-latest.json")
read -r flow_get flow_post < <(report_p50 "$out/https-flow/stress-latest.json")
weighted=$(mix_rate "$wrk_post" "$wrk_get")
printf '%-40s %10s req/s\n' "wrk, the flow's mix (10 POST : 1 GET)" "$weighted" "survey-bot run (URLSession)" "$bot_rate"
printf 'survey-bot / wrk: %s   (survey-bot p50: GET %s µs, POST %s µs)\n' "$(ratio "$bot_rate" "$weighted")" "$flow_get" "$flow_post"

echo "== p50 at one connection over https, ${duration}s each"
get=$(wrk -t1 -c1 -d"${duration}s" --latency "$base/questions" | wrk_p50)
post=$(wrk -t1 -c1 -d"${duration}s" --latency -s "$out/submit.lua" "$base/question/submit" | wrk_p50)
rm -rf "$out/https-latency"
"$bot" run "$root/bench/plans/latency.plan" --target "$base" --duration "${duration}s" --out "$out/https-latency" --quiet || true
read -r bot_get bot_post < <(report_p50 "$out/https-latency/latency-latest.json")
overhead_table "$get" "$bot_get" "$post" "$bot_post"
