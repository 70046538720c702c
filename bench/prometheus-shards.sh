#!/usr/bin/env bash
# Shards through Prometheus, proven: three shards of one run, each serving --metrics-listen, a
# real Prometheus (Debian's) scraping them every 500 ms on loopback, and at the end the PromQL
# sums of the shards equal to what `survey-bot merge` makes of their reports — every counter and
# every histogram bucket exactly, each step's p50/p95/p99 within one bucket — and every query of
# the Grafana dashboard (deploy/grafana/survey-bot-shards.json) run against that Prometheus: the
# live ones must have data mid-run, the totals must equal the merge. Prints a table, exits 1 on
# any mismatch. About 20 s; installs prometheus from Debian if it is missing.
#
#   bench/prometheus-shards.sh [SURVEY_BOT]   # the release executable; built if not given
#
# The end of a run. A shard's listener renders its figures once a second, so the last scrape of a
# shard that Prometheus gets while it runs lacks whatever the shard did after it (up to the
# render interval plus the scrape interval): the script measures that gap and prints it. Each
# shard runs with --metrics-linger, as the Kubernetes Job does: once its run has ended, its
# listener serves the final figures, verdict and all, until the linger is over or a SIGTERM ends
# it. `survey_bot_passed` is in the final figures only, so once Prometheus has it from all three
# shards it has scraped each one's final state: only then are the totals compared, so the
# comparison is exact by construction, not by luck of timing. The script also checks that each
# shard's series are as many in Prometheus as in its final figures (a label that changed at the
# end would split them, and double them in a sum). Then it ends the lingering shards with SIGTERM.
#
# Everything listens on 127.0.0.1 and stops by itself; the script kills only the processes it
# started, by their PIDs, when it exits.
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"

need prometheus=prometheus

if [ $# -ge 1 ]; then
    bot=$(realpath "$1")
else
    (cd "$root" && swift build -c release --product survey-bot >&2)
    bot="$root/.build/release/survey-bot"
fi
[ -x "$bot" ] || { echo "prometheus-shards.sh: no survey-bot at $bot" >&2; exit 2; }

work="$out/prometheus-shards"
rm -rf "$work" && mkdir -p "$work"
pids=()
cleanup() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT

# Five free loopback ports: the survey server, Prometheus, and one per shard.
read -r server_port prom_port port1 port2 port3 < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(5)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])')
ports=("$port1" "$port2" "$port3")

# One server for the three shards, as a staging server takes a sharded run's load: answers in
# 1 to 40 ms (over several of the histograms' buckets), 5% of them 500 (retried), 1% of the
# connections reset, so that outcomes, retries and failures all have something to add up.
"$bot" serve --port "$server_port" --latency 1ms..40ms --error-rate 5% --reset-rate 1% --seed 7 --threads 1 \
    >"$work/serve.log" 2>&1 &
pids+=($!)
wait_for_port "$server_port"

cat >"$work/shards.plan" <<PLAN
name: shards
target: http://127.0.0.1:$server_port
rate: 45/s                # the whole run's arrivals: each of the 3 shards takes every third
duration: 4s
concurrency: 30
timeout: 2s
seed: 7
thresholds:
  submit.success_rate: ">= 90%"
report:
  formats: [json, prometheus]
PLAN

cat >"$work/prometheus.yml" <<PROM
global:
  scrape_interval: 500ms
  scrape_timeout: 400ms
scrape_configs:
  - job_name: survey-bot-shards
    static_configs:
      - targets: ["127.0.0.1:$port1", "127.0.0.1:$port2", "127.0.0.1:$port3"]
