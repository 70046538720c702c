#!/usr/bin/env python3
"""Writes a HAR 1.2 recording of a long walk through an HTML survey, of about SIZE megabytes,
for bench/import.sh: the shape of a browser's recording (Chrome's fields, `_resourceType`), every
body embedded as DevTools' "Save all as HAR" does.

Each page is a document with a form (a CSRF token and a page key that change per page, a session
cookie set once, radio buttons and a text field), posted back with the answers, the last post
answered by a thank-you page; around it the
page's static assets (scripts as text, images base64) and a request to another origin; one XHR
to the survey's origin before the first post. Deterministic: the same SIZE gives the same file.

    python3 bench/har.py SIZE_MB OUT.har
"""
import base64
import json
import random
import sys
import time

size_mb = float(sys.argv[1])
out = sys.argv[2]
origin = "http://127.0.0.1:8089"
rng = random.Random(1)
entries = []
clock = [1_764_000_000.0]


def stamp():
    clock[0] += 0.05
    seconds = int(clock[0])
    millis = int((clock[0] - seconds) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def headers(pairs):
    return [{"name": n, "value": v} for n, v in pairs]


def entry(method, url, status, mime, text, kind, request_headers=(), response_headers=(), post=None, encoding=None):
    request = {
        "method": method, "url": url, "httpVersion": "HTTP/1.1",
        "headers": headers([("Host", "127.0.0.1:8089"), ("User-Agent", "HeadlessChrome/156"),
                            ("Accept", "*/*")] + list(request_headers)),
        "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0,
    }
    if post is not None:
        request["postData"] = post
        request["bodySize"] = len(post["text"])
    content = {"size": len(text), "mimeType": mime, "text": text}
    if encoding:
        content["encoding"] = encoding
    entries.append({
        "startedDateTime": stamp(), "time": 12.5, "_resourceType": kind,
        "request": request,
        "response": {
            "status": status, "statusText": "OK", "httpVersion": "HTTP/1.1",
            "headers": headers([("Content-Type", mime)] + list(response_headers)),
            "cookies": [], "content": content, "redirectURL": "", "headersSize": -1, "bodySize": len(text),
        },
        "cache": {}, "timings": {"send": 0.1, "wait": 10, "receive": 2.4},
    })


def token():
    return "".join(rng.choice("abcdef0123456789") for _ in range(40))


def page(number, csrf, key):
    questions = "".join(
        f'<div class="question"><p>Question {number}.{q}?</p>'
        + "".join(f'<label><input type="radio" name="s1X{number}X{q}" value="A{c}"> Answer {c}</label>' for c in range(1, 6))
        + "</div>"
        for q in range(1, 4)
    )
    filler = "<p>" + " ".join("lorem" for _ in range(2000)) + "</p>"
    return (
        f"<!DOCTYPE html><html><head><title>Survey page {number}</title></head><body>"
        f'<form method="post" action="/index.php/1">'
        f'<input type="hidden" name="YII_CSRF_TOKEN" value="{csrf}">'
        f'<input type="hidden" name="LEMpostKey" value="{key}">'
        f'<input type="hidden" name="thisstep" value="{number}">'
        f'{questions}<input type="text" name="s1X{number}X9">'
        f'<button type="submit" name="move" value="movenext">Next</button></form>{filler}</body></html>'
    )


asset_text = "/* a script */\n" + "var x = 1;\n" * 4000
asset_image = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(60_000))).decode()
csrf = token()
key = token()
entry("GET", f"{origin}/index.php/1?lang=en", 200, "text/html; charset=UTF-8", page(1, csrf, key), "document",
      response_headers=[("Set-Cookie", f"LS-SESSION={token()}; path=/; HttpOnly")])
number = 1
while True:
    for n in range(12):
        entry("GET", f"{origin}/assets/{number}/script{n}.js", 200, "application/javascript", asset_text, "script")
        entry("GET", f"{origin}/assets/{number}/image{n}.png", 200, "image/png", asset_image, "image", encoding="base64")
    if number == 1:
        entry("GET", f"{origin}/index.php/ajax/settings", 200, "application/json", json.dumps({"language": "en"}), "xhr")
    entry("GET", f"http://127.0.0.2:9/collect?p={number}", 204, "text/plain", "", "ping")
    written = sum(len(e["response"]["content"]["text"]) for e in entries)
    last = written >= size_mb * 1_000_000
    answers = [(f"s1X{number}X{q}", f"A{rng.randint(1, 5)}") for q in range(1, 4)] + [(f"s1X{number}X9", "some words")]
    fields = [("YII_CSRF_TOKEN", csrf), ("LEMpostKey", key), ("thisstep", str(number))] + answers + [("move", "movenext")]
    body = "&".join(f"{n}={v.replace(' ', '+')}" for n, v in fields)
    number += 1
    key = token()
    done = "<!DOCTYPE html><html><head><title>Thank you</title></head><body><p>Thank you.</p></body></html>"
    entry("POST", f"{origin}/index.php/1", 200, "text/html; charset=UTF-8", done if last else page(number, csrf, key), "document",
          request_headers=[("Content-Type", "application/x-www-form-urlencoded")],
          post={"mimeType": "application/x-www-form-urlencoded", "text": body,
                "params": [{"name": n, "value": v} for n, v in fields]})
    if last:
        break
json.dump({"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                   "pages": [], "entries": entries}}, open(out, "w"), indent=2)
print(f"{out}: {len(entries)} entries, {number} pages")
