#!/usr/bin/env bash
# The cost of answering from what the survey lists: ten questions of four types (choices,
# several choices, a number within bounds, free text) answered from their types, choices and
# bounds (bench/plans/answers-survey.plan) against the same questions answered with fixed values
# (bench/plans/answers-fixed.plan), both run by survey-bot with one thread against the same
# nginx, interleaved, as attempts per CPU-second of survey-bot's own (user + system, GNU time),
# and its peak memory. With BASELINE=path/to/an/older/survey-bot, the fixed plan is also run by
# that binary: the cost of what this one records per question.
#
#   bench/answers.sh [CONCURRENCY=50] [DURATION=5] [ROUNDS=5]
source "$(dirname "$0")/common.sh"
concurrency=${1:-50}
duration=${2:-5}
rounds=${3:-5}

need_packages
need /usr/bin/time=time
build_release
start_nginx 18080
python3 - "$out/nginx/typed.json" <<'PY'
import json, sys
kinds = ["single", "multiple", "number", "text"]
questions = []
for i in range(1, 11):
    kind = kinds[(i - 1) % 4]
    q = {"id": i, "question": f"Question {i}?", "type": kind, "required": i % 2 == 1}
    if kind in ("single", "multiple"):
        q["choices"] = [{"id": f"c{n}", "label": f"Choice {n}"} for n in range(1, 6)]
    if kind == "number":
        q["min"], q["max"] = 0, 10
    questions.append(q)
json.dump(questions, open(sys.argv[1], "w"))
PY
base=http://127.0.0.1:18080/typed

printf '%-6s %-14s %10s %8s %12s %8s %10s\n' round answers attempts cpu_s "attempts/cpu" rss_mb submitted
declare -a ratios baseline_ratios
for round in $(seq 1 "$rounds"); do
    read -r fa fc fm fn _ ff < <(run_plan answers-fixed "$bot" "$root/bench/plans/answers-fixed.plan" "$base")
    read -r sa sc sm sn _ sf < <(run_plan answers-survey "$bot" "$root/bench/plans/answers-survey.plan" "$base")
    [ "$ff" = 0 ] && [ "$sf" = 0 ] || { echo "failed attempts: fixed $ff, from the survey $sf" >&2; exit 1; }
    frate=$(awk -v a="$fa" -v c="$fc" 'BEGIN { printf "%.0f", a / c }')
    srate=$(awk -v a="$sa" -v c="$sc" 'BEGIN { printf "%.0f", a / c }')
    printf '%-6s %-14s %10s %8.2f %12s %8.1f %10s\n' "$round" fixed "$fa" "$fc" "$frate" "$fm" "$fn"
    printf '%-6s %-14s %10s %8.2f %12s %8.1f %10s\n' "$round" from-survey "$sa" "$sc" "$srate" "$sm" "$sn"
    ratios+=("$(ratio "$srate" "$frate")")
    if [ -n "${BASELINE:-}" ]; then
        read -r ba bc bm bn _ bf < <(run_plan answers-baseline "$BASELINE" "$root/bench/plans/answers-fixed.plan" "$base")
        brate=$(awk -v a="$ba" -v c="$bc" 'BEGIN { printf "%.0f", a / c }')
        printf '%-6s %-14s %10s %8.2f %12s %8.1f %10s\n' "$round" fixed-baseline "$ba" "$bc" "$brate" "$bm" "$bn"
        baseline_ratios+=("$(ratio "$frate" "$brate")")
    fi
done
printf 'from the survey / fixed answers, attempts per CPU-second: %s\n' "${ratios[*]}"
[ -z "${BASELINE:-}" ] || printf 'this binary / the baseline, fixed answers, attempts per CPU-second: %s\n' "${baseline_ratios[*]}"
