#!/usr/bin/env bash
# What the live page costs the load: `survey-bot run plans/stress.plan --metrics-listen` against
# nginx, with no page open and with 5 pages open — 5 viewers, each loading / once and then
# polling /live/fragment every second as the page's script does (curl loops). Runs alternate,
# ROUNDS times each; the script prints each run's attempts/s, survey-bot's CPU time (user +
# system, from wait4) and attempts per CPU-second, and the ratios of the medians, 5 pages / none.
# Loopback only; every run stops at its duration.
#
#   bench/live.sh [CONCURRENCY=50] [DURATION=8] [ROUNDS=3]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-8}
rounds=${3:-3}

need_packages
command -v curl >/dev/null || { echo "bench/live.sh needs curl" >&2; exit 1; }
build_release
start_nginx 18082
base=http://127.0.0.1:18082

# run NAME PORT PAGES: one run into $out/live-NAME with the listener on PORT and PAGES viewers;
# prints survey-bot's CPU seconds.
run() {
    local name=$1 port=$2 pages=$3 viewers=()
    rm -rf "$out/live-$name"
    for _ in $(seq 1 "$pages"); do
        (
            # Until the listener is up, then the page once and its fragment every second.
            for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
            for _ in $(seq 1 "$duration"); do
                sleep 1
                curl -s -o /dev/null "http://127.0.0.1:$port/live/fragment" || true
            done
        ) &
        viewers+=($!)
    done
    python3 - "$bot" run "$root/plans/stress.plan" --respondents 100000000 --concurrency "$concurrency" --duration "${duration}s" \
        --target "$base" --out "$out/live-$name" --format json --quiet --metrics-listen "127.0.0.1:$port" <<'PY'
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:])
_, _, usage = os.wait4(child.pid, 0)
print(f"{usage.ru_utime + usage.ru_stime:.3f}")
PY
    for viewer in "${viewers[@]}"; do wait "$viewer" || true; done
}

measure() { # measure NAME PORT PAGES: the run, then its figures on one line
    local cpu rate attempts
    cpu=$(run "$1" "$2" "$3")
    rate=$(report_rate "$out/live-$1/stress-latest.json")
    attempts=$(python3 -c 'import json,sys; print(sum(e["attempts"] for e in json.load(open(sys.argv[1]))["endpoints"].values()))' \
        "$out/live-$1/stress-latest.json")
    awk -v r="$rate" -v c="$cpu" -v a="$attempts" 'BEGIN { printf "%d %.2f %d\n", r, c, a / c }'
}

median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

none_rate=() none_cpu=() five_rate=() five_cpu=()
printf '%-8s %-8s %12s %10s %16s\n' round pages attempts/s "CPU s" "attempts/CPU-s"
for round in $(seq 1 "$rounds"); do
    for pages in 0 5; do
        read -r rate cpu per < <(measure "p$pages" $((19100 + 10 * round + pages)) "$pages")
        printf '%-8s %-8s %12s %10s %16s\n' "$round" "$pages" "$rate" "$cpu" "$per"
        if [ "$pages" = 0 ]; then none_rate+=("$rate") none_cpu+=("$per"); else five_rate+=("$rate") five_cpu+=("$per"); fi
    done
done
printf 'median attempts/s: none %s, 5 pages %s: ratio %s\n' "$(echo "${none_rate[*]}" | median)" \
    "$(echo "${five_rate[*]}" | median)" "$(ratio "$(echo "${five_rate[*]}" | median)" "$(echo "${none_rate[*]}" | median)")"
printf 'median attempts per CPU-second: none %s, 5 pages %s: ratio %s\n' "$(echo "${none_cpu[*]}" | median)" \
    "$(echo "${five_cpu[*]}" | median)" "$(ratio "$(echo "${five_cpu[*]}" | median)" "$(echo "${none_cpu[*]}" | median)")"
