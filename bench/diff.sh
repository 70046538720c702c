#!/usr/bin/env bash
# Does `survey-bot diff` know noise from regression? Twenty runs of one smoke-like plan
# (bench/plans/diff.plan, target: builtin, a new seed each run) with every consecutive pair
# diffed: a regression reported there is a false alarm (target 0 of 19). Then twenty runs with
# the builtin server's latency 30% higher, and twenty with its fail rate doubled, each diffed
# against the base run of the same number: a diff that exits 1 caught it (target at least 19 of
# 20 each). One warm-up run first, not counted. Everything runs in-process on loopback.
#
#   bench/diff.sh [RUNS=20]
#
# SURVEY_BOT=path uses that binary instead of building the release one.
source "$(dirname "$0")/common.sh"
runs=${1:-20}

if [ -n "${SURVEY_BOT:-}" ]; then
    bot=$SURVEY_BOT
else
    (cd "$root" && swift build -c release --product survey-bot >&2)
    bot="$root/.build/release/survey-bot"
fi
plan="$root/bench/plans/diff.plan"
dir="$out/diff"
rm -rf "$dir"
mkdir -p "$dir"

# run NAME SEED [OVERRIDES…]: one run of the plan into $dir/NAME-SEED.json.
run() {
    local name=$1 seed=$2
    shift 2
    "$bot" run "$plan" --seed "$seed" --out "$dir/$name-$seed" --quiet "$@" >/dev/null 2>&1 || true
    cp "$dir/$name-$seed/diffbench-latest.json" "$dir/$name-$seed.json"
}

# flagged BASE NEW NAME: prints the regressions `diff` reports, or nothing; keeps the text diff
# as $dir/NAME.txt.
flagged() {
    local status=0
    "$bot" diff "$1" "$2" --format json >"$dir/last-diff.json" || status=$?
    "$bot" diff "$1" "$2" >"$dir/$3.txt" || true
    if [ "$status" -eq 1 ]; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", ".join(r["endpoint"]+" "+r["metric"] for r in d["rows"] if r["verdict"] in ("regressed","missing")))' "$dir/last-diff.json"
    elif [ "$status" -ne 0 ]; then
        echo "diff failed with exit $status" >&2
        exit 1
    fi
}

echo "== warm-up run (not counted)"
run warmup 0

echo "== $runs runs of $plan, and as many with latency 30% higher and with the fail rate doubled"
for seed in $(seq 1 "$runs"); do
    run base "$seed"
    run slow "$seed" --set builtin.latency=6.5ms..19.5ms
    run failing "$seed" --set builtin.fail_rate=20%
done

false_alarms=0
echo "== same plan, consecutive pairs"
for seed in $(seq 2 "$runs"); do
    found=$(flagged "$dir/base-$((seed - 1)).json" "$dir/base-$seed.json" "same-$seed")
    if [ -n "$found" ]; then
        false_alarms=$((false_alarms + 1))
        echo "   runs $((seed - 1)) → $seed: $found"
    fi
done
# An improvement between two runs of one plan is noise too: in the other order it would have
# been a regression.
improvements=$( (grep -l "improved (" "$dir"/same-*.txt || true) | wc -l)
grep -h "improved (" "$dir"/same-*.txt | sed 's/^/   improved: /' || true

caught_slow=0
caught_failing=0
for seed in $(seq 1 "$runs"); do
    [ -n "$(flagged "$dir/base-$seed.json" "$dir/slow-$seed.json" "slow-$seed")" ] && caught_slow=$((caught_slow + 1))
    [ -n "$(flagged "$dir/base-$seed.json" "$dir/failing-$seed.json" "failing-$seed")" ] && caught_failing=$((caught_failing + 1))
done

python3 - "$dir" "$runs" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
def fig(kind, path):
    xs = [json.load(open(f"{d}/{kind}-{i}.json"))["endpoints"]["submit"] for i in range(1, n + 1)]
    return sum(x[path[0]] if len(path) == 1 else x[path[0]][path[1]] for x in xs) / n
for kind in ("base", "slow", "failing"):
    attempts = fig(kind, ["attempts"])
    print(f'   {kind:8} submit: {attempts:.0f} attempts, error rate {100 * fig(kind, ["failed_attempts"]) / attempts:.1f}%, '
          f'mean {fig(kind, ["latency_ms", "mean"]):.2f} ms, p95 {fig(kind, ["latency_ms", "p95"]):.2f} ms (averages of {n} runs)')
PY
pairs=$((runs - 1))
echo "same plan: $false_alarms of $pairs consecutive pairs reported a regression (target 0); $improvements reported an improvement"
echo "latency 30% higher: flagged in $caught_slow of $runs pairs; fail rate doubled: flagged in $caught_failing of $runs pairs (target at least $((runs - 1)) of $runs each)"
echo "every diff: $dir/{same,slow,failing}-*.txt"
