#!/usr/bin/env bash
# The cost of data feeds and templates: the respondent flow with a CSV feed (10,000 rows) and
# variables in the questions path, a header, an answer, the submit body and an `answer.<id>`
# column (bench/plans/data-feed.plan), against the same flow without them
# (bench/plans/data-plain.plan), both against nginx on loopback, in turns (plain, feed, plain,
# feed, …) so that both see the same machine. Prints each run's attempts per second and the
# ratio of the medians, feed / plain (the target is ≥ 0.9).
#
#   bench/data.sh [ROUNDS=3] [DURATION=5] [THREADS=1]
source "$(dirname "$0")/common.sh"
rounds=${1:-3}
duration=${2:-5}
threads=${3:-1}

need_packages
build_release
start_nginx 18081
base=http://127.0.0.1:18081

mkdir -p "$out/data"
python3 - "$out/data/members.csv" <<'PY'
import sys
colours = ["blue", "red", "green \"sea\"", "yellow, pale"]
with open(sys.argv[1], "w") as f:
    f.write("member,panel,colour,answer.3\n")
    for i in range(10_000):
        f.write(f'm-{i:05},panel {i % 7},"{colours[i % 4].replace(chr(34), chr(34) * 2)}",{"yes" if i % 2 else ""}\n')
PY

run() {
    local plan=$1 name=$2
    rm -rf "$out/data/$name"
    "$bot" run "$root/bench/plans/$plan.plan" --target "$base" --threads "$threads" --duration "${duration}s" \
        --out "$out/data/$name" --format json --quiet >/dev/null 2>&1 || true
    report_rate "$out/data/$name/$plan-latest.json"
}

plain=()
feed=()
for round in $(seq 1 "$rounds"); do
    plain+=("$(run data-plain "plain-$round")")
    feed+=("$(run data-feed "feed-$round")")
    printf 'round %d: plain %s attempts/s, feed %s attempts/s\n' "$round" "${plain[-1]}" "${feed[-1]}"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
plain_median=$(median "${plain[@]}")
feed_median=$(median "${feed[@]}")
printf '%-44s %10s attempts/s\n' "plain flow (median of $rounds)" "$plain_median" "CSV feed + templates (median of $rounds)" "$feed_median"
printf 'feed / plain: %s (target >= 0.9)\n' "$(ratio "$feed_median" "$plain_median")"
