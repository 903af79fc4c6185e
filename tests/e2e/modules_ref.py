# SPDX-License-Identifier: MIT
"""modules_ref.py - an independent computation of the "modules" section's per-class numbers
from a Kineto trace, to check gpuprof's against (tests/e2e/t0180-modules-reference.sh).

    python3 modules_ref.py TRACE.json[.gz]          # prints the reference class table (JSON)
    python3 modules_ref.py TRACE REPORT.json        # compares it with gpuprof analyze --json

The definition, from the trace alone (docs/analyses/modules.md): a module call is a
python_function event named "nn.Module: Class_N"; its GPU time is the union of the intervals
of the kernels, memcpys and memsets whose launching runtime or driver call (the first such
call with the op's correlation id) lies inside the call's [ts, ts + dur] on the same pid and
tid; a class's count and GPU time are summed over its calls. When ProfilerStep#N CPU
annotations hold module calls, only the calls that start inside one count. Times are exact
integer nanoseconds (the JSON decimals read as Decimal, times 1000, plus
baseTimeNanoseconds), as gpuprof reads them.
"""
import gzip
import json
import re
import sys
from decimal import Decimal

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
LAUNCH_CATS = {"cuda_runtime", "Runtime", "cuda_driver"}


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def ns(v):
    return int(Decimal(v) * 1000)


def reference(doc):
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    base = int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0
    mods, launch, gpu, steps = [], {}, [], []
    for e in evs:
        if e.get("ph") != "X":
            continue
        cat, name = e.get("cat"), str(e.get("name", ""))
        ts = ns(e["ts"]) + base
        end = ts + ns(e.get("dur", 0))
        args = e.get("args") or {}
        if cat == "python_function" and name.startswith("nn.Module: "):
            mods.append((ts, end, e.get("pid"), e.get("tid"), name[len("nn.Module: "):]))
        elif cat in LAUNCH_CATS and "correlation" in args:
            launch.setdefault(int(args["correlation"]), (ts, end, e.get("pid"), e.get("tid")))
        elif cat in GPU_CATS:
            gpu.append((ts, end, int(args.get("correlation", -1))))
        elif cat in ("user_annotation", "cpu_op") and name.startswith("ProfilerStep#"):
            steps.append((ts, end))
    in_step = [m for m in mods if any(s <= m[0] < e for s, e in steps)]
    if in_step:
        mods = in_step
    # the GPU ops of each call, found naively: every call against every launched op
    ops_of = [[] for _ in mods]
    for gs, ge, corr in gpu:
        if corr not in launch:
            continue
        ls, le, lp, lt = launch[corr]
        for k, (ms, me, mp, mt, _) in enumerate(mods):
            if mp == lp and mt == lt and ms <= ls and le <= me:
                ops_of[k].append((gs, ge))
    classes = {}
    for (ms, me, mp, mt, name), ops in zip(mods, ops_of):
        cls = re.sub(r"_[0-9]+$", "", name)
        union, cur = 0, None
        for s, e in sorted(ops):
            if cur is None or s > cur[1]:
                if cur:
                    union += cur[1] - cur[0]
                cur = [s, e]
            else:
                cur[1] = max(cur[1], e)
        if cur:
            union += cur[1] - cur[0]
        c = classes.setdefault(cls, {"count": 0, "gpu_time_ns": 0, "host_time_ns": 0})
        c["count"] += 1
        c["gpu_time_ns"] += union
        c["host_time_ns"] += me - ms
    return classes


def main():
    ref = reference(load(sys.argv[1]))
    if len(sys.argv) < 3:
        json.dump(ref, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    with open(sys.argv[2]) as f:
        rep = json.load(f)
    mod = rep["ranks"][0].get("modules")
    if not ref:
        if mod is not None:
            print("FAIL: the trace has no nn.Module calls, the report a modules section")
            return 1
        return 0
    if mod is None:
        print("FAIL: no modules section")
        return 1
    got = {c["name"]: c for c in mod["classes"]}
    bad = 0
    print("%-24s %6s %6s %14s %14s" % ("class", "count", "ref", "gpu_time_ns", "ref"))
    for name in sorted(set(ref) | set(got), key=lambda n: -ref.get(n, {}).get("gpu_time_ns", 0)):
        r, g = ref.get(name), got.get(name)
        rc, gc = (r or {}).get("count"), (g or {}).get("count")
        rg, gg = (r or {}).get("gpu_time_ns"), (g or {}).get("gpu_time_ns")
        ok = r is not None and g is not None and rc == gc and rg == gg and \
            r["host_time_ns"] == g["host_time_ns"]
        bad += not ok
        print("%-24s %6s %6s %14s %14s%s" % (name, gc, rc, gg, rg, "" if ok else "  <-- differs"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
