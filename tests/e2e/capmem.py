#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""capmem.py - the CUDA allocation records of a capture file, read straight from its
bytes (docs/capture-format.md; struct gp_cap_mem and struct gp_cap_api in
src/lib/source/capfmt.h), for the tests of `gpuprof run`'s memory recording
(t0730 without a GPU, t0739 with one): what the tracer wrote, before the reader
of libgpuprof interprets it.

As a module: mem_records(path) -> (mem, api), mem a list of dicts (one per MEM
record, its fields by name), api a dict correlation id -> {tid, name} of the API
records (name from the STRING records). As a script: prints them as JSON.
"""
import json
import struct
import sys

MEM_FIELDS = ("ts", "addr", "bytes", "pool_addr", "pool_size", "pool_used", "device",
              "context", "stream", "corr", "pid", "op", "kind", "flags", "pool_type")
MEM_FMT = "<qQQQQQIIIIIBBBB"  # 72 bytes
T_STRING, T_API, T_MEM = 4, 8, 21


def records(path):
    """(type, payload) of each whole record of the capture at path"""
    b = open(path, "rb").read()
    assert b[:8] == b"GPCAPT\r\n", b[:8]
    o = struct.unpack("<I", b[12:16])[0]
    while o + 8 <= len(b):
        t, sz = struct.unpack("<II", b[o:o + 8])
        if o + 8 + sz > len(b):
            break
        yield t, b[o + 8:o + 8 + sz]
        o += 8 + sz + (8 - sz % 8) % 8


def mem_records(path):
    strs, api, mem = {}, {}, []
    for t, p in records(path):
        if t == T_STRING:
            strs[struct.unpack("<I", p[:4])[0]] = p[8:].decode("utf-8", "replace")
        elif t == T_API:
            _s, _e, _pid, tid, corr, _cbid, name = struct.unpack("<qqIIIII", p[:36])
            api[corr] = {"tid": tid, "name": strs.get(name, "")}
        elif t == T_MEM:
            assert len(p) >= struct.calcsize(MEM_FMT), len(p)
            mem.append(dict(zip(MEM_FIELDS, struct.unpack(MEM_FMT, p[:struct.calcsize(MEM_FMT)]))))
    return mem, api


if __name__ == "__main__":
    m, a = mem_records(sys.argv[1])
    json.dump({"mem": m, "api": {str(k): v for k, v in a.items()}}, sys.stdout, indent=1)
    print()
