# SPDX-License-Identifier: MIT
"""reportpage.py - helpers of the report tests (t0500, t0501), standard library only.

    python3 reportpage.py static PAGE.html          the page's static checks; prints problems
    python3 reportpage.py data PAGE.html OUT.json   writes the page model of PAGE
    python3 reportpage.py hostile-trace OUT.json    writes a Kineto trace whose names attack
                                                    every context of the page
    python3 reportpage.py chromium DIR              exit 0 when headless Chromium starts and
                                                    draws a page (written in DIR), else 77

The static checks: one Content-Security-Policy that allows no fetch, exactly the
page's two script elements (the data and the code), nothing that loads a
resource (link, img, iframe, object, embed, src= or href= to a URL, CSS url()
or @import), and a data element that parses as JSON.
"""
import html.parser
import json
import re
import sys

# names that try to break out of each context the page puts them in
HOSTILE = {
    "kernel": "</script><script>alert(1)</script>",
    "op": "\"><img src=x onerror=alert(2)>",
    "annotation": "<!-- x --> ' & \u2028 <svg onload=alert(3)>",
    "thread": "</title><script>alert(4)</script>",
}

DATA_OPEN = '<script type="application/json" id="gp-data">'


def page_data(text):
    """The page model in the gp-data element of page text @p text."""
    start = text.index(DATA_OPEN) + len(DATA_OPEN)
    end = text.index("</script>", start)
    return json.loads(text[start:end])


class _Scan(html.parser.HTMLParser):
    """Counts elements and collects resource-loading attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = {}
        self.loads = []
        self.csp = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        a = dict(attrs)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp.append(a.get("content") or "")
        for k in ("src", "href", "action", "formaction", "poster", "data"):
            v = a.get(k)
            if v is not None and not v.startswith("#") and not v.startswith("data:"):
                self.loads.append("%s %s=%r" % (tag, k, v))
        for k, v in attrs:
            if k.startswith("on"):
                self.loads.append("%s has a handler attribute %s" % (tag, k))


def static_problems(text):
    """A list of what is wrong with the page text @p text (empty: nothing)."""
    p = []
    s = _Scan()
    s.feed(text)
    s.close()
    if len(s.csp) != 1:
        p.append("%d Content-Security-Policy metas, not 1" % len(s.csp))
    elif not re.search(r"default-src 'none'", s.csp[0]) or "http" in s.csp[0]:
        p.append("the CSP allows fetches: %r" % s.csp[0])
    if s.tags.get("script", 0) != 2:
        p.append("%d script elements, not 2" % s.tags.get("script", 0))
    for t in ("link", "img", "iframe", "object", "embed", "base", "form", "frame"):
        if s.tags.get(t):
            p.append("%d <%s> elements" % (s.tags[t], t))
    p.extend(s.loads)
    style = re.findall(r"<style>(.*?)</style>", text, re.S)
    for css in style:
        if re.search(r"@import|url\(", css):
            p.append("the stylesheet loads something")
    try:
        page_data(text)
    except (ValueError, json.JSONDecodeError) as e:
        p.append("the data element is not JSON: %s" % e)
    return p


def hostile_trace(path):
    """A small Kineto trace (one step, one launch, one kernel) with HOSTILE names."""
    ev = [
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": HOSTILE["thread"]}},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
         "ts": 0, "dur": 1000},
        {"ph": "X", "cat": "user_annotation", "name": HOSTILE["annotation"], "pid": 1, "tid": 1,
         "ts": 10, "dur": 500},
        {"ph": "X", "cat": "cpu_op", "name": HOSTILE["op"], "pid": 1, "tid": 1, "ts": 20,
         "dur": 400, "args": {"External id": 7}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
         "ts": 30, "dur": 10, "args": {"correlation": 5, "External id": 7}},
        {"ph": "X", "cat": "kernel", "name": HOSTILE["kernel"], "pid": 0, "tid": 7, "ts": 50,
         "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 5, "External id": 7}},
    ]
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "<b>GPU</b>"}],
           "traceEvents": ev, "displayTimeUnit": "ms"}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


def chromium_starts(tmpdir):
    """True when headless Chromium is there and starts: the browser checks skip only otherwise."""
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cdp
    if not cdp.find_chromium():
        return False
    path = os.path.join(tmpdir, "chromium-probe.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><title>probe</title><body data-gp-state=ok>")
    try:
        r = cdp.run(path, timeout=30)
    except (cdp.HarnessError, OSError) as e:
        sys.stderr.write("chromium does not start: %s\n" % e)
        return False
    return r["state"] == "ok"


def main(argv):
    if len(argv) >= 3 and argv[1] == "static":
        with open(argv[2], encoding="utf-8") as f:
            probs = static_problems(f.read())
        for x in probs:
            print(x)
        return 1 if probs else 0
    if len(argv) == 4 and argv[1] == "data":
        with open(argv[2], encoding="utf-8") as f:
            d = page_data(f.read())
        with open(argv[3], "w", encoding="utf-8") as f:
            json.dump(d, f)
        return 0
    if len(argv) == 3 and argv[1] == "chromium":
        return 0 if chromium_starts(argv[2]) else 77
    if len(argv) == 3 and argv[1] == "hostile-trace":
        hostile_trace(argv[2])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
