#!/usr/bin/env python3
"""Writes a panel's data feed for bench/data-scale.sh: ROWS members in four columns (about 48
bytes a row, as the issue's 48 MB file of 1,000,000 rows), one colour in four quoted (a comma,
or doubled quotes), an answer.3 column half of whose cells are empty.

    bench/panel.py ROWS FILE
"""
import sys

rows, path = int(sys.argv[1]), sys.argv[2]
colours = ["blue", "red", '"green ""sea"""', '"yellow, pale"']
with open(path, "w", newline="") as f:
    f.write("member,email,colour,answer.3\n")
    lines = []
    for i in range(rows):
        lines.append(f'm-{i:08},m{i:08}@panel.example,{colours[i % 4]},{"yes" if i % 2 else ""}\n')
        if len(lines) == 65536:
            f.write("".join(lines))
            lines = []
    f.write("".join(lines))
