#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""memtrace.py - random Kineto traces with [memory] events of each schema generation, and
what gpuprof's memory section must say of them, computed here from the definitions of
docs/analyses/overview-memory.md (an oracle independent of the C code).

  memtrace.py gen GENERATION SEED TRACE.json   write a trace
  memtrace.py check GENERATION SEED REPORT.json check `gpuprof analyze --json TRACE.json`

Generations: 2021 (Bytes and the device only), 2021addr (Bytes and Addr), modern (Addr,
Total Allocated, Total Reserved). Two GPUs and the CPU; ops nest two deep on two threads;
weights are allocated before the first step; some allocations are never freed, some frees
are of memory allocated before the trace.
"""
import json
import random
import sys

STEPS = 5


def build(gen, seed):
    rnd = random.Random(seed)
    events, mems, ops = [], [], []
    total = {0: 3000000, 1: 5000000, -1: 0}  # allocated before the trace, per device
    live = {0: [], 1: [], -1: []}  # (addr, bytes) per device
    next_addr = [0x7F0000000000]

    def op(name, tid, ts, dur):
        events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid,
                       "ts": ts, "dur": dur})
        ops.append((name, tid, ts, dur))

    def mem(dev, tid, ts, nbytes, addr):
        total[dev] += nbytes
        args = {"Device Type": 0 if dev < 0 else 1, "Device Id": dev, "Bytes": nbytes}
        if gen != "2021":
            args["Addr"] = addr
        if gen == "modern":
            args["Total Allocated"] = total[dev]
            args["Total Reserved"] = total[dev] + 1048576
        events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                       "pid": 1, "tid": tid, "ts": ts, "args": args})
        mems.append({"dev": dev, "tid": tid, "ts": ts, "bytes": nbytes, "addr": addr})

    def alloc(dev, tid, ts, nbytes):
        next_addr[0] += 0x10000
        a = next_addr[0]
        live[dev].append((a, nbytes))
        mem(dev, tid, ts, nbytes, a)

    def free_some(dev, tid, ts):
        if live[dev] and rnd.random() < 0.8:
            a, b = live[dev].pop(rnd.randrange(len(live[dev])))
            mem(dev, tid, ts, -b, a)

    # weights, before the first step
    op("load_weights", 1, 10, 100)
    for k in range(3):
        alloc(0, 1, 20 + k, 1000000 * (k + 1))
    mem(1, 1, 50, -4096, 0x1000)  # frees memory allocated before the trace
    t = 1000
    for s in range(STEPS):
        start = t
        events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s,
                       "pid": 1, "tid": 1, "ts": start, "dur": 10000})
        for k in range(12):
            tid = 1 + k % 2
            name = rnd.choice(["aten::mm", "aten::cat", "aten::empty", "aten::add"])
            ots = start + 100 + k * 700
            op(name, tid, ots, 600)
            op("aten::inner_" + name[6:], tid, ots + 100, 200)
            dev = rnd.choice([0, 0, 1, -1])
            alloc(dev, tid, ots + rnd.choice([50, 150, 400]), rnd.choice([512, 4096, 1 << 20]))
            free_some(dev, tid, ots + 550)
        if s == 2:  # an address allocated again while open: the first free was lost
            a, b = live[0][-1]
            live[0].pop()
            mem(0, 1, start + 9000, 777, a)
            live[0].append((a, 777))
        t += 10000
    return {"schemaVersion": 1, "traceEvents": events}, mems, ops


def expected(gen, seed):
    _, mems, ops = build(gen, seed)
    steps = [(1000 + 10000 * s, 1000 + 10000 * s + 10000) for s in range(STEPS)]
    order = sorted(range(len(mems)), key=lambda i: (mems[i]["ts"], i))

    def innermost(m):
        best = None
        for (name, tid, ts, dur) in ops:
            if tid == m["tid"] and ts <= m["ts"] <= ts + dur:
                if best is None or ts >= best[2]:
                    best = (name, tid, ts, dur)
        return best[0] if best else None

    def step_of(ts):
        k = -1
        for i, (a, _) in enumerate(steps):
            if a <= ts:
                k = i
        return k

    devs = {}
    for i in order:
        devs.setdefault(mems[i]["dev"], []).append(i)
    out = {}
    for dev, idx in devs.items():
        cur, curve = 0, []
        openm, pair, lost = {}, {}, set()
        for i in idx:
            m = mems[i]
            cur = cur + m["bytes"]  # a running sum, or Total Allocated minus the start
            curve.append(cur)
            if gen == "2021":
                continue
            a = m["addr"]
            if m["bytes"] > 0:
                if a in openm:
                    lost.add(openm[a])
                openm[a] = i
            elif a in openm:
                pair[openm.pop(a)] = i
        base = {0: 3000000, 1: 5000000, -1: 0}[dev] if gen == "modern" else 0
        curve = [c + base for c in curve]
        peak = max(curve)
        p = curve.index(peak)
        d = {"peak": peak, "peak_ts": mems[idx[p]]["ts"] * 1000, "curve": curve,
             "ts": [mems[i]["ts"] * 1000 for i in idx]}
        ends = []
        for (a, b) in steps:
            last = [c for i, c in zip(idx, curve) if mems[i]["ts"] <= b]
            inside = [c for i, c in zip(idx, curve) if a <= mems[i]["ts"] <= b]
            carried = [c for i, c in zip(idx, curve) if mems[i]["ts"] < a]
            lvl = ([carried[-1]] if carried else [curve[0]] if last else []) + inside
            ends.append((last[-1] if last else None, max(lvl) if last else None))
        d["steps"] = ends
        if gen != "2021":
            unf, before = {}, {}
            for i in idx:
                m = mems[i]
                if m["bytes"] <= 0 or i in pair or i in lost:
                    continue
                st = step_of(m["ts"])
                g = before if st < 0 else unf
                r = g.setdefault(innermost(m), [0, 0, set()])
                r[0] += m["bytes"]
                r[1] += 1
                r[2].add(st)
            d["unfreed"] = unf
            d["before"] = before
            live_at = {}
            for i in idx[:p + 1]:
                m = mems[i]
                if m["bytes"] <= 0 or i in lost or (i in pair and idx.index(pair[i]) <= p):
                    continue
                r = live_at.setdefault(innermost(m), [0, 0])
                r[0] += m["bytes"]
                r[1] += 1
            d["live"] = live_at
            d["npaired"] = len(pair)
            d["nlost"] = len(lost)
        out[dev] = d
    return out


def check(gen, seed, report):
    exp = expected(gen, seed)
    mem = json.load(open(report))["ranks"][0]["memory"]
    n = 0

    def eq(what, a, b):
        nonlocal n
        n += 1
        if a != b:
            sys.exit("%s %s: gpuprof %r, expected %r" % (gen, what, a, b))

    devs = mem["devices"]
    eq("devices", [d["device"] for d in devs], [0, 1, "cpu"])
    for d in devs:
        e = exp[-1 if d["device"] == "cpu" else d["device"]]
        w = "device %s" % d["device"]
        eq(w + " source", d["allocated_source"],
           "total_allocated" if gen == "modern" else "bytes_sum")
        eq(w + " peak", d["peak_allocated_bytes"], e["peak"])
        eq(w + " peak ts", d["peak_ts_ns"], e["peak_ts"])
        eq(w + " curve", [p[1] for p in d["curve"]["allocated"]], e["curve"])
        eq(w + " curve ts", [p[0] for p in d["curve"]["allocated"]], e["ts"])
        eq(w + " step ends", [(s["allocated_at_end_bytes"], s["peak_allocated_bytes"])
                              for s in d["step_growth"]], e["steps"])
        if gen == "2021":
            eq(w + " unfreed", d["unfreed"], None)
            continue
        rows = {r["op"]: [r["bytes"], r["allocations"], r["steps"], r["first_step"],
                          r["last_step"]] for r in d["unfreed"]["rows"]}
        want = {k: [v[0], v[1], len(v[2]), "ProfilerStep#%d" % min(v[2]),
                    "ProfilerStep#%d" % max(v[2])] for k, v in e["unfreed"].items()}
        eq(w + " unfreed rows", rows, want)
        eq(w + " unfreed bytes", d["unfreed"]["bytes"], sum(v[0] for v in e["unfreed"].values()))
        order = [r["bytes"] for r in d["unfreed"]["rows"]]
        eq(w + " unfreed order", order, sorted(order, reverse=True))
        eq(w + " before steps", {r["op"]: [r["bytes"], r["allocations"]]
                                 for r in d["unfreed"]["before_steps"]["rows"]},
           {k: v[:2] for k, v in e["before"].items()})
        eq(w + " live at peak", {r["op"]: [r["bytes"], r["allocations"]]
                                 for r in d["peak_live"]["rows"]}, e["live"])
        if gen == "modern":
            eq(w + " other at peak", d["peak_live"]["other_bytes"],
               e["peak"] - sum(v[0] for v in e["live"].values()))
    if gen != "2021":
        eq("paired", mem["pairing"]["paired"], sum(e["npaired"] for e in exp.values()))
        eq("lost", mem["pairing"]["frees_lost"], sum(e["nlost"] for e in exp.values()))
        eq("unmatched", mem["pairing"]["frees_unmatched"], 1)
    else:
        eq("no address", mem["pairing"]["without_address"], mem["events"])
    print("%s seed %d: %d checks" % (gen, seed, n))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        json.dump(build(sys.argv[2], int(sys.argv[3]))[0], open(sys.argv[4], "w"))
    else:
        check(sys.argv[2], int(sys.argv[3]), sys.argv[4])
