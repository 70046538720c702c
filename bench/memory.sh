#!/usr/bin/env bash
# Memory of concurrent respondents with think time: the client alone (survey-bot run against
# nginx, no in-process server) at 1,000, 10,000 and 30,000 respondents all at once, each thinking
# 0.5–1 s before every answer (bench/plans/crowd.plan). Peak resident set by /usr/bin/time -v,
# and the straight line through the three: the base and the cost of one more respondent.
#
#   bench/memory.sh [SCHEME=http]      # https: nginx over TLS with a throwaway CA
source "$(dirname "$0")/common.sh"
scheme=${1:-http}
command -v /usr/bin/time >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y -qq time >/dev/null; }
need_packages
build_release
ulimit -n 200000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
extra=()
if [ "$scheme" = https ]; then
    tls="$out/tls-memory"
    rm -rf "$tls" && mkdir -p "$tls"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=localhost" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$tls/server.key" -out "$tls/server.crt" 2>/dev/null
    start_nginx 18445 "$tls/server.crt" "$tls/server.key"
    target=https://127.0.0.1:18445
    extra=(--set "tls.ca_file=$tls/server.crt")
else
    start_nginx 18082
    target=http://127.0.0.1:18082
fi

: >"$out/memory-$scheme.txt"
for n in 1000 10000 30000; do
    rm -rf "$out/crowd-$n"
    /usr/bin/time -v "$bot" run "$root/bench/plans/crowd.plan" --target "$target" --respondents "$n" --concurrency "$n" \
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
python3 - "$out/memory-$scheme.txt" <<'PY'
import re, sys
rows = [tuple(map(float, re.findall(r"^\s*(\d+) respondents: peak RSS\s+([\d.]+)", line)[0])) for line in open(sys.argv[1])]
n = len(rows); mx = sum(r[0] for r in rows) / n; my = sum(r[1] for r in rows) / n
slope = sum((x - mx) * (y - my) for x, y in rows) / sum((x - mx) ** 2 for x, _ in rows)
base = my - slope * mx
print(f'fit: {base:.1f} MB + {slope * 1024:.2f} KB per respondent; 10,000 respondents: {base + slope * 10000:.1f} MB (target: under 64 MB)')
PY
