#!/usr/bin/env bash
# A data feed at panel scale: files of 10,000, 100,000 and 1,000,000 members (bench/panel.py,
# four columns, about 48 bytes a row), each read by `survey-bot validate` and by a run of
# 20,000 respondents against the builtin server on loopback (bench/out/data-scale/*.plan),
# beside the same plan without the feed. Prints, per size, the file's size, the extra wall time
# of `validate` and the parsing speed it means (file size / extra time), the extra time a run
# takes to start and stop (s+s: its wall time less its duration), and the extra peak memory
# (maximum resident set, /usr/bin/time -v) of `validate` and of the run, also as a multiple of
# the file's size. Each figure is the best (time) or the median (memory) of ROUNDS
# runs: the machine is shared. Then, for the largest file, the memory a run holds once the file
# is read (the resident set 3 s into a run of 100 respondents thinking 1 s before each answer),
# whole and as shard 1/4 (`--shard 1/4`, which keeps only its share of the rows).
#
#   bench/data-scale.sh [ROUNDS=3] [SIZES="10000 100000 1000000"] [RESPONDENTS=20000]
#   SURVEY_BOT=path/to/survey-bot measures that binary (a build of an earlier commit) instead of
#   building this tree's.
source "$(dirname "$0")/common.sh"
rounds=${1:-3}
sizes=${2:-10000 100000 1000000}
respondents=${3:-20000}
need /usr/bin/time=time
if [ -n "${SURVEY_BOT:-}" ]; then
    bot=$SURVEY_BOT
else
    (cd "$root" && swift build -c release --product survey-bot >&2)
    bot="$root/.build/release/survey-bot"
fi
dir="$out/data-scale"
mkdir -p "$dir"

# plan NAME [FILE] [THINK]: a plan of $respondents respondents against the builtin server, with
# the feed FILE (its rows in a header, an answer and the answer.3 column) or without one.
plan() {
    {
        echo "name: $1"
        echo "target: builtin"
        echo "respondents: $respondents"
        echo "concurrency: 50"
        echo "seed: 1"
        echo "builtin:"
        echo "  questions: 3"
        [ -z "${3:-}" ] || echo "think: $3"
        if [ -n "${2:-}" ]; then
            echo "data: $2"
            echo "data_order: sequential"
            echo "api:"
            echo "  headers:"
            echo "    X-Member: \${row.member}"
            echo "answers:"
            echo "  1: \${row.colour}"
            echo "  \"*\": fine"
        else
            echo "answers:"
            echo "  \"*\": fine"
        fi
    } >"$dir/$1.plan"
}

# measure NAME COMMAND…: "seconds kilobytes" of one run of COMMAND: its wall time to the
# microsecond (bash's clock: /usr/bin/time's has hundredths) and its peak resident set. For a
# run (REPORT set to its JSON report), the wall time less the run's own duration_s: the time it
# took to start and stop, reading the plan and its feed included, without the respondents' time,
# which a shared machine makes vary by more than the feed costs.
measure() {
    local name=$1 start end seconds
    shift
    start=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$dir/$name.time" "$@" >/dev/null 2>"$dir/$name.err" || {
        echo "failed: $* (see $dir/$name.err)" >&2
        exit 1
    }
    end=$EPOCHREALTIME
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
    if [ -n "${REPORT:-}" ]; then
        seconds=$(python3 -c 'import json, sys; print("%.3f" % (float(sys.argv[2]) - json.load(open(sys.argv[1]))["duration_s"]))' \
            "$REPORT" "$seconds")
    fi
    echo "$seconds $(tail -1 "$dir/$name.time")"
}

# best NAME COMMAND…: the least wall time and the median peak resident set of $rounds runs.
best() {
    local name=$1 times=() sizes=()
    shift
    for _ in $(seq 1 "$rounds"); do
        read -r t k < <(measure "$name" "$@")
        times+=("$t") sizes+=("$k")
    done
    printf '%s %s\n' "$(printf '%s\n' "${times[@]}" | sort -g | head -1)" \
        "$(printf '%s\n' "${sizes[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
}

plan plain
read -r vt0 vk0 < <(best validate-plain "$bot" validate "$dir/plain.plan")
read -r rt0 rk0 < <(REPORT="$dir/reports/plain-latest.json" best run-plain "$bot" run "$dir/plain.plan" --out "$dir/reports" --format json --quiet)
echo "without a feed: validate ${vt0} s, peak ${vk0} KB; run of $respondents respondents: start and stop ${rt0} s, peak ${rk0} KB"
printf '%-8s %8s | %9s %8s %6s %14s | %8s %8s | %15s\n' rows "file MB" validate "+time" "MB/s" "+peak" "run s+s" "+time" "+peak run"
for rows in $sizes; do
    csv="$dir/panel-$rows.csv"
    [ -f "$csv" ] || python3 "$root/bench/panel.py" "$rows" "$csv"
    plan "feed-$rows" "$csv"
    read -r vt vk < <(best "validate-$rows" "$bot" validate "$dir/feed-$rows.plan")
    read -r rt rk < <(REPORT="$dir/reports/feed-$rows-latest.json" best "run-$rows" "$bot" run "$dir/feed-$rows.plan" --out "$dir/reports" --format json --quiet)
    bytes=$(stat -c %s "$csv")
    awk -v rows="$rows" -v b="$bytes" -v vt="$vt" -v vt0="$vt0" -v vk="$vk" -v vk0="$vk0" -v rt="$rt" -v rt0="$rt0" \
        -v rk="$rk" -v rk0="$rk0" 'BEGIN {
        mb = b / 1e6; extra = vt - vt0
        speed = extra > 0.002 ? sprintf("%.0f", mb / extra) : "n/a"
        pv = (vk - vk0) / 1000; pr = (rk - rk0) / 1000
        printf "%-8d %8.1f | %7.3f s %6.3f s %6s %5.1f MB %4.1fx | %6.3f s %6.3f s | %7.1f MB %4.1fx\n", rows, mb, vt, extra, speed, pv, pv / mb, rt, rt - rt0, pr, pr / mb
    }'
done
echo "(times: best of $rounds; memory: median of $rounds; + is beyond the same plan without the feed)"

# held NAME [OPTION…]: the resident set in KB of a run of NAME.plan 3 s after it started.
held() {
    local name=$1 pid rss
    shift
    "$bot" run "$dir/$name.plan" --out "$dir/reports" --format json --quiet "$@" >/dev/null 2>&1 &
    pid=$!
    sleep 3
    rss=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
    wait "$pid" || true
    echo "$rss"
}
largest=$rows
respondents=100
plan held-plain "" 1s
plan "held-$largest" "$dir/panel-$largest.csv" 1s
h0=$(held held-plain)
h1=$(held "held-$largest")
h4=$(held "held-$largest" --shard 1/4 --run-id data-scale)
awk -v rows="$largest" -v h0="$h0" -v h1="$h1" -v h4="$h4" 'BEGIN {
    printf "held during a run of the %d-row feed, beyond the plan without it: whole %.1f MB, --shard 1/4 %.1f MB\n", rows, (h1 - h0) / 1000, (h4 - h0) / 1000
}'
