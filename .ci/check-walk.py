# One style's walk in .ci/check-walks, reconciled: the report's N respondents against what the
# reference server stored while they ran (/__stats before and after the run), and against what
# one browser's walk stored (/__stats after the first walk, on a fresh server) — or, when the plan
# answers from its answers: (a folded page loop) and the report counts each question's answers,
# against the report's own figures, question by question and value by value. Prints the
# style's row of the table (tab-separated) and exits 1 at the first count that differs.
#
#   python3 check-walk.py NAME DIR REPORT.json RESPONDENTS
#
# DIR holds import.err (the import's summary), replay.out (its verdict), walk1.stats.json,
# before.json and after.json.
import json
import re
import sys
from collections import Counter

name, directory, report_path, respondents = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def fail(message):
    sys.exit(f"check-walks: {name}: {message}")


def load(file):
    with open(f"{directory}/{file}") as handle:
        return json.load(handle)


def stored(stats):
    """What a /__stats says the server stored: responses, answers, and each question's counts."""
    part = stats["stored"]
    by_value = Counter({(q, v): n for q, values in part["answers_by_question"].items() for v, n in values.items()})
    return part["responses"], part["answers"], by_value, Counter(part["shown_by_question"])


summary = open(f"{directory}/import.err").read()
recorded = re.search(r"recorded (\d+) requests of (\S+): (\d+) kept as steps, (\d+) left out", summary)
steps = re.search(r"→ \S+: (\d+) steps?", summary)
if not recorded or not steps:
    fail(f"the import's summary names no requests or steps:\n{summary}")
if not recorded.group(2).startswith("http://127.0.0.1:"):
    fail(f"the plan's origin is {recorded.group(2)}, not loopback")
correlations = re.findall(r"^\s*correlation: (\$\{session\.[a-z0-9_]+\})", summary, re.MULTILINE)

# The replay's table: a row per step replayed, its shape `same (…)`, or `not compared: …` for a
# response whose body the recording lacks (its status still compared).
replayed = [m.group(1) for m in map(re.compile(r"^.+?\s+\d{3}\s+\d{3}\s+(same|not compared)\b").match, open(f"{directory}/replay.out")) if m]
if not replayed or len(replayed) != sum(1 for line in open(f"{directory}/replay.out")) - 2:
    fail("the replay's table has a step that is neither the same nor passed over for want of a body")

report = json.load(open(report_path))
completed = report["respondents"]["completed"]
if not report["passed"] or report["interrupted"] or completed != respondents:
    fail(f"the run did not complete its {respondents} respondents: {report['respondents']}")

walk_responses, walk_answers, walk_by_value, walk_shown = stored(load("walk1.stats.json"))
before, after = stored(load("before.json")), stored(load("after.json"))
responses, answers = after[0] - before[0], after[1] - before[1]
by_value, shown = after[2] - before[2], after[3] - before[3]
if walk_responses != 1:
    fail(f"the browser's first walk stored {walk_responses} responses, not 1")
if responses != completed:
    fail(f"the server stored {responses} responses while the run's {completed} respondents completed")
varied = bool((report.get("questions") or {}).get("by_id"))
if not varied and answers != completed * walk_answers:
    fail(f"the server stored {answers} answers, not {completed} × the walk's {walk_answers}")
cells = [f"{responses} stored = {completed} completed", f"{answers} answers" + ("" if varied else f" = {completed} × {walk_answers}")]
submitted = report["answers"]["submitted"]
if submitted:
    # The report counts answers when the plan sends them itself (a folded page loop's ${answers}).
    if submitted != answers:
        fail(f"the server stored {answers} answers, the report says {submitted} submitted")
    cells[-1] += f" = {submitted} submitted"
figures = (report.get("questions") or {}).get("by_id") or {}
if figures and walk_by_value:
    # A folded page loop answers from the plan's answers (two walks' values, one picked per
    # respondent): the server's counts are reconciled with the report's own, question by question.
    reported = Counter()
    for question, counts in figures.items():
        for value, n in counts["answers"].items():
            for one in value.split(","):
                text = ("(text)" if (question, "(text)") in by_value else one)
                reported[(question, text)] += n
    if by_value != reported:
        fail(f"answers by question and value: the server stored {dict(by_value)}, the report says {dict(reported)}")
    report_shown = Counter({q: f["shown"] for q, f in figures.items() if f["shown"]})
    if shown != report_shown:
        fail(f"questions shown: the server counted {dict(shown)}, the report says {dict(report_shown)}")
    cells.append(f"{len(by_value)} answers by question and value, {len(shown)} questions shown: each the report's")
elif walk_by_value or walk_shown:
    expected = Counter({key: completed * n for key, n in walk_by_value.items()})
    if by_value != expected:
        fail(f"answers by question and value: the server stored {dict(by_value)}, expected {dict(expected)}")
    if shown != Counter({q: completed * n for q, n in walk_shown.items()}):
        fail(f"questions shown: the server counted {dict(shown)}, expected {completed} × {dict(walk_shown)}")
    cells.append(f"{len(walk_by_value)} answers by question and value, {len(walk_shown)} questions shown: each {completed} × the walk's")

row = [
    name,
    recorded.group(1),
    f"{recorded.group(3)} kept, {recorded.group(4)} left out: {steps.group(1)} steps",
    f"{len(correlations)}: {', '.join(correlations)}" if correlations else "0",
    f"exit 0: {replayed.count('same')} of {len(replayed)} the same"
    + (f" ({replayed.count('not compared')} without a body in the recording: status only)" if "not compared" in replayed else ""),
    "; ".join(cells),
]
print("\t".join(row))
