#!/usr/bin/env bash
# Instructions per attempt, counted by callgrind: what the machine's load cannot move. Each case
# runs `survey-bot run plans/stress.plan --threads 1 --concurrency 50 --respondents 2000 --seed 1`
# (22,000 attempts) under `valgrind --tool=callgrind` against nginx with one worker on loopback,
# and prints the instructions of the whole process (start-up and report included), the attempts
# and the instructions per attempt. The cases: http; h2c with prior knowledge, a connection per
# request in flight and all on one connection (`connections: shared`); https (TLS 1.3, HTTP/1.1
# by ALPN); h2 over TLS on one connection.
#
# Given binaries, it counts each of them in turn on the same nginx (to compare two builds);
# given none, it builds the release binary of this tree. The plan's duration and timeouts are
# lifted: callgrind runs the process some fifty times slower, and a TLS handshake would time out.
# The timeline is off: its intervals follow the wall clock, which callgrind stretches by as much
# as the machine is busy, and would put that into the count.
# The callgrind files stay in
# bench/out/callgrind/ for `callgrind_annotate`.
#
#   bench/instructions.sh [BINARY…]
#   CASES="http h2c-shared" bench/instructions.sh      # some of the cases
source "$(dirname "$0")/common.sh"
cases=${CASES:-http h2c h2c-shared https h2-shared}

need valgrind=valgrind
need_packages
if [ $# -eq 0 ]; then
    build_release
    set -- "$bot"
fi

# Ports of their own: nginx listens with reuseport, so a port another script's nginx holds
# would be shared with it silently.
tls="$out/tls-instructions"
make_certificates "$tls"
nginx_workers=1 start_nginx 28081
nginx_workers=1 nginx_http2=1 start_nginx 28091
nginx_workers=1 start_nginx 28443 "$tls/server.crt" "$tls/server.key"
nginx_workers=1 nginx_http2=1 start_nginx 28453 "$tls/server.crt" "$tls/server.key"

mkdir -p "$out/callgrind"
cc -shared -fPIC -O2 -o "$out/callgrind/valgrind-shim.so" "$root/bench/valgrind-shim.c"
printf '%-12s %-10s %16s %10s %14s\n' "binary" "case" "instructions" "attempts" "per attempt"
for binary in "$@"; do
    label=$(basename "$(dirname "$binary")")-$(basename "$binary")
    # valgrind cannot read the DWARF Swift 6.3 writes: a copy without it, symbols kept.
    strip --strip-debug -o "$out/callgrind/$label" "$binary"
    for name in $cases; do
        case $name in
        http) args=(--target http://127.0.0.1:28081) ;;
        h2c) args=(--target http://127.0.0.1:28091 --http 2) ;;
        h2c-shared) args=(--target http://127.0.0.1:28091 --http 2 --set connections=shared) ;;
        https) args=(--target https://127.0.0.1:28443 --set "tls.ca_file=$tls/ca.crt") ;;
        h2-shared) args=(--target https://127.0.0.1:28453 --http 2 --set connections=shared --set "tls.ca_file=$tls/ca.crt") ;;
        *)
            echo "no case $name" >&2
            exit 2
            ;;
        esac
        report="$out/callgrind/$label-$name"
        rm -rf "$report"
        LD_PRELOAD="$out/callgrind/valgrind-shim.so" valgrind --tool=callgrind --callgrind-out-file="$out/callgrind/$label-$name.out" "$out/callgrind/$label" run \
            "$root/plans/stress.plan" --threads 1 --concurrency 50 --respondents 2000 --seed 1 --duration 900s \
            --set timeout=60s --set connect_timeout=60s --set report.interval=off --out "$report" --format json --quiet "${args[@]}" \
            2>"$out/callgrind/$label-$name.log" || true
        python3 - "$report/stress-latest.json" "$out/callgrind/$label-$name.out" "$label" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
attempts = sum(e["attempts"] for e in r["endpoints"].values())
failed = sum(e["failed_attempts"] for e in r["endpoints"].values())
total = next(int(line.split()[1]) for line in open(sys.argv[2]) if line.startswith(("summary:", "totals:")))
note = f"  ({failed} failed)" if failed else ""
print(f"{sys.argv[3]:<12} {sys.argv[4]:<10} {total:>16,} {attempts:>10,} {total / attempts:>14,.0f}{note}")
PY
    done
done
