#!/usr/bin/env python3
# Checks a page as a browser drew it (the DOM Chromium dumped with --dump-dom): every chart's SVG
# has data paths with points, and no text on the page says NaN, undefined or Infinity. Used by
# .ci/check-html (the HTML reports) and .ci/check-live (the live page of a running run).
#
#   .ci/check-dom.py DOM.html NAME
#
# Exits 1, naming NAME and what is wrong, when a check fails.
import re, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts = []      # per <svg class="chart">: the number of data paths with points
        self.in_svg = False
        self.skip = 0         # inside <style> or <script> (tooltips in <title> are checked as text too)
        self.text = []
    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg" and "chart" in (attrs.get("class") or "").split():
            self.in_svg = True
            self.charts.append(0)
        if tag == "path" and self.in_svg and "data" in (attrs.get("class") or "").split():
            if re.search(r"[ML]\s*-?\d", attrs.get("d") or ""):
                self.charts[-1] += 1
        if tag in ("style", "script"):
            self.skip += 1
    def handle_endtag(self, tag):
        if tag == "svg":
            self.in_svg = False
        if tag in ("style", "script"):
            self.skip -= 1
    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)

dom, page = sys.argv[1], sys.argv[2]
parser = Page()
parser.feed(open(dom, encoding="utf-8").read())
text = " ".join(parser.text)
problems = []
if not parser.charts:
    problems.append("no chart on the page")
for index, paths in enumerate(parser.charts):
    if paths == 0:
        problems.append(f"chart {index + 1} drew no data path")
for word in ("NaN", "undefined", "Infinity"):
    if re.search(r"\b" + word + r"\b", text):
        problems.append(f"the page says {word}")
if problems:
    print(f"check-dom: {page}: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"check-dom: {page}: {len(parser.charts)} charts drew their data; no NaN, undefined or Infinity")
