#!/usr/bin/env bash
# HTTP/2: the respondent flow over h2 against h2load (Debian's nghttp2-client), both against
# nginx on loopback, with the same connections and streams, one thread each — in cleartext with
# prior knowledge (h2c) and over TLS (ALPN h2) — and the h2 flow against the HTTP/1.1 flow on
# the same nginx over TLS (ALPN picks either).
#
# h2load sends one method to one path per run, so, as bench/flow.sh does for wrk, it runs POST
# /question/submit and GET /questions apart, and the flow's mix (10 submits to 1 GET) is
# weighed from the two rates. Rounds are interleaved (h2load, then survey-bot, then again) and
# each figure is the median of the rounds, so that a machine busy with something else weighs
# on both sides alike. Beside requests per second, requests per CPU-second of each client's own
# (user + system, from GNU time): what a client costs, which a busy machine moves less. And how
# busy nginx was meanwhile, in percent of one core: near 100, the server sets the rate for both
# clients, and their ratio by rate says which asks it for less work, not which can send more.
#
# With PIN=1, each side has a core of its own, as in bench/onethread.sh: nginx on CPU 1, the
# client on CPU 0. With CAP=F, the client also gets only F of its core (a container's CPU
# limit; bench/common.sh's pin_if_asked): nginx has room to spare and the client's cost sets
# the rate.
#
#   bench/h2.sh [CONCURRENCY=50] [DURATION=5] [ROUNDS=3]
#   PIN=1 bench/h2.sh
#   CAP=0.5 bench/h2.sh
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
rounds=${3:-3}

need_packages
need h2load=nghttp2-client /usr/bin/time=time
build_release

tls="$out/tls-h2"
make_certificates "$tls"
pin_if_asked

nginx_http2=1 start_nginx 18090
h2c_server=$nginx_pid
nginx_http2=1 start_nginx 18453 "$tls/server.crt" "$tls/server.key"
h2_server=$nginx_pid
h2c=http://127.0.0.1:18090
h2=https://127.0.0.1:18453
echo '{"id":3,"answer":"fine"}' >"$out/h2-body.json"

# h2load_rps ARGS…: h2load's requests per second and per CPU-second, "rate,per_cpu", after
# checking that every request succeeded.
h2load_rps() {
    local text
    text=$(/usr/bin/time -f "cpu %U %S" "${client[@]}" h2load "$@" 2>&1)
    echo "$text" >>"$out/h2load.txt"
    echo "$text" | awk '/^requests:/ { if ($2 != $8) { print "h2load: not every request succeeded: " $0 > "/dev/stderr" }; done = $8 }
        /^finished in/ { rate = $4 }
        /^cpu / { cpu = $2 + $3 }
        END { printf "%.0f,%.0f\n", rate, (cpu > 0 ? done / cpu : 0) }'
}

