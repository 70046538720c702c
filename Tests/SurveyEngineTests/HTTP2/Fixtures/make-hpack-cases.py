#!/usr/bin/env python3
"""Writes hpack-test-case.txt from a checkout of github.com/http2jp/hpack-test-case (MIT
licence, HTTP/2 Japan Community): for one story of each encoder there, every case's table
size, wire bytes and header list, so that HPACKTests decode other implementations' header
blocks. One line per case: `encoder/story seqno table_size wire_hex headers_json`.

    python3 make-hpack-cases.py PATH_TO_CHECKOUT > hpack-test-case.txt
"""
import json, os, sys

root = sys.argv[1]
encoders = ["nghttp2", "nghttp2-change-table-size", "nghttp2-16384-4096", "go-hpack", "python-hpack",
            "node-http2-hpack", "swift-nio-hpack-huffman", "haskell-http2-linear-huffman"]
# One story of each encoder, a different one each: 8 stories of header lists, 8 encoders' ways.
# None of them holds an IPv4 address: the repository names no address but loopback (stories 20,
# 22, 25, 26, 29, 30 and 31 carry forwarded-for and such).
stories = {"nghttp2": "story_00.json", "nghttp2-change-table-size": "story_04.json", "nghttp2-16384-4096": "story_08.json",
           "go-hpack": "story_12.json", "python-hpack": "story_16.json", "node-http2-hpack": "story_21.json",
           "swift-nio-hpack-huffman": "story_24.json", "haskell-http2-linear-huffman": "story_28.json"}
print("# From github.com/http2jp/hpack-test-case (MIT licence, HTTP/2 Japan Community), made by make-hpack-cases.py.")
for encoder in encoders:
    for story in [stories[encoder]]:
        path = os.path.join(root, encoder, story)
        if not os.path.exists(path):
            continue
        size = 4096
        for case in json.load(open(path))["cases"]:
            size = case.get("header_table_size") or size
            headers = [[k, v] for h in case["headers"] for k, v in h.items()]
            print(f'{encoder}/{story[:-5]} {case["seqno"]} {size} {case["wire"]} {json.dumps(headers, separators=(",", ":"), ensure_ascii=False)}')
