#!/usr/bin/env bash
# shellcheck disable=SC2153 # MODE, NAME, OUT… are the step's environment, set in action.yml
# The steps of the GitHub Action (action.yml at the repository's root), one subcommand each:
#   prepare  check the inputs, choose the mode and the cache key of the build
#   build    build survey-bot for the cache (release, this toolchain)
#   install  put it on the PATH
#   run      run the plan (or one shard of it); the report becomes the job summary
#   merge    merge the shards' reports; the merged report becomes the job summary
#   diff     compare with the baseline; a baseline that should be there and is not fails
#   verdict  fail the step on the run's verdict, a regression or a missing baseline
# Inputs come as environment variables (INPUT_*, and earlier steps' outputs), never pasted into
# the script, and outputs go to $GITHUB_OUTPUT. Nothing here fails before `verdict` but a wrong
# input or a build that fails: the summary and the uploads come first, whatever the verdict.
# deploy/check.sh runs these subcommands outside GitHub, with the runner's files made up.
set -euo pipefail

output() { printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; }
summary() { cat >>"$GITHUB_STEP_SUMMARY"; }
# An annotation on the run's page, and the same words in the job summary.
loud() { # LEVEL (warning|error) MESSAGE
    echo "::$1 title=survey-bot::$2"
    case "$1" in warning) kind=WARNING ;; *) kind=CAUTION ;; esac
    printf '\n> [!%s]\n> %s\n\n' "$kind" "$2" | summary
}
die() { echo "::error title=survey-bot::$*"; exit 2; }

bin_name=survey-bot
out=${OUT:-} # survey-bot-reports/NAME, relative to the workspace, where the artifact steps look

case "${1:-}" in
prepare)
    plan=${INPUT_PLAN:-}
    shard=${INPUT_SHARD:-}
    case "${INPUT_MERGE:-false}" in true | false) ;; *) die "merge is \"true\" or \"false\", not \"$INPUT_MERGE\"" ;; esac
    if [ "${INPUT_MERGE:-false}" = true ]; then
        [ -z "$shard" ] || die "a step merges (merge: true) or runs a shard (shard: $shard), not both"
        mode=merge
    elif [ -n "$shard" ]; then
        if ! [[ "$shard" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
            die "shard is \"i/n\" with 1 <= i <= n, like 2/4, not \"$shard\""
        fi
        [ -n "$plan" ] || die "shard $shard of which plan? (plan is empty)"
        mode=shard
        output shard-slug "${BASH_REMATCH[1]}-of-${BASH_REMATCH[2]}"
    elif [ -n "$plan" ]; then
        mode=run
    else
        mode=build
    fi
    if [ "$mode" = run ] || [ "$mode" = shard ]; then
        [ -f "$plan" ] || die "no plan at $plan (a path in the workspace: is the repository checked out?)"
    fi
    name=${INPUT_NAME:-$(basename "${plan%.plan}")}
    [ -n "$name" ] || [ "$mode" = build ] || die "merge needs the plan or a name: the shards' artifacts are named after it"
    # A name goes into a path (survey-bot-reports/NAME) and into $GITHUB_OUTPUT: a name, nothing else.
    if [ -n "$name" ] && { ! [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$ ]] || [[ "$name" == *..* ]]; }; then
        die "name is letters, digits, '.', '_' and '-' (a letter or digit first, no '..', at most 100), not \"$(printf '%q' "$name")\": it names the artifacts and the reports' folder"
    fi
    if [ "$mode" = shard ] && [ -n "${INPUT_BASELINE:-}" ]; then
        die "a shard is not compared with a baseline: give baseline to the step that merges"
    fi
    command -v swift >/dev/null ||
        die "survey-bot is built with a Swift 6 toolchain, and this job has none: run the job in a Swift image (container: swift:6.3-bookworm) or set one up first"
    # One build per toolchain, system and source: the cache key says all three.
    # shellcheck source=/dev/null
    os=$(. /etc/os-release && echo "$ID-${VERSION_ID:-rolling}")
    toolchain=$(swift --version 2>/dev/null | sha256sum | cut -c1-16)
    source=$(cd "$GITHUB_ACTION_PATH" && find Package.swift Sources -type f -print0 | LC_ALL=C sort -z |
        xargs -0 sha256sum | sha256sum | cut -c1-16)
    output key "survey-bot-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$os-swift-$toolchain-src-$source"
    output bin-dir "$RUNNER_TEMP/survey-bot-bin"
    output mode "$mode"
    output judged "$([ "$mode" = run ] || [ "$mode" = merge ] && echo true || echo false)"
    output name "$name"
    out="survey-bot-reports/$name"
    output out "$out"
    # A self-hosted runner keeps the workspace: no report of an earlier job may be taken for this one's.
    [ "$mode" = build ] || rm -rf "${out:?}"
    echo "survey-bot: $mode${plan:+ $plan}${shard:+, shard $shard}; artifacts named $name-*"
    ;;

build)
    scratch="$RUNNER_TEMP/survey-bot-build"
    swift build -c release --product survey-bot --package-path "$GITHUB_ACTION_PATH" --scratch-path "$scratch"
    install -D "$scratch/release/survey-bot" "$BIN_DIR/$bin_name"
    ;;

