#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""opflops.py - per-op FLOPs and GPU time of a Kineto trace, computed independently of
gpuprof, checked against `gpuprof analyze --json`'s roofline rows.

Usage: opflops.py GPUPROF TRACE...

From the trace alone (Python's json, nothing of gpuprof's): each kernel, memcpy and memset
goes to the op that launched it - the runtime/driver call with its correlation id, then the
cpu_op whose External id the call carries when that op holds the call on its thread, else the
innermost cpu_op holding the call on its thread; an op call's GPU time is the union of its
events' intervals (times as exact decimals, in ns). Calls are grouped by (name, Input Dims,
Input type); the FLOPs of GEMM (mm, addmm, bmm, baddbmm, linear, matmul) and attention
(scaled_dot_product_attention and its flash/efficient variants) rows are computed here from
their shapes (PyTorch's flop_counter formulas, docs/analyses/roofline.md). Every row
gpuprof reports must have the same count and GPU time as the group here, the GEMM and
attention rows the same FLOPs, and every GEMM/attention group here with GPU work must be
among gpuprof's rows (unless a copy from the host is among its events).
Exit 0 when all agree, 1 otherwise, 77 when no trace given exists or none has shapes.
"""
import decimal
import gzip
import json
import os
import subprocess
import sys
from collections import defaultdict


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as fh:
        return json.load(fh, parse_float=decimal.Decimal)


def ns(v):
    return int(decimal.Decimal(v) * 1000)


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def gemm_flops(name, dims):
    try:
        if name in ("aten::mm",):
            (m, k), (_, n) = dims[0], dims[1]
            return 2 * m * n * k
        if name == "aten::addmm":
            (m, k), (_, n) = dims[1], dims[2]
            return 2 * m * n * k
        if name == "aten::bmm":
            (b, m, k), (_, _, n) = dims[0], dims[1]
            return 2 * b * m * n * k
        if name == "aten::baddbmm":
            (b, m, k), (_, _, n) = dims[1], dims[2]
            return 2 * b * m * n * k
        if name == "aten::linear":
            x, w = dims[0], dims[1]
            return 2 * prod(x[:-1]) * w[0] * w[1]
    except (ValueError, IndexError, TypeError):
        return None
    return None


ATTN = {  # name: (q index, layout, is_causal index)
    "aten::scaled_dot_product_attention": (0, "bhsd", 5),
    "aten::_scaled_dot_product_flash_attention": (0, "bhsd", 4),
    "aten::_scaled_dot_product_efficient_attention": (0, "bhsd", 6),
    "aten::_scaled_dot_product_cudnn_attention": (0, "bhsd", 6),
    "aten::_flash_attention_forward": (0, "bshd", 8),
}


def attn_flops(name, dims, conc):
    q_i, layout, c_i = ATTN[name]
    q, k, v = dims[q_i], dims[q_i + 1], dims[q_i + 2]
    if len(q) != 4:
        return None
    if layout == "bhsd":
        b, h, sq, dq = q
        sk, dv = k[2], v[3]
    else:
        b, sq, h, dq = q
        sk, dv = k[1], v[3]
    causal = conc is not None and len(conc) > c_i and conc[c_i] == "True"
    f = 2 * b * h * sq * sk * (dq + dv)
    return f / 2 if causal else f


def independent(doc):
    evs = [e for e in doc.get("traceEvents", []) if e.get("ph") == "X"]
    ops = [e for e in evs if e.get("cat") in ("cpu_op", "Operator")]
    by_ext = {}
    for e in ops:
        x = e.get("args", {}).get("External id")
        if x is not None and x not in by_ext:
            by_ext[x] = e
    launch = {}
    for e in evs:
        if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"):
            c = e.get("args", {}).get("correlation")
            if c is not None and c not in launch:
                launch[c] = e
    thread_ops = defaultdict(list)
    for e in ops:
        thread_ops[(e["pid"], e["tid"])].append(e)

    def holds(o, l):
        return (o["pid"], o["tid"]) == (l["pid"], l["tid"]) and ns(o["ts"]) <= ns(l["ts"]) and \
            ns(l["ts"]) + ns(l["dur"]) <= ns(o["ts"]) + ns(o["dur"])

    # the innermost op holding each launching call: a stack sweep per thread, ops before
    # calls at one start, longer ops first
    inner = {}
    calls_of = defaultdict(list)
    for l in launch.values():
        calls_of[(l["pid"], l["tid"])].append(l)
    for th, ls in calls_of.items():
        items = [(ns(o["ts"]), 0, -ns(o["dur"]), i, o) for i, o in enumerate(thread_ops[th])]
        items += [(ns(l["ts"]), 1, -ns(l["dur"]), i, l) for i, l in enumerate(ls)]
        items.sort(key=lambda x: x[:4])
        stack = []
        for ts, is_call, mdur, _, e in items:
            end = ts - mdur
            while stack and (stack[-1][1] < end or stack[-1][0] > ts):
                stack.pop()
            if is_call:
                inner[id(e)] = stack[-1][2] if stack else None
            else:
                stack.append((ts, end, e))

    def innermost(l):
        return inner.get(id(l))

    calls = defaultdict(list)  # id(op) -> GPU events
    opof = {}
    for g in evs:
        if g.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"):
            continue
        l = launch.get(g.get("args", {}).get("correlation"))
        if l is None:
            continue
        x = l.get("args", {}).get("External id")
        o = by_ext.get(x)
        if o is None or not holds(o, l):
            o = innermost(l)
        elif o.get("cat") not in ("cpu_op", "Operator"):
            o = None
        if o is None:
            continue
        calls[id(o)].append(g)
        opof[id(o)] = o
    groups = defaultdict(lambda: {"count": 0, "gpu_ns": 0, "flops": 0, "host": False,
                                  "kind": None})
    for k, gs in calls.items():
        o = opof[k]
        a = o.get("args", {})
        dims, types = a.get("Input Dims"), a.get("Input type")
        if dims is None:
            continue
        iv = sorted((ns(g["ts"]), ns(g["ts"]) + ns(g["dur"])) for g in gs)
        t, cs, ce = 0, None, None
        for s, e in iv:
            if ce is None or s > ce:
                if ce is not None:
                    t += ce - cs
                cs, ce = s, e
            else:
                ce = max(ce, e)
        t += ce - cs
        host = any(g.get("cat") in ("gpu_memcpy", "Memcpy") and
                   any(w in g["name"] for w in ("HtoD", "DtoH", "HtoH", "Host")) for g in gs)
        key = (o["name"], json.dumps(dims), json.dumps(types))
        gr = groups[(key, host)]
        gr["count"] += 1
        gr["gpu_ns"] += t
        gr["host"] = host
        f = gemm_flops(o["name"], dims)
        if f is not None:
            gr["kind"] = "gemm"
        elif o["name"] in ATTN:
            try:
                f = attn_flops(o["name"], dims, a.get("Concrete Inputs"))
                gr["kind"] = "attention"
            except (ValueError, IndexError, TypeError):
                f = None
        if f is not None:
            gr["flops"] += f
    return groups


def main():
    gpuprof, paths = sys.argv[1], [p for p in sys.argv[2:] if os.path.exists(p)]
    if not paths:
        print("skip: none of the traces is there")
        return 77
    bad, checked = [], 0
    for path in paths:
        doc = load(path)
        groups = independent(doc)
        if not groups:
            print(f"{os.path.basename(path)}: no shapes, skipped")
            continue
        p = subprocess.run([gpuprof, "analyze", "--json", "-q", path], capture_output=True,
                           text=True)
        if p.returncode != 0:
            bad.append(f"{path}: gpuprof exited {p.returncode}: {p.stderr[:200]}")
            continue
        rows = json.loads(p.stdout)["ranks"][0]["roofline"]["ops"]
        base = os.path.basename(path)
        seen = set()
        for r in rows:
            # the row's Input Dims text, parsed, is the trace's value; a name and dims with
            # several Input types make several rows: the one that agrees is taken
            cands = [kk for kk in groups if not kk[1] and kk[0][0] == r["name"] and
                     json.loads(kk[0][1]) == json.loads(r["input_dims"]) and kk not in seen]
            if not cands:
                bad.append(f"{base}: gpuprof's row {r['name']} {r['input_dims']} is not here")
                continue
            key = next((kk for kk in cands if groups[kk]["count"] == r["count"] and
                        groups[kk]["gpu_ns"] == r["gpu_time_ns"]), cands[0])
            seen.add(key)
            g = groups[key]
            checked += 1
            if g["count"] != r["count"] or g["gpu_ns"] != r["gpu_time_ns"]:
                bad.append(f"{base}: {r['name']} {r['input_dims']}: count/GPU time "
                           f"{r['count']}/{r['gpu_time_ns']} here {g['count']}/{g['gpu_ns']}")
            if g["kind"] and r["model"] in ("gemm", "attention") and \
                    abs(g["flops"] - r["flops"]) > 1e-9 * max(1, g["flops"]):
                bad.append(f"{base}: {r['name']} {r['input_dims']}: FLOPs {r['flops']} here "
                           f"{g['flops']}")
        for (k, host), g in groups.items():
            if g["kind"] and not host and (k, host) not in seen:
                bad.append(f"{base}: {g['kind']} {k[0]} {k[1]} ({g['count']} calls, "
                           f"{g['gpu_ns']} ns) has no row in gpuprof's report")
        print(f"{base}: {len(rows)} rows, {sum(1 for g in groups.values() if g['kind'])} "
              f"GEMM/attention groups")
    for b in bad:
        print(b)
    if not checked and not bad:
        print("skip: no trace with shapes")
        return 77
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