PROM
promtool check config "$work/prometheus.yml" >/dev/null
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
pids+=($!)
prom="http://127.0.0.1:$prom_port"
for _ in $(seq 1 100); do curl -sf "$prom/-/ready" >/dev/null && break; sleep 0.1; done
curl -sf "$prom/-/ready" >/dev/null || { cat "$work/prometheus.log" >&2; echo "Prometheus did not start" >&2; exit 1; }
# Prometheus hands new targets to its scrapers some seconds after it starts (its discovery
# updates are throttled to one every 5 s): the shards start once it has tried all three, so that
# it scrapes them from their first second.
for _ in $(seq 1 150); do
    tried=$(curl -sf "$prom/api/v1/targets" | python3 -c '
import json, sys
targets = json.load(sys.stdin)["data"]["activeTargets"]
print(sum(1 for t in targets if not t["lastScrape"].startswith("0001-")))')
    [ "$tried" = 3 ] && break
    sleep 0.1
done
[ "$tried" = 3 ] || { echo "Prometheus did not take up the 3 shard targets" >&2; exit 1; }

run_id="prom-$(date -u +%Y%m%dT%H%M%SZ)"
started=$(date +%s.%N)
shard_pids=()
for i in 1 2 3; do
    "$bot" run "$work/shards.plan" --shard "$i/3" --run-id "$run_id" --out "$work/shard-$i" --quiet \
        --metrics-listen "127.0.0.1:${ports[$((i - 1))]}" --metrics-linger 60s >"$work/shard-$i.log" 2>&1 &
    shard_pids+=($!)
    pids+=($!)
done
# A shard's run has ended when its listener serves the report (404 before).
for i in 1 2 3; do
    for _ in $(seq 1 300); do
        curl -sf -o /dev/null "http://127.0.0.1:${ports[$((i - 1))]}/report.json" && break
        kill -0 "${shard_pids[$((i - 1))]}" 2>/dev/null || break
        sleep 0.1
    done
done
live_end=$(date +%s.%N)
echo "three shards of run $run_id done in $(awk -v a="$started" -v b="$live_end" 'BEGIN { printf "%.1f", b - a }') s"

# survey_bot_passed is in a shard's final figures only: once Prometheus has it from all three,
# it has scraped each shard's final state.
for _ in $(seq 1 100); do
    scraped=$(curl -sf "$prom/api/v1/query" --data-urlencode "query=count(survey_bot_passed{run_id=\"$run_id\"})" |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
    [ "$scraped" = 3 ] && break
    sleep 0.1
done
[ "$scraped" = 3 ] || { echo "Prometheus scraped the final figures of $scraped of the 3 shards" >&2; exit 1; }
# Each shard's final figures as its listener serves them, for the series count below.
for i in 1 2 3; do
    curl -sf "http://127.0.0.1:${ports[$((i - 1))]}/metrics" >"$work/shard-$i/final.prom"
done
# The linger ends on SIGTERM; the exit status is the run's (1: a threshold failed, still a report).
for i in 1 2 3; do
    kill -TERM "${shard_pids[$((i - 1))]}" 2>/dev/null || true
    status=0
    wait "${shard_pids[$((i - 1))]}" || status=$?
    [ "$status" -le 1 ] || { cat "$work/shard-$i.log" >&2; echo "shard $i/3 exited $status" >&2; exit 1; }
done

merged_status=0
"$bot" merge "$work"/shard-*/shards-shard-*-of-3-latest.json --out "$work/merged.json" >"$work/merge.log" 2>&1 ||
    merged_status=$?
[ "$merged_status" -le 1 ] || { cat "$work/merge.log" >&2; echo "merge exited $merged_status" >&2; exit 1; }
"$bot" report "$work/merged.json" --format prometheus >"$work/merged.prom"

python3 - "$prom" "$work" "$run_id" "$started" "$live_end" "$root/deploy/grafana/survey-bot-shards.json" <<'PY'
import json, math, re, sys, urllib.parse, urllib.request

prom, work, run_id, started, live_end, dashboard_path = sys.argv[1:7]
started, live_end = float(started), float(live_end)
job = 'job="survey-bot-shards"'
# The fixed `le` bounds of every shard's latency histograms (PrometheusReport.latencyBounds).
bounds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, math.inf]
problems = []


def query(expr, at=None):
    """An instant query: [(labels, value)]."""
    params = {"query": expr}
    if at is not None:
        params["time"] = f"{at:.3f}"
    with urllib.request.urlopen(f"{prom}/api/v1/query?" + urllib.parse.urlencode(params), timeout=10) as response:
        answer = json.load(response)
    if answer["status"] != "success":
        sys.exit(f"Prometheus refused {expr}: {answer}")
    return [(r["metric"], float(r["value"][1])) for r in answer["data"]["result"]]


def parse(path):
    """A .prom file: {metric name: {frozenset(labels): value}}, and each family's type."""
    samples, types = {}, {}
    line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
    label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            types[name] = kind
        if not line or line.startswith("#"):
            continue
        name, labels, value = line_re.match(line).groups()
        key = frozenset(label_re.findall(labels or ""))
        samples.setdefault(name, {})[key] = float(value)
    return samples, types


def family_of(name, types):
    for suffix in ("_bucket", "_sum", "_count", ""):
        if name.endswith(suffix) and name[: len(name) - len(suffix)] in types:
            return name[: len(name) - len(suffix)]
    return name


def equal(name, a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) if name.endswith("_sum") else a == b


merged, types = parse(f"{work}/merged.prom")
# Each shard's final figures as its listener served them once its run had ended.
shard_files = {f"{i}/3": parse(f"{work}/shard-{i}/final.prom")[0] for i in (1, 2, 3)}
merged_report = json.load(open(f"{work}/merged.json"))

# 1. Every counter and histogram sample of the merge, against the shards' series summed in PromQL.
compared = 0
for name, expected in sorted(merged.items()):
    if types.get(family_of(name, types)) not in ("counter", "histogram"):
        continue
    got = {}
    for labels, value in query(f'sum without (instance, job, shard) (last_over_time({{__name__="{name}", {job}}}[1h]))'):
        got[frozenset(labels.items())] = value
    for key in expected.keys() | got.keys():
        compared += 1
        if key not in got or key not in expected or not equal(name, got[key], expected[key]):
            problems.append(f"{name}{dict(key)}: PromQL {got.get(key)}, merge {expected.get(key)}")
families = {family_of(n, types) for n in merged if types.get(family_of(n, types)) in ("counter", "histogram")}
print(f"PromQL sums of the 3 shards against merge: {compared} samples of {len(families)} counter and histogram families, "
      f"{'all equal' if not problems else f'{len(problems)} differ'}")

# 2. Each shard: its series as many in Prometheus as in its final figures, and what the last scrape
# before its end missed. The runs ended at most a poll (0.1 s) before live_end; Prometheus scrapes
# every 0.5 s: a sample of 0.6 s before live_end is the last one or two of the run as it went.
print(f"\n{'shard':<6} {'series':>7} {'attempts':>9} {'last live scrape':>17} {'gap':>5}")
for shard, samples in shard_files.items():
    attempts = samples["survey_bot_attempts_total"]
    series = query(f'count(last_over_time(survey_bot_attempts_total{{{job}, shard="{shard}"}}[1h]))')
    live = query(f'sum(last_over_time(survey_bot_attempts_total{{{job}, shard="{shard}"}}[1h]))', at=live_end - 0.6)
    final = query(f'sum(last_over_time(survey_bot_attempts_total{{{job}, shard="{shard}"}}[1h]))')
    count = int(series[0][1]) if series else 0
    total = int(sum(attempts.values()))
    live_count = int(live[0][1]) if live else 0
    if count != len(attempts):
        problems.append(f"shard {shard}: {count} attempts series in Prometheus, {len(attempts)} in its final figures (split series?)")
    if not final or int(final[0][1]) != total:
        problems.append(f"shard {shard}: Prometheus ends at {final[0][1] if final else None} attempts, the shard's report {total}")
    print(f"{shard:<6} {count:>7} {total:>9} {live_count:>17} {total - live_count:>5}")

# 3. The dashboard's queries, as Grafana would send them.
dashboard = json.load(open(dashboard_path))
merged_attempts = {dict(k)["endpoint"] + " " + dict(k)["outcome"]: v for k, v in merged["survey_bot_attempts_total"].items()}
expected_tables = {
    "Attempts by step and outcome": merged_attempts,
    "Failed attempts by step and outcome": {k: v for k, v in merged_attempts.items() if not re.fullmatch(r"2..", k.split(" ")[1])},
    "Calls by step and result": {dict(k)["endpoint"] + " " + dict(k)["result"]: v for k, v in merged["survey_bot_calls_total"].items()},
    "Respondents by ending": {dict(k)["ending"]: v for k, v in merged["survey_bot_respondents_total"].items()},
}
expected_stats = {"Shards in the totals": 3}


def bucket(value):
    return next(i for i, bound in enumerate(bounds) if value <= bound)


def substitute(expr, live):
    return (expr.replace("$plan", "shards").replace("$run_id", run_id)
            .replace("$__rate_interval", "2s").replace("$__range", "1h"))


mid = started + 2.5
live_panels, total_panels, rows = 0, 0, []
for panel in dashboard["panels"]:
    if panel["type"] == "row":
        continue
    title = panel["title"]
    for target in panel["targets"]:
        expr = target["expr"]
        live = "$__rate_interval" in expr or "$__range" not in expr
        result = query(substitute(expr, live), at=mid if live else None)
        if live:
            live_panels += 1
            if not result:
                problems.append(f"dashboard panel {title!r} ({target['refId']}): no data mid-run")
            continue
        total_panels += 1
        if title in expected_stats:
            got = result[0][1] if result else None
            if got != expected_stats[title]:
                problems.append(f"dashboard panel {title!r}: {got}, expected {expected_stats[title]}")
        elif title in expected_tables:
            got = {" ".join(v for k, v in sorted(labels.items(), key=lambda kv: ("endpoint", "outcome", "result", "ending").index(kv[0]))): value
                   for labels, value in result}
            if got != expected_tables[title]:
                problems.append(f"dashboard panel {title!r}: {got} but merge says {expected_tables[title]}")
        elif title == "Latency percentiles by step (whole run)":
            q = re.match(r"histogram_quantile\((0\.\d+),", expr).group(1)
            name = {"0.5": "p50", "0.95": "p95", "0.99": "p99"}[q]
            for labels, value in result:
                step = labels["endpoint"]
                merge_ms = merged_report["endpoints"][step]["latency_ms"][name]
                a, b = bucket(value), bucket(merge_ms / 1000)
                near = any(abs(merge_ms / 1000 - bound) <= 0.008 * bound for bound in bounds[:-1])
                ok = a == b or (abs(a - b) == 1 and near)
                rows.append((step, name, value * 1000, merge_ms, bounds[a - 1] if a else 0, bounds[a], ok))
                if not ok:
                    problems.append(f"{step} {name}: PromQL {value * 1000:.3f} ms, merge {merge_ms} ms: not within one bucket")
        else:
            problems.append(f"dashboard panel {title!r}: the bench does not know what to expect of it")

print(f"\ndashboard: {live_panels} live queries with data mid-run, {total_panels} totals queries checked against merge")
print(f"\n{'step':<10} {'':4} {'PromQL':>10} {'merge':>10}   bucket of the PromQL value")
for step, name, promql_ms, merge_ms, low, high, ok in sorted(rows, key=lambda r: (r[0], r[1])):
    print(f"{step:<10} {name:4} {promql_ms:>7.2f} ms {merge_ms:>7.2f} ms   ({low * 1000:g}, {high * 1000:g}] ms{'' if ok else '  MISMATCH'}")

print(f"\n{'step':<10} {'attempts':>9} {'failed':>7} {'calls':>6}   PromQL = merge")
for step, figures in merged_report["endpoints"].items():
    print(f"{step:<10} {figures['attempts']:>9} {figures['failed_attempts']:>7} {figures['calls']:>6}")

if problems:
    print("\nFAILED:", *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print("\nPromQL over the 3 shards equals merge: every count exactly, every percentile within one bucket")
PY