install)
    [ -x "$BIN_DIR/$bin_name" ] || die "no survey-bot in $BIN_DIR: the build or the cache failed"
    echo "$BIN_DIR" >>"$GITHUB_PATH"
    output survey-bot "$BIN_DIR/$bin_name"
    "$BIN_DIR/$bin_name" --version
    ;;

run)
    args=(run "$INPUT_PLAN" --out "$out/run" --format "json,markdown,html,junit" --run-id "$INPUT_RUN_ID")
    [ -z "${INPUT_TARGET:-}" ] || args+=(--target "$INPUT_TARGET")
    while IFS= read -r line; do
        [ -z "${line//[[:space:]]/}" ] || args+=(--set "$line")
    done <<<"${INPUT_SET:-}"
    read -r -a extra <<<"${INPUT_ARGS:-}" # split at white space, as the input says; no globbing
    args+=("${extra[@]}")
    [ -z "${INPUT_SHARD:-}" ] || args+=(--shard "$INPUT_SHARD")
    rm -rf "${out:?}/run"
    mkdir -p "$out"
    set +e
    survey-bot "${args[@]}"
    status=$?
    set -e
    output exit-code "$status"
    latest=$(find "$out/run" -maxdepth 1 -name '*-latest.json' 2>/dev/null | head -1)
    if [ -z "$latest" ]; then
        loud error "survey-bot run wrote no report (exit $status): see the step's log"
        exit 0
    fi
    if [ -n "${INPUT_SHARD:-}" ]; then
        report="$out/shard-${INPUT_SHARD/\//-of-}.json"
        cp "$latest" "$report"
        # A shard's thresholds are judged on the whole run, by the step that merges.
        printf '### survey-bot: shard %s of run %s\n\nExit %s; judged with the other shards where they are merged.\n' \
            "$INPUT_SHARD" "$INPUT_RUN_ID" "$status" | summary
    else
        report="$out/report.json"
        for ext in json md html xml; do cp "${latest%.json}.$ext" "$out/report.$ext"; done
        summary <"$out/report.md"
    fi
    output report "$report"
    ;;

