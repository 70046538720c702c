#!/usr/bin/env bash
# Memory of concurrent respondents with think time: the client alone (survey-bot run against
# nginx, no in-process server) at 1,000, 10,000 and 30,000 respondents all at once, each thinking
# 0.5–1 s before every answer (bench/plans/crowd.plan). Peak resident set by /usr/bin/time -v,
# and the straight line through the three: the base and the cost of one more respondent.
#
#   bench/memory.sh [SCHEME=http] [START=burst]
#
# SCHEME https: nginx over TLS with a throwaway certificate (P-256) that survey-bot trusts; with
# nginx_http2=1 in the environment nginx speaks h2 too, which survey-bot then picks by ALPN.
# START burst: every respondent starts at once (the closed model); ramp: they arrive evenly over
# 5 s (the open model), and since each lives about 7.5 s, all of them are alive at the end of
# the arrivals. Over https a burst measures the handshake storm (every TLS connection holds its
# handshake buffers at once); a ramp measures respondents that hold an established connection.
#
# With connections=per_respondent in the environment each respondent holds a connection of its
# own for its whole survey, thinking included (the plan key `connections`; default per_request).
source "$(dirname "$0")/common.sh"
scheme=${1:-http}
start=${2:-burst}
need /usr/bin/time=time
need_packages
build_release
ulimit -n 200000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
# Every respondent holds a socket while it waits: the largest size is what the descriptor limit
# allows, 30,000 where it may.
largest=30000
limit=$(ulimit -n)
if [ "$limit" != unlimited ] && [ "$limit" -lt $((largest + 1000)) ]; then
    largest=$(((limit - 1000) / 1000 * 1000))
    echo "note: ulimit -n is $limit here (the hard limit); the largest size is $largest instead of 30000" >&2
fi
extra=()
if [ "$scheme" = https ]; then
    tls="$out/tls-memory"
    rm -rf "$tls" && mkdir -p "$tls"
    # P-256, as most public sites now use: an RSA handshake costs each side several times more.
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj "/CN=localhost" \
        -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$tls/server.key" -out "$tls/server.crt" 2>/dev/null
    start_nginx 18445 "$tls/server.crt" "$tls/server.key"
    target=https://127.0.0.1:18445
    extra=(--set "tls.ca_file=$tls/server.crt")
else
    start_nginx 18082
    target=http://127.0.0.1:18082
fi

[ -n "${connections:-}" ] && extra+=(--set "connections=$connections")
echo "== $scheme, respondents starting: $start${connections:+, connections: $connections}"
: >"$out/memory-$scheme.txt"
for n in 1000 10000 "$largest"; do
    rm -rf "$out/crowd-$n"
    load=(--respondents "$n")
    # A ramp's 5 s are also the run's hard cap: every respondent is still under way then (the
    # memory's peak) and is cut short, so a ramp reports 0 completed.
    [ "$start" = ramp ] && load=(--rate "$((n / 5))/s" --duration 5s)
    /usr/bin/time -v "$bot" run "$root/bench/plans/crowd.plan" --target "$target" "${load[@]}" --concurrency "$n" \
        "${extra[@]}" --out "$out/crowd-$n" --quiet 2>"$out/crowd-$n-time.txt" || true
    peak=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$out/crowd-$n-time.txt")
    python3 - "$out/crowd-$n/crowd-latest.json" "$peak" "$n" <<'PY' | tee -a "$out/memory-$scheme.txt"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["endpoints"]["submit"]
print(f'{int(sys.argv[3]):6d} respondents: peak RSS {int(sys.argv[2]) / 1024:7.1f} MB; '
      f'{r["respondents"]["completed"]} completed, {s["attempts"]} submits, '
      f'{s.get("connections", {}).get("new", 0) + r["endpoints"]["questions"].get("connections", {}).get("new", 0)} connections opened')
PY
done
# The targets: 64 MB over http, 128 MB over https (OpenSSL's state for each connection).
target_mb=64
[ "$scheme" = https ] && target_mb=128
python3 - "$out/memory-$scheme.txt" "$target_mb" <<'PY'
import re, sys
rows = [tuple(map(float, re.findall(r"^\s*(\d+) respondents: peak RSS\s+([\d.]+)", line)[0])) for line in open(sys.argv[1])]
n = len(rows); mx = sum(r[0] for r in rows) / n; my = sum(r[1] for r in rows) / n
slope = sum((x - mx) * (y - my) for x, y in rows) / sum((x - mx) ** 2 for x, _ in rows)
base = my - slope * mx
print(f'fit: {base:.1f} MB + {slope * 1024:.2f} KB per respondent; 10,000 respondents: {base + slope * 10000:.1f} MB (target: under {sys.argv[2]} MB)')
PY
