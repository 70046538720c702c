#!/usr/bin/env python3
"""Writes the data feed of bench/plans/data-feed.plan: 10,000 panel members, quoted fields
with commas and quotes among them, and an answer.3 column half of whose cells are empty.

    bench/members.py FILE
"""
import sys

colours = ["blue", "red", "green \"sea\"", "yellow, pale"]
with open(sys.argv[1], "w") as f:
    f.write("member,panel,colour,answer.3\n")
    for i in range(10_000):
        f.write(f'm-{i:05},panel {i % 7},"{colours[i % 4].replace(chr(34), chr(34) * 2)}",{"yes" if i % 2 else ""}\n')