merge)
    shopt -s nullglob
    shards=("$out"/shards/*.json)
    rm -f "$out"/report.*
    if [ ${#shards[@]} -eq 0 ]; then
        loud error "no shard reports to merge: no artifact named $NAME-shard-* in this run (did every shard job fail before its upload?)"
        output exit-code 2
        exit 0
    fi
    set +e
    survey-bot merge "${shards[@]}" --out "$out/report.json" --allow-partial
    status=$?
    set -e
    output exit-code "$status"
    # Whatever was merged is summarized: a failed threshold or a lost shard is when it matters.
    if [ -f "$out/report.json" ]; then
        survey-bot report "$out/report.json" --format markdown >"$out/report.md"
        survey-bot report "$out/report.json" --format html >"$out/report.html"
        survey-bot report "$out/report.json" --format junit >"$out/report.xml"
        summary <"$out/report.md"
        output report "$out/report.json"
    else
        loud error "the shards' reports could not be merged (exit $status): the step's log names each problem"
    fi
    ;;

diff)
    new="$out/report.json"
    [ -f "$new" ] || { echo "no report to compare"; exit 0; }
    case "$INPUT_BASELINE" in
    previous)
        base="$out/baseline/report.json"
        case "${LOOKUP_STATE:-}" in
        found)
            if [ ! -f "$base" ]; then
                loud error "no comparison: the report of $LOOKUP_MESSAGE could not be downloaded, so the regression gate could not run"
                output problem "the baseline could not be downloaded"
                exit 0
            fi
            where="the last successful run, $LOOKUP_MESSAGE" ;;
        none)
            # The first run on the branch: nothing to compare with, and nothing wrong.
            loud warning "no comparison: $LOOKUP_MESSAGE, so the regression gate is off for this run; the next runs compare with this one's report once it passes"
            exit 0 ;;
        *)
            loud error "no comparison: ${LOOKUP_MESSAGE:-the previous run was not looked up}; the regression gate could not run"
            output problem "${LOOKUP_MESSAGE:-no previous run}"
            exit 0 ;;
        esac ;;
    *)
        base=$INPUT_BASELINE
        if [ ! -f "$base" ]; then
            loud error "no comparison: the baseline $base does not exist; the regression gate could not run"
            output problem "no baseline at $base"
            exit 0
        fi
        where="$base" ;;
    esac
    args=(diff "$base" "$new" --format markdown)
    while IFS= read -r line; do
        [ -z "${line//[[:space:]]/}" ] || args+=(--tolerance "$line")
    done <<<"${INPUT_TOLERANCE:-}"
    printf '\n## Compared with %s\n\n' "$where" | summary
    set +e
    survey-bot "${args[@]}" >"$out/diff.md"
    status=$?
    set -e
    summary <"$out/diff.md"
    output exit-code "$status"
    ;;

verdict)
    code=${EXIT_CODE:-}
    failed=0
    if [ "$MODE" = shard ]; then
        # 1 is a failed threshold of one shard: the merge judges the whole.
        case "$code" in 0 | 1) ;; *) echo "::error title=survey-bot::the shard's run exited ${code:-without a code}"; failed=1 ;; esac
    else
        case "$code" in
        0) ;;
        1) echo "::error title=survey-bot::the run failed: a threshold, a partial merge or no respondent completed (the job summary says which)"; failed=1 ;;
        *) echo "::error title=survey-bot::survey-bot exited ${code:-without a code}: see the step's log"; failed=1 ;;
        esac
        if [ -n "${BASELINE_PROBLEM:-}" ]; then
            echo "::error title=survey-bot::no comparison with the baseline: $BASELINE_PROBLEM"
            failed=1
        fi
        case "${DIFF_EXIT_CODE:-}" in
        '' | 0) ;;
        1) echo "::error title=survey-bot::a regression against the baseline (the job summary shows which figures)"; failed=1 ;;
        *) echo "::error title=survey-bot::survey-bot diff exited $DIFF_EXIT_CODE"; failed=1 ;;
        esac
    fi
    [ "$failed" -eq 0 ] && echo "survey-bot: passed"
    exit "$failed"
    ;;

*)
    echo "usage: action.sh prepare|build|install|run|merge|diff|verdict" >&2
    exit 2
    ;;
esac
