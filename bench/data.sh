#!/usr/bin/env bash
# The cost of data feeds and templates: the respondent flow with a CSV feed (10,000 rows) and
# variables in the questions path, a header, an answer, the submit body and an `answer.<id>`
# column (bench/plans/data-feed.plan), against the same flow without them
# (bench/plans/data-plain.plan), both against nginx on loopback, in turns (each goes first every
# other round) so that both see the same machine. Prints, per run, attempts per second of wall
# time and per CPU-second of survey-bot (user + system: steadier on a shared machine), then the
# ratios of the medians, feed / plain (the target is ≥ 0.9).
#
# MODE `cookies` measures issue 17's whole cost: both plans run against nginx's /cookie-flow/
# location, whose questions response sets a cookie; the feed plan with its cookie jars on (every
# submit carries the cookie back), the plain one with `--set cookies=false` (nothing kept or
# sent), so the server's work is the same for both and the feed run pays for feed, templates
# and cookies together.
#
#   bench/data.sh [ROUNDS=5] [DURATION=3] [THREADS=1] [MODE=templates|cookies]
#   BENCH_PORT=18081 picks nginx's loopback port; SURVEY_BOT=path/to/survey-bot measures that
#   binary (a build of an earlier commit) instead of building this tree's.
source "$(dirname "$0")/common.sh"
rounds=${1:-5}
duration=${2:-3}
threads=${3:-1}
mode=${4:-templates}
case $mode in
templates) feed_path="" plain_options=() feed_label="CSV feed + templates" ;;
cookies) feed_path=/cookie-flow plain_options=(--set cookies=false) feed_label="CSV feed + templates + cookies" ;;
*)
    echo "MODE is templates or cookies, not $mode" >&2
    exit 2
    ;;
esac

command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need_packages
if [ -n "${SURVEY_BOT:-}" ]; then
    bot=$SURVEY_BOT
else
    (cd "$root" && swift build -c release --product survey-bot >&2)
    bot="$root/.build/release/survey-bot"
fi
port=${BENCH_PORT:-18081}
start_nginx "$port"
base=http://127.0.0.1:$port$feed_path

mkdir -p "$out/data"
python3 "$root/bench/members.py" "$out/data/members.csv"

# run PLAN NAME [OPTION…]: "wall-rate cpu-rate" of one run.
run() {
    local plan=$1 name=$2
    shift 2
    rm -rf "$out/data/$name"
    /usr/bin/time -f '%U %S' -o "$out/data/$name.time" "$bot" run "$root/bench/plans/$plan.plan" --target "$base" \
        --threads "$threads" --duration "${duration}s" --out "$out/data/$name" --format json --quiet "$@" >/dev/null 2>&1 || true
    python3 - "$out/data/$name/$plan-latest.json" "$out/data/$name.time" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
user, system = map(float, open(sys.argv[2]).read().split()[-2:])
attempts = sum(e["attempts"] for e in report["endpoints"].values())
print(round(report["throughput"]["attempts_per_s"]), round(attempts / max(user + system, 1e-3)))
PY
}

plain_wall=() plain_cpu=() feed_wall=() feed_cpu=()
for round in $(seq 1 "$rounds"); do
    if ((round % 2)); then
        read -r pw pc < <(run data-plain "plain-$round" "${plain_options[@]}")
        read -r fw fc < <(run data-feed "feed-$round")
    else
        read -r fw fc < <(run data-feed "feed-$round")
        read -r pw pc < <(run data-plain "plain-$round" "${plain_options[@]}")
    fi
    plain_wall+=("$pw") plain_cpu+=("$pc") feed_wall+=("$fw") feed_cpu+=("$fc")
    printf 'round %d: plain %s attempts/s (%s per CPU-s), feed %s attempts/s (%s per CPU-s)\n' "$round" "$pw" "$pc" "$fw" "$fc"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pw=$(median "${plain_wall[@]}") pc=$(median "${plain_cpu[@]}") fw=$(median "${feed_wall[@]}") fc=$(median "${feed_cpu[@]}")
echo "mode $mode: $rounds rounds of ${duration}s, --threads $threads, against $base"
printf '%-52s %10s attempts/s %10s attempts/CPU-s\n' "plain flow (median of $rounds)" "$pw" "$pc" \
    "$feed_label (median of $rounds)" "$fw" "$fc"
printf 'feed / plain: %s by wall time, %s by CPU time (target >= 0.9)\n' "$(ratio "$fw" "$pw")" "$(ratio "$fc" "$pc")"
