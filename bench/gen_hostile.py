#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_hostile.py - writes the hostile inputs of bench/bench_hostile.sh (issue item 7,
"Inputs must never stall") into a directory.

JSON (Kineto) inputs, each one event whose name is the hostile string, then a second event:
  utf8-string.json      a --string-mib MiB name of "é" (2 bytes each; default 128 MiB)
  utf8-string.json.gz   the same, gzip -6 (about 130 KB)
  u00e9-escapes.json    a name of --escapes "\\u00e9" escapes (default 16 Mi: 96 MiB of text)
Capture (.gpcap, docs/capture-format.md, src/lib/source/capfmt.h) inputs, NVTX records only
between a META and an END record:
  nvtx-threads.gpcap    --threads threads (default 200,000), each with one push and its pop
  nvtx-domains.gpcap    --domains NVTX domains (default 400,000; kind 6 records with id k,
                        named "dK"), each with one push and its pop on one thread

Every file is written in pieces, so memory stays small whatever the sizes. Prints one line
per file: name, bytes, and what the report must show (the name's length in characters, or
the number of ranges). Standard library only.
"""
import argparse
import gzip
import json
import os
import struct
import sys

CHUNK = 1 << 20


def json_doc(path, piece, count, gz=False):
    """An event named count * piece (JSON text), then a second event named k2."""
    ev = '"ph": "X", "cat": "kernel", "pid": 1, "tid": 7, "dur": 2'
    head = '{"traceEvents": [{"name": "'
    tail = '", "ts": 1, ' + ev + '},\n {"name": "k2", "ts": 5, ' + ev + '}]}\n'
    f = gzip.open(path, "wb", compresslevel=6) if gz else open(path, "wb")
    with f:
        f.write(head.encode())
        per = max(1, CHUNK // len(piece.encode()))
        block = (piece * per).encode()
        left = count
        while left >= per:
            f.write(block)
            left -= per
        f.write((piece * left).encode())
        f.write(tail.encode())


def rec(rtype, payload):
    """One record: {u32 type, u32 size}, the payload, zeros to a multiple of 8."""
    pad = -len(payload) % 8
    return struct.pack("<II", rtype, len(payload)) + payload + b"\0" * pad


META, END, NVTX = 1, 2, 13
PUSH, POP, DOMAIN = 1, 2, 6


def nvtx(ts, tid, kind, domain=0, ident=0, msg=b""):
    # struct gp_cap_nvtx: i64 ts, u32 tid, u8 kind, 3 pad, u32 domain, u32 name (0: inline),
    # u64 id, u32 color, u32 category; then the message
    return rec(NVTX, struct.pack("<qIB3xIIQII", ts, tid, kind, domain, 0, ident, 0, 0) + msg)


def capture(path, body):
    """A capture file: header, META, the records body() yields, END."""
    with open(path, "wb") as f:
        f.write(b"GPCAPT\r\n" + struct.pack("<II", 1, 16))
        meta = {"schema": "gpuprof.capture/1", "pid": 4242, "ppid": 1, "host": "bench",
                "exe": "gen_hostile", "cmdline": ["gen_hostile"], "rank": None,
                "local_rank": None, "world_size": None, "launcher": None, "tags": None,
                "clock": {"mono_ns": 1000, "real_ns": 1000}, "run_start_mono_ns": 1000}
        f.write(rec(META, json.dumps(meta).encode()))
        buf = []
        size = 0
        for r in body():
            buf.append(r)
            size += len(r)
            if size >= CHUNK:
                f.write(b"".join(buf))
                buf, size = [], 0
        f.write(b"".join(buf))
        end = {"cupti_version": 0, "mono_ns": 10 ** 12, "real_ns": 10 ** 12, "reason": "exit"}
        f.write(rec(END, json.dumps(end).encode()))


def threads_body(n):
    def body():
        for k in range(n):
            ts = 2000 + 10 * k
            yield nvtx(ts, 1000 + k, PUSH, msg=b"range")
            yield nvtx(ts + 5, 1000 + k, POP)
    return body


def domains_body(n):
    def body():
        for k in range(1, n + 1):
            ts = 2000 + 10 * k
            yield nvtx(ts, 7, DOMAIN, ident=k, msg=b"d%d" % k)
            yield nvtx(ts + 1, 7, PUSH, domain=k, msg=b"range")
            yield nvtx(ts + 5, 7, POP, domain=k)
    return body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--string-mib", type=int, default=128)
    ap.add_argument("--escapes", type=int, default=16 << 20)
    ap.add_argument("--threads", type=int, default=200000)
    ap.add_argument("--domains", type=int, default=400000)
    ap.add_argument("--only", choices=("json", "capture"))
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    out = []
    if a.only != "capture":
        chars = (a.string_mib << 20) // 2
        for name, gz in (("utf8-string.json", False), ("utf8-string.json.gz", True)):
            json_doc(os.path.join(a.dir, name), "é", chars, gz)
            out.append((name, f"name {chars} chars"))
        json_doc(os.path.join(a.dir, "u00e9-escapes.json"), "\\u00e9", a.escapes)
        out.append(("u00e9-escapes.json", f"name {a.escapes} chars"))
    if a.only != "json":
        capture(os.path.join(a.dir, "nvtx-threads.gpcap"), threads_body(a.threads))
        out.append(("nvtx-threads.gpcap", f"ranges {a.threads}"))
        capture(os.path.join(a.dir, "nvtx-domains.gpcap"), domains_body(a.domains))
        out.append(("nvtx-domains.gpcap", f"ranges {a.domains}"))
    for name, want in out:
        print(name, os.path.getsize(os.path.join(a.dir, name)), want)
    return 0


if __name__ == "__main__":
    sys.exit(main())
