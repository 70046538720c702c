#!/usr/bin/env python3
"""Checks survey-bot's Prometheus metrics with prometheus_client's own text-format parser.

    python3 bench/check-prometheus.py FILE.prom [FILE...]   # or - for standard input

Needs the prometheus_client package (a test tool, not a dependency of survey-bot):
    python3 -m venv /tmp/promvenv && /tmp/promvenv/bin/pip install prometheus_client
    /tmp/promvenv/bin/python bench/check-prometheus.py reports/smoke-latest.prom

Fails (exit 1) when the parser refuses the text, a family lacks its type, a counter its
_total, or a histogram's buckets are not cumulative up to +Inf == _count.
"""
import sys

from prometheus_client.parser import text_string_to_metric_families


def check(name, text):
    problems = []
    families = list(text_string_to_metric_families(text))
    if not families:
        problems.append("no metric families")
    for family in families:
        if family.type == "unknown":
            problems.append(f"{family.name}: no TYPE")
        if family.type == "counter" and not all(s.name.endswith("_total") for s in family.samples):
            problems.append(f"{family.name}: counter sample without _total")
        if family.type == "histogram":
            series = {}
            counts = {}
            for s in family.samples:
                key = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
                if s.name.endswith("_bucket"):
                    series.setdefault(key, []).append((float(s.labels["le"]), s.value))
                elif s.name.endswith("_count"):
                    counts[key] = s.value
            for key, buckets in series.items():
                values = [v for _, v in buckets]
                if [le for le, _ in buckets] != sorted(le for le, _ in buckets) or values != sorted(values):
                    problems.append(f"{family.name}{dict(key)}: buckets not cumulative")
                if buckets[-1][0] != float("inf") or buckets[-1][1] != counts.get(key):
                    problems.append(f"{family.name}{dict(key)}: +Inf is not _count")
    if not text.endswith("# EOF\n"):
        problems.append("does not end with # EOF")
    samples = sum(len(f.samples) for f in families)
    for problem in problems:
        print(f"{name}: {problem}", file=sys.stderr)
    print(f"{name}: {len(families)} families, {samples} samples, {'ok' if not problems else 'FAILED'}")
    return not problems


ok = True
for path in sys.argv[1:] or ["-"]:
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    try:
        ok = check(path, text) and ok
    except Exception as error:  # the parser's own refusal
        print(f"{path}: the parser refused it: {error}", file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
