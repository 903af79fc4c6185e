#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tile_trace.py IN OUT SIZE_MB: a real PyTorch profiler trace repeated in time to SIZE_MB.

Synthetic traces flatter a parser (bench/README.md); this keeps a real trace's names, args,
nesting and flows, and repeats its events one after another: copy k has every "ts" shifted by
k times the trace's span (plus 1 ms), flow ids, correlation ids and External ids offset so
that links stay within their copy, and ProfilerStep#N renumbered so steps stay distinct. Metadata events
("ph": "M") are written once. IN and OUT may be .json or .json.gz (OUT gzip level 6, as
torch.profiler's own .json.gz; SIZE_MB counts the JSON, not the compressed bytes).
"""
import gzip
import json
import re
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: tile_trace.py IN OUT SIZE_MB")
    src, dst, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc.get("traceEvents", [])
    meta = [e for e in events if isinstance(e, dict) and e.get("ph") == "M"]
    body = [e for e in events if isinstance(e, dict) and e.get("ph") != "M"]
    ts = [float(e["ts"]) for e in body if isinstance(e.get("ts"), (int, float))]
    if not ts:
        sys.exit("tile_trace.py: no timed events in " + src)
    ends = [float(e["ts"]) + float(e.get("dur", 0) or 0) for e in body
            if isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur", 0), (int, float))]
    span = max(ends) - min(ts) + 1000.0
    ids = [e.get("id") for e in body if isinstance(e.get("id"), int)]
    def arg_ints(key):
        return [e["args"][key] for e in body
                if isinstance(e.get("args"), dict) and isinstance(e["args"].get(key), int)]
    corr = arg_ints("correlation")
    ext = arg_ints("External id")
    # each copy's ids follow the last copy's, as a longer run numbers them: the offset is the
    # ids' range, not their maximum (CUDA correlation ids start far from 0: offsetting by the
    # maximum would spread them out as no real trace does)
    span_of = lambda xs: (max(xs) - min(xs) + 1) if xs else 0
    id_step, corr_step, ext_step = span_of(ids), span_of(corr), span_of(ext)
    step_re = re.compile(r"^ProfilerStep#(\d+)$")
    steps = [int(m.group(1)) for e in body for m in [step_re.match(str(e.get("name", "")))] if m]
    step_step = (max(steps) - min(steps) + 1) if steps else 0
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    target = int(size_mb * 1e6)
    wopen = (lambda p: gzip.open(p, "wt", encoding="utf-8", compresslevel=6)) if dst.endswith(".gz") \
        else (lambda p: open(p, "w", encoding="utf-8"))
    with wopen(dst) as out:
        text = json.dumps(head)[:-1]
        out.write(text + (", " if head else "") + '"traceEvents": [\n')
        written = len(text)
        first = True
        for e in meta:
            out.write(("" if first else ",\n") + json.dumps(e))
            first = False
        k = 0
        while written < target:
            for e in body:
                c = dict(e)
                if isinstance(c.get("ts"), (int, float)):
                    c["ts"] = round(c["ts"] + k * span, 3)
                if k and isinstance(c.get("id"), int):
                    c["id"] = c["id"] + k * id_step
                if k and isinstance(c.get("args"), dict):
                    a = dict(c["args"])
                    for key, step in (("correlation", corr_step), ("External id", ext_step)):
                        if isinstance(a.get(key), int):
                            a[key] += k * step
                    c["args"] = a
                m = step_re.match(str(c.get("name", "")))
                if k and m:
                    c["name"] = "ProfilerStep#%d" % (int(m.group(1)) + k * step_step)
                line = json.dumps(c)
                out.write(("" if first else ",\n") + line)
                first = False
                written += len(line) + 2
            k += 1
        out.write("\n]}\n")
    print("%s: %d copies of %s, %.1f MB" % (dst, k, src, written / 1e6))


if __name__ == "__main__":
    main()
