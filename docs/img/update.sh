#!/usr/bin/env bash
# Regenerates the screenshots of the HTML report in docs/img/ (shown by the README): two runs of
# docs/img/demo.plan on the builtin server (about 25 s each; the second with slower answers),
# the report of the second and the diff of the two, rendered by Chromium headless, light and
# dark; then the live page of a third run (docs/live.md), 15 s in. Loopback only: the plan's
# target is the in-process builtin server. With `live`, only the live page.
#
#   docs/img/update.sh [live]
set -euo pipefail
cd "$(dirname "$0")/../.."
browser=$(command -v chromium || command -v chromium-browser) || { echo "needs chromium" >&2; exit 1; }
swift build --product survey-bot
bin=$PWD/.build/debug/survey-bot
plan=$PWD/docs/img/demo.plan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The live page, 15 s into a run of the plan: asked for once first (the page is rendered on
# demand), shot a second and a half later, when its figures are those of that second.
shoot_live() {
    "$bin" run "$plan" --out "$work/live" --format json --metrics-listen 127.0.0.1:0 >/dev/null 2>"$work/live.err" &
    local run=$! port=""
    for _ in $(seq 1 100); do
        port=$(sed -n 's|^live: http://127\.0\.0\.1:\([0-9]*\)/ .*|\1|p' "$work/live.err")
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { echo "no live address: $(cat "$work/live.err")" >&2; exit 1; }
    sleep 13.5
    curl -s -o /dev/null "http://127.0.0.1:$port/"
    sleep 1.5
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1700 \
        --screenshot="$PWD/docs/img/live.png" "http://127.0.0.1:$port/" >/dev/null 2>&1
    wait "$run" || true
}
if [ "${1:-}" = live ]; then
    shoot_live
    ls -l docs/img/live.png
    exit 0
fi
# Run from the work directory, so that the pages name the reports as a user's would
# (yesterday/demo-latest.json), not by a temporary path.
cd "$work"
"$bin" run "$plan" --out yesterday --format json --quiet || true
"$bin" run "$plan" --out today --format json --quiet --set builtin.latency=4ms..22ms || true
"$bin" report today/demo-latest.json --format html >report.html
"$bin" diff yesterday/demo-latest.json today/demo-latest.json --format html >diff.html || true
cd - >/dev/null
# Every page must pass the browser's checks before it is shown anywhere.
.ci/check-html "$work/checked" "$work/report.html" "$work/diff.html"
shoot() { # page, png, height, extra flags…
    local page=$1 png=$2 height=$3
    shift 3
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,"$height" "$@" \
        --screenshot="$png" "file://$work/$page" >/dev/null 2>&1
}
shoot report.html docs/img/report.png 1400
shoot report.html docs/img/report-dark.png 1400 --force-dark-mode
shoot diff.html docs/img/diff.png 1500
shoot_live
ls -l docs/img/*.png
