#!/usr/bin/env bash
# The respondent flow with one thread each, against wrk -t1 running the flow's mix itself (a Lua
# script sending 10 POSTs to each GET), over http and over https (TLS 1.3, certificate verified
# by survey-bot, not by wrk), both against the same nginx on loopback: requests per second and
# requests per CPU-second of each client's own (user + system, from GNU time, start-up and the
# report included for survey-bot), and how busy nginx was meanwhile, in percent of one core (near
# 100, the server sets the rate). Rounds are interleaved (wrk, then each survey-bot binary,
# then again), and each figure is the median of the rounds, so that a machine busy with
# something else weighs on every side alike.
#
# Given binaries, each is measured in every round (before and after a change, on one machine);
# given none, the release binary of this tree.
#
# With PIN=1, each side has a core of its own: nginx (its workers) on CPU 1, the client on CPU 0
# (taskset), so that where the scheduler puts three busy threads on two cores — which moves the
# rate by ±15% from one run to the next here — weighs on neither. Both cores then run nearly
# full (the "nginx busy %" column): the rate is what nginx serves of each client's traffic, and
# requests per CPU-second what the client costs.
#
# With CAP=F (0 < F < 1), the client also gets only F of its core, under a cgroup's CPU quota as
# a container's CPU limit sets it (bench/common.sh's pin_if_asked). nginx keeps a whole core and
# has room to spare (its busy column well under 100), so each client's own cost sets its rate:
# how much load it drives from a container given that much CPU. Needs root.
#
#   bench/onethread.sh [CONCURRENCY=50] [DURATION=5] [ROUNDS=5] [BINARY…]
#   CASES=http bench/onethread.sh        # one of the cases
#   PIN=1 bench/onethread.sh             # a core each
#   CAP=0.5 bench/onethread.sh           # the client on half a core, nginx on a core
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
cases=${CASES:-http https}

need_packages
need /usr/bin/time=time
if [ $# -eq 0 ]; then
    build_release
    set -- "$bot"
fi
binaries=("$@")

tls="$out/tls-onethread"
make_certificates "$tls"
pin_if_asked
start_nginx 18180
declare -A server=([http]=$nginx_pid)
start_nginx 18543 "$tls/server.crt" "$tls/server.key"
server[https]=$nginx_pid
declare -A target=([http]=http://127.0.0.1:18180 [https]=https://127.0.0.1:18543)

write_mix_lua "$out/onethread-mix.lua"

# wrk_figures URL: wrk -t1's rate and requests per CPU-second for the flow's mix, "rate,per_cpu".
wrk_figures() {
    /usr/bin/time -f "%U %S" -o "$out/onethread-wrk.time" "${client[@]}" wrk -t1 -c"$concurrency" -d"${duration}s" -s "$out/onethread-mix.lua" "$1" \
        >"$out/onethread-wrk.txt"
    awk -v cpu="$(awk '{ print $1 + $2 }' "$out/onethread-wrk.time")" '
        /requests in/ { done = $1 }
        /^Requests\/sec:/ { rate = $2 }
        END { printf "%.0f,%.0f\n", rate, (cpu > 0 ? done / cpu : 0) }' "$out/onethread-wrk.txt"
}


median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# column N (1: rate, 2: per CPU-second, 3: nginx busy %) of rounds "a,b,c a,b,c …", their median.
figure() { echo "$1" | tr ' ' '\n' | grep -v '^$' | cut -d, -f"$2" | median; }
# the ratio of two rounds' lists, round by round: "r1 r2 …" for column N.
ratios() {
    paste -d' ' <(echo "$1" | tr ' ' '\n' | grep -v '^$' | cut -d, -f"$3") <(echo "$2" | tr ' ' '\n' | grep -v '^$' | cut -d, -f"$3") |
        awk '{ printf "%.2f ", ($2 > 0 ? $1 / $2 : 0) }'
}

declare -A figures
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds: concurrency $concurrency, ${duration}s each, one thread each"
    for name in $cases; do
        figures[$name,wrk]+=" $(with_server_busy "${server[$name]}" "$duration" wrk_figures "${target[$name]}")"
        for index in "${!binaries[@]}"; do
            figures[$name,$index]+=" $(with_server_busy "${server[$name]}" "$duration" bot_figures onethread-bot "${binaries[$index]}" "${target[$name]}" --set "tls.ca_file=$tls/ca.crt")"
        done
    done
done

printf '\n%-34s %12s %12s %14s\n' "the flow (10 POST : 1 GET), 1 thread" "req/s" "req/CPU-s" "nginx busy %"
for name in $cases; do
    w=${figures[$name,wrk]}
    printf '%-34s %12s %12s %14s\n' "wrk -t1 over $name" "$(figure "$w" 1)" "$(figure "$w" 2)" "$(figure "$w" 3)"
    for index in "${!binaries[@]}"; do
        b=${figures[$name,$index]}
        printf '%-34s %12s %12s %14s\n' "survey-bot ($(basename "$(dirname "${binaries[$index]}")")/$(basename "${binaries[$index]}")) over $name" \
            "$(figure "$b" 1)" "$(figure "$b" 2)" "$(figure "$b" 3)"
        printf '  / wrk, medians; rounds\x27 median:  %5s %5s %12s %5s   rounds by rate: %s; per CPU-s: %s\n' \
            "$(ratio "$(figure "$b" 1)" "$(figure "$w" 1)")" "$(ratios "$b" "$w" 1 | median)" \
            "$(ratio "$(figure "$b" 2)" "$(figure "$w" 2)")" "$(ratios "$b" "$w" 2 | median)" \
            "$(ratios "$b" "$w" 1)" "$(ratios "$b" "$w" 2)"
    done
done
