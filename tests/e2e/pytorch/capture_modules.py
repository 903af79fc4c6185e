# SPDX-License-Identifier: MIT
"""Reads a capture file (docs/capture-format.md) on its own, without libgpuprof, and prints as
JSON the ranges of the annotation API's domain "gpuprof" per thread: [[name, start, end], ...]
in push order, and the number of pushes and pops left unpaired. For the --pytorch tests: an
independent look at what the startup hook recorded."""
import json
import struct
import sys

NVTX, STRING = 13, 4
PUSH, POP, DOMAIN = 1, 2, 6


def main(path):
    b = open(path, "rb").read()
    assert b[:8] == b"GPCAPT\r\n", "not a capture"
    off = struct.unpack_from("<I", b, 12)[0]
    strings, gp_domain, stacks, ranges, unpaired = {}, None, {}, {}, 0
    while off + 8 <= len(b):
        typ, size = struct.unpack_from("<II", b, off)
        p = b[off + 8:off + 8 + size]
        off += 8 + (size + 7) // 8 * 8
        if typ == STRING:
            strings[struct.unpack_from("<I", p)[0]] = p[8:].decode("utf-8", "replace")
        elif typ == NVTX:
            ts, tid, kind, dom, name, rid = struct.unpack_from("<qIB3xIIQ", p)
            msg = p[40:].decode("utf-8", "replace")
            if kind == DOMAIN and msg == "gpuprof":
                gp_domain = rid
            if dom != gp_domain or dom is None:
                continue
            st, rows = stacks.setdefault(tid, []), ranges.setdefault(tid, [])
            if kind == PUSH:  # a site's name is its registered string; by value: inline
                rows.append([strings.get(name, "?") if name else msg, ts, None])
                st.append(rows[-1])
            elif kind == POP:
                if st:
                    st.pop()[2] = ts
                else:
                    unpaired += 1
    unpaired += sum(len(s) for s in stacks.values())
    out = {str(k): [r for r in v if r[2] is not None] for k, v in ranges.items()}
    json.dump({"threads": out, "unpaired": unpaired}, sys.stdout, sort_keys=True)


main(sys.argv[1])
