#!/usr/bin/env bash
# What importing a long recording costs: `survey-bot import` of HAR files of 10 to 200 MB
# (bench/har.py: a walk through an HTML survey of many pages, every asset's body embedded as
# DevTools saves them), its wall time and peak memory (GNU time), beside Python's `json.load`
# of the same file measured in the same round — the floor of reading a HAR at all, which any
# converter written over a JSON library pays. The median of ROUNDS rounds per size.
#
#   bench/import.sh [ROUNDS=3] [SIZES_MB="10 25 50 100 200"]
source "$(dirname "$0")/common.sh"
rounds=${1:-3}
sizes=${2:-"10 25 50 100 200"}

need /usr/bin/time=time
(cd "$root" && swift build -c release --product survey-bot >&2)
bot="$root/.build/release/survey-bot"
dir="$out/import"
mkdir -p "$dir"

median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%8s %9s %8s %10s %8s %10s %9s %9s %10s\n' size_mb entries steps import_s peak_mb json_load_s peak_mb time_x peak/file
for size in $sizes; do
    har="$dir/walk-$size.har"
    [ -s "$har" ] || python3 "$root/bench/har.py" "$size" "$har" >/dev/null
    file_mb=$(awk -v b="$(stat -c %s "$har")" 'BEGIN { printf "%.1f", b / 1048576 }')
    entries=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' "$har")
    times=() peaks=() ptimes=() ppeaks=()
    for _ in $(seq 1 "$rounds"); do
        /usr/bin/time -f "%e %M" -o "$dir/time" "$bot" import "$har" --output "$dir/walk.plan" 2>"$dir/summary"
        read -r seconds kb <"$dir/time"
        times+=("$seconds") peaks+=("$kb")
        /usr/bin/time -f "%e %M" -o "$dir/time" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$har"
        read -r seconds kb <"$dir/time"
        ptimes+=("$seconds") ppeaks+=("$kb")
    done
    steps=$(sed -n 's/.*: \([0-9]*\) steps$/\1/p' "$dir/summary" | head -1)
    t=$(echo "${times[*]}" | median) p=$(echo "${peaks[*]}" | median)
    pt=$(echo "${ptimes[*]}" | median) pp=$(echo "${ppeaks[*]}" | median)
    printf '%8s %9s %8s %10s %8.0f %10s %9.0f %9s %10s\n' "$file_mb" "$entries" "$steps" "$t" "$((p / 1024))" "$pt" "$((pp / 1024))" \
        "$(ratio "$t" "$pt")" "$(ratio "$((p / 1024))" "$file_mb")"
done
echo "time_x: survey-bot's import time over json.load's; peak/file: survey-bot's peak resident memory over the file's size"
