#!/usr/bin/env bash
# Regenerates the screenshots of the HTML report in docs/img/ (shown by the README): two runs of
# docs/img/demo.plan on the builtin server (about 25 s each; the second with slower answers),
# the report of the second and the diff of the two, rendered by Chromium headless, light and
# dark. Loopback only: the plan's target is the in-process builtin server.
#
#   docs/img/update.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
browser=$(command -v chromium || command -v chromium-browser) || { echo "needs chromium" >&2; exit 1; }
swift build --product survey-bot
bin=$PWD/.build/debug/survey-bot
plan=$PWD/docs/img/demo.plan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
ls -l docs/img/*.png
