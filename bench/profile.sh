#!/usr/bin/env bash
# Where a client's time goes, by `perf record` (the cpu-clock event: it needs no hardware
# counters, which a VM often lacks). Each case runs `survey-bot run plans/stress.plan --threads 1
# --concurrency 50` for DURATION seconds against nginx on loopback, pinned as in
# bench/onethread.sh (nginx on CPU 1, the client on CPU 0). Each sample is put down to the
# function it landed in, and that function to one share:
#
#   kernel         system calls, TCP on loopback, the scheduler; of it (samples under each
#                  system call, with its callees: on loopback a send carries the peer's
#                  receive in its softirq), "send" (sendto), "receive" (recvfrom) and
#                  "wait" (epoll_pwait2)
#   OpenSSL        libssl and libcrypto
#   refcounting    swift_retain, swift_release and uniqueness checks
#   concurrency    the Swift concurrency runtime: jobs, continuations, task status records
#   memory         malloc, free, memmove and the like
#   parsing        HTTP/1.1 responses (HTTPMessageParser, HeadReplay), HTTP/2 frames and
#                  the connection's state machines
#   HPACK          HTTP/2 header compression, both ways
#   metrics        SurveyMetrics: counts, histograms, the timeline
#   clock          clock_gettime (the vDSO)
#   rest           all else: survey-bot's own code outside the shares above, the Swift
#                  standard library, libc's other functions
#
# With CAP=F the client also runs under a CPU quota of F of its core (bench/common.sh's
# pin_if_asked), so that it, not nginx, sets the pace, as in `CAP=0.5 bench/onethread.sh`.
#
# The cases are bench/onethread.sh's and bench/h2.sh's: http; https (TLS 1.3, HTTP/1.1 by
# ALPN); h2c and h2 over TLS, each with a connection per request in flight and all on one
# connection. The profiles stay in bench/out/profile/ for `perf report -i`.
#
#   bench/profile.sh [DURATION=4]
#   CASES="http h2c-shared" bench/profile.sh
#   CAP=0.5 bench/profile.sh
source "$(dirname "$0")/common.sh"
duration=${1:-4}
known="http https h2c h2c-shared h2 h2-shared"
cases=${CASES:-$known}
for name in $cases; do
    [[ " $known " == *" $name "* ]] || {
        echo "bench/profile.sh: no case '$name' in CASES (the cases: $known)" >&2
        exit 2
    }
done

need_packages
need perf=linux-perf
build_release
PIN=1 pin_if_asked

tls="$out/tls-profile"
make_certificates "$tls"
start_nginx 28181
start_nginx 28543 "$tls/server.crt" "$tls/server.key"
nginx_http2=1 start_nginx 28191
nginx_http2=1 start_nginx 28553 "$tls/server.crt" "$tls/server.key"

mkdir -p "$out/profile"
shares="kernel send receive wait OpenSSL refcounting concurrency memory parsing HPACK metrics clock rest"
printf '%-11s %9s' "case" "attempts"
for share in $shares; do printf ' %11s' "$share"; done
printf '\n'
for name in $cases; do
    case $name in
    http) args=(--target http://127.0.0.1:28181) ;;
    https) args=(--target https://127.0.0.1:28543) ;;
    h2c) args=(--target http://127.0.0.1:28191 --http 2) ;;
    h2c-shared) args=(--target http://127.0.0.1:28191 --http 2 --set connections=shared) ;;
    h2) args=(--target https://127.0.0.1:28553 --http 2) ;;
    h2-shared) args=(--target https://127.0.0.1:28553 --http 2 --set connections=shared) ;;
    esac
    report="$out/profile/$name"
    rm -rf "$report"
    perf record -q -g -e cpu-clock -F 4000 -o "$out/profile/$name.data" "${client[@]}" "$bot" run "$root/plans/stress.plan" --threads 1 \
        --concurrency 50 --respondents 1000000 --duration "${duration}s" --out "$report" --format json --quiet \
        --set "tls.ca_file=$tls/ca.crt" "${args[@]}" >/dev/null 2>"$out/profile/$name.log" || true
    perf report -i "$out/profile/$name.data" --no-children --sort dso,sym -g none --stdio 2>/dev/null >"$out/profile/$name.txt"
    perf report -i "$out/profile/$name.data" --children --sort sym -g none --stdio 2>/dev/null >"$out/profile/$name-children.txt"
    python3 - "$report/stress-latest.json" "$out/profile/$name.txt" "$out/profile/$name-children.txt" "$name" "$shares" <<'PY'
import json, re, sys
report, profile, children, name, shares = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5].split()
r = json.load(open(report))
attempts = sum(e["attempts"] for e in r["endpoints"].values())

def share(dso, symbol):
    if dso.startswith("[kernel"):
        return "kernel"
    if dso.startswith(("libssl", "libcrypto")):
        return "OpenSSL"
    if re.match(r"swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease|unknownObjectRetain|unknownObjectRelease|isUniquelyReferenced)", symbol):
        return "refcounting"
    if dso.startswith("libswift_Concurrency"):
        return "concurrency"
    if re.match(r"(__)?(malloc|free|cfree|_int_malloc|_int_free|realloc|calloc|memmove|memcpy|memset|malloc_usable_size)", symbol) or "memmove" in symbol or "memset" in symbol:
        return "memory"
    if "HPACK" in symbol:
        return "HPACK"
    if re.search(r"HTTPMessageParser|HeadReplay|HTTP2Frame|HTTP2ConnectionMachine|HTTP2ClientMachine", symbol):
        return "parsing"
    if "SurveyMetrics" in symbol:
        return "metrics"
    if "clock_gettime" in symbol:
        return "clock"
    return "rest"

totals = dict.fromkeys(shares, 0.0)
for line in open(profile):
    # "    12.34%  dso  [.] symbol" or "[k] symbol"
    m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
    if m:
        totals[share(m.group(2), m.group(3).strip())] += float(m.group(1))
calls = {"__x64_sys_sendto": "send", "__x64_sys_recvfrom": "receive", "__x64_sys_epoll_pwait2": "wait"}
for line in open(children):
    # "    12.34%     0.08%  [k] __x64_sys_sendto"
    m = re.match(r"\s*([\d.]+)%\s+[\d.]+%\s+\[k\]\s+(\S+)", line)
    if m and m.group(2) in calls:
        totals[calls[m.group(2)]] += float(m.group(1))
print(f"{name:<11} {attempts:>9,}" + "".join(f" {totals[s]:>10.1f}%" for s in shares))
PY
done
