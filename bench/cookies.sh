#!/usr/bin/env bash
# What cookie jars cost: the respondent flow of plans/stress.plan against nginx, once plain and
# once under /session-flow/, where every questions response sets a session cookie that each of
# the respondent's submits must carry back (else 401). Both runs in the same process setup, one
# after the other; prints attempts per second of each and their ratio (the jar's flow / plain).
#
#   bench/cookies.sh [CONCURRENCY=50] [DURATION=5] [THREADS=1]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
threads=${3:-1}

need_packages
build_release
start_nginx 18081
base=http://127.0.0.1:18081

run() { # run NAME TARGET: one stress run, its attempts per second
    rm -rf "$out/cookies-$1"
    "$bot" run "$root/plans/stress.plan" --threads "$threads" --concurrency "$concurrency" --duration "${duration}s" \
        --target "$2" --out "$out/cookies-$1" --format json --quiet >/dev/null 2>&1 || true
    report_rate "$out/cookies-$1/stress-latest.json"
}

statuses() { # statuses NAME: the submit statuses of a run
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["endpoints"]["submit"]["status"])' \
        "$out/cookies-$1/stress-latest.json"
}

echo "== survey-bot run plans/stress.plan, concurrency $concurrency, --threads $threads, ${duration}s each, against nginx"
plain=$(run plain "$base")
jar=$(run jar "$base/session-flow")
printf '%-44s %10s attempts/s   submits %s\n' "plain flow" "$plain" "$(statuses plain)" \
    "session cookie on every submit (cookie jar)" "$jar" "$(statuses jar)"
printf 'cookie jar / plain: %s\n' "$(ratio "$jar" "$plain")"