# h2load_mix URL CLIENTS STREAMS: h2load's rate and rate per CPU-second for the flow's mix at
# CLIENTS connections of STREAMS streams each, one thread: "rate,per_cpu". It sends the
# User-Agent plans/stress.plan declares ($stress_agent), as survey-bot does.
h2load_mix() {
    local post get
    post=$(h2load_rps -t1 -c"$2" -m"$3" -D "$duration" -d "$out/h2-body.json" -H 'content-type: application/json' -H "user-agent: $stress_agent" "$1/question/submit")
    get=$(h2load_rps -t1 -c"$2" -m"$3" -D "$duration" -H "user-agent: $stress_agent" "$1/questions")
    echo "$(mix_rate "${post%,*}" "${get%,*}"),$(mix_rate "${post#*,}" "${get#*,}")"
}

# bot_rate URL NAME ARGS…: survey-bot's attempts per second and per CPU-second for the flow,
# one thread: "rate,per_cpu".
bot_rate() {
    local url=$1 name=$2
    shift 2
    bot_figures "h2-$name" "$bot" "$url" --set "tls.ca_file=$tls/ca.crt" "$@"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$out/h2load.txt"
declare -A peer bot
cases="h2c-shared h2c-own h2-shared h2-own http1-tls"
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds: concurrency $concurrency, ${duration}s each, one thread each"
    peer[h2c-shared]+=" $(with_server_busy "$h2c_server" $((2 * duration)) h2load_mix "$h2c" 1 "$concurrency")"
    bot[h2c-shared]+=" $(with_server_busy "$h2c_server" "$duration" bot_rate "$h2c" h2c-shared --http 2 --set connections=shared)"
    peer[h2c-own]+=" $(with_server_busy "$h2c_server" $((2 * duration)) h2load_mix "$h2c" "$concurrency" 1)"
    bot[h2c-own]+=" $(with_server_busy "$h2c_server" "$duration" bot_rate "$h2c" h2c-own --http 2)"
    peer[h2-shared]+=" $(with_server_busy "$h2_server" $((2 * duration)) h2load_mix "$h2" 1 "$concurrency")"
    bot[h2-shared]+=" $(with_server_busy "$h2_server" "$duration" bot_rate "$h2" h2-shared --http 2 --set connections=shared)"
    peer[h2-own]+=" $(with_server_busy "$h2_server" $((2 * duration)) h2load_mix "$h2" "$concurrency" 1)"
    bot[h2-own]+=" $(with_server_busy "$h2_server" "$duration" bot_rate "$h2" h2-own --http 2)"
    bot[http1-tls]+=" $(with_server_busy "$h2_server" "$duration" bot_rate "$h2" http1-tls --http 1.1)"
done

# column N (1: rate, 2: per CPU-second, 3: nginx's busy share of a core) of a case's rounds,
# their median.
figure() { echo "$1" | tr ' ' '\n' | grep -v '^$' | cut -d, -f"$2" | median; }

printf '\n%-44s %12s %12s %7s %14s %14s %7s %16s\n' "the respondent flow (10 POST : 1 GET)" "h2load" "survey-bot" "ratio" \
    "h2load/CPU-s" "survey-bot/CPU-s" "ratio" "nginx busy %"
for name in h2c-shared h2c-own h2-shared h2-own; do
    case $name in
    h2c-shared) label="h2c, 1 connection × $concurrency streams" ;;
    h2c-own) label="h2c, $concurrency connections × 1 stream" ;;
    h2-shared) label="h2 (TLS), 1 connection × $concurrency streams" ;;
    h2-own) label="h2 (TLS), $concurrency connections × 1 stream" ;;
    esac
    p=$(figure "${peer[$name]}" 1)
    b=$(figure "${bot[$name]}" 1)
    pc=$(figure "${peer[$name]}" 2)
    bc=$(figure "${bot[$name]}" 2)
    printf '%-44s %8s r/s %8s r/s %7s %14s %14s %7s %16s\n' "$label" "$p" "$b" "$(ratio "$b" "$p")" "$pc" "$bc" "$(ratio "$bc" "$pc")" \
        "$(figure "${peer[$name]}" 3) / $(figure "${bot[$name]}" 3)"
done
h1=$(figure "${bot[http1-tls]}" 1)
h2own=$(figure "${bot[h2-own]}" 1)
h2shared=$(figure "${bot[h2-shared]}" 1)
h1c=$(figure "${bot[http1-tls]}" 2)
h2ownc=$(figure "${bot[h2-own]}" 2)
h2sharedc=$(figure "${bot[h2-shared]}" 2)
printf '\n%-44s %12s %14s\n' "survey-bot over TLS, same nginx" "attempts/s" "attempts/CPU-s"
printf '%-44s %8s r/s %14s\n' "HTTP/1.1, $concurrency connections" "$h1" "$h1c" "h2, $concurrency connections × 1 stream" "$h2own" "$h2ownc" \
    "h2, 1 connection × $concurrency streams" "$h2shared" "$h2sharedc"
printf 'h2 (%s connections) / HTTP/1.1: %s (per CPU-s %s)   h2 (1 connection) / HTTP/1.1: %s (per CPU-s %s)\n' "$concurrency" \
    "$(ratio "$h2own" "$h1")" "$(ratio "$h2ownc" "$h1c")" "$(ratio "$h2shared" "$h1")" "$(ratio "$h2sharedc" "$h1c")"
echo "rounds (h2load; survey-bot), rate,per_cpu,nginx_busy_percent:"
for name in $cases; do printf '  %-12s %s;%s\n' "$name" "${peer[$name]:-}" "${bot[$name]}"; done
