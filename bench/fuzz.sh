#!/usr/bin/env bash
# The full-size fuzzing runs: 100,000 mutated plans through the plan parser and 10,000 mutated
# report files — their timelines too — through `report` (markdown, html, csv, text, junit,
# prometheus), `diff` (every format) and `merge`. The same seeded mutations as the slices in
# `swift test`, only more of them. Any crash fails the run.
#
#   bench/fuzz.sh [PLANS=100000] [REPORTS=10000]
set -euo pipefail
cd "$(dirname "$0")/.."
plans=${1:-100000}
reports=${2:-10000}
SURVEY_BOT_FUZZ_PLANS=$plans swift test --filter PlanFuzzTests 2>&1 | grep -E "plan fuzz|Test run|✘"
SURVEY_BOT_FUZZ_REPORTS=$reports swift test --filter ReportFuzzTests 2>&1 | grep -E "report fuzz|Test run|✘"
