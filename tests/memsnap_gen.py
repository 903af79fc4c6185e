#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""memsnap_gen.py - PyTorch memory snapshots with the documented structure.

Writes with the real pickle module, at the protocol asked, the dictionary that
torch.cuda.memory._snapshot() returns (its docstring: Snapshot, Segment,
Block, Frame, TraceEntry; the keys torch/csrc/cuda/memory_snapshot.cpp
writes, allocator_settings and time_us included), with frame lists shared
between the blocks and trace entries of one stack as torch shares them (so
pickle memoizes them), and optionally the answers of an independent Python
reading of it (--expect): per device the peak of allocated bytes replaying
the trace, the live bytes at the peak by top frame, fragmentation per
segment class and the OOM entries. Used by tests/unit/test_pickle.c,
test_memsnap.c and the e2e tests t072x.

  memsnap_gen.py OUT.pickle [--proto N] [--variant base|grown|notrace|tiny]
                 [--expect OUT.json] [--json OUT.json]
"""
import argparse
import json
import pickle

MiB = 1 << 20
TORCH = "/usr/lib/python3/dist-packages/torch/"


def frame(filename, line, name):
    return {"filename": filename, "line": line, "name": name}


def stack(user):
    """A stack innermost first: the allocator's C++ frames, torch's Python
    frames, then the user's frames (the first of them is the top frame)."""
    cpp = [frame("/opt/pytorch/c10/cuda/CUDACachingAllocator.cpp", 1234,
                 "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc"),
           frame("??", 0, "PyEval_EvalFrameDefault")]
    py = [frame(TORCH + "nn/modules/linear.py", 116, "forward"),
          frame(TORCH + "nn/modules/module.py", 1527, "_call_impl")]
    return cpp + py + [frame(f, l, n) for (f, l, n) in user] + [
        frame("/home/u/train.py", 90, "<module>")]


SITES = {
    "weights": [("/home/u/model.py", 12, "__init__")],
    "act": [("/home/u/model.py", 40, "forward")],
    "attn": [("/home/u/model.py", 55, "attention")],
    "grad": [("/home/u/train.py", 70, "step")],
    "small": [("/home/u/data.py", 8, "collate")],
}


def build(variant):
    frames = {k: stack(v) for k, v in SITES.items()}  # shared lists, as torch's
    scale = 2 if variant == "grown" else 1
    devices = [0, 1]
    segments = []
    traces = []
    t = 1_000_000
    for dev in devices:
        base = 0x7f0000000000 + dev * 0x100000000
        # large segment 0: weights (allocated before the trace began) + activations
        seg_big = 64 * MiB
        # small pool segment: 2 MiB, small blocks
        seg_small = 2 * MiB
        tr = []

        def ev(action, addr, size, fr, **kw):
            nonlocal t
            t += 10
            e = {"action": action, "addr": addr, "size": size, "stream": 0,
                 "time_us": t}
            if fr is not None:
                e["frames"] = fr
            e.update(kw)
            tr.append(e)

        w_addr, w_size = base, 8 * MiB + dev * MiB
        # the trace: segment allocs, then steps of activations and frees
        s2 = base + 0x10000000
        ev("segment_alloc", s2, seg_small, frames["small"])
        sm = [(s2 + i * 4096, 4096) for i in range(3)]
        for a, s in sm:
            ev("alloc", a, s, frames["small"])
        ev("free_requested", sm[2][0], sm[2][1], frames["small"])
        ev("free_completed", sm[2][0], sm[2][1], frames["small"])
        act_addr = base + w_size
        for step in range(3):
            acts = []
            addr = act_addr
            for k in range(2 + step):
                size = (4 + k) * MiB * scale // 2
                ev("alloc", addr, size, frames["act"])
                acts.append((addr, size))
                addr += size
            asz = 3 * MiB * scale
            ev("alloc", addr, asz, frames["attn"])
            acts.append((addr, asz))
            addr += asz
            if step == 2:
                ev("oom", None, 40 * MiB, frames["attn"], device_free=5 * MiB + dev)
                del tr[-1]["addr"]
            for a, s in reversed(acts):
                ev("free_requested", a, s, frames["act"])
                ev("free_completed", a, s, frames["act"])
        g_addr = act_addr
        g_size = 6 * MiB
        ev("alloc", g_addr, g_size, frames["grad"])
        # the weights are freed and nothing else happens to them: they were live before
        # the trace (its ring buffer lost their alloc); on device 1 they stay live
        if dev == 0:
            ev("free_requested", w_addr, w_size, frames["weights"])
            ev("free_completed", w_addr, w_size, frames["weights"])
        ev("snapshot", 0, 0, None)
        traces.append(tr if variant != "notrace" else [])
        # the state at the end
        big_blocks = []
        if dev == 1:
            big_blocks.append({"address": w_addr, "size": w_size, "requested_size": w_size,
                               "state": "active_allocated", "frames": frames["weights"]})
        else:
            big_blocks.append({"address": w_addr, "size": w_size, "requested_size": 0,
                               "state": "inactive", "frames": []})
        big_blocks.append({"address": g_addr, "size": g_size, "requested_size": g_size - 100,
                           "state": "active_allocated", "frames": frames["grad"]})
        rest = seg_big - w_size - g_size
        big_blocks.append({"address": g_addr + g_size, "size": rest, "requested_size": 0,
                           "state": "inactive", "frames": []})
        small_blocks = [{"address": a, "size": s, "requested_size": s - 8,
                         "state": "active_allocated", "frames": frames["small"]}
                        for a, s in sm[:2]]
        small_blocks.append({"address": sm[2][0], "size": seg_small - 2 * 4096,
                             "requested_size": 0, "state": "inactive", "frames": []})
        for addr, total, blocks, kind, exp in ((base, seg_big, big_blocks, "large", False),
                                               (s2, seg_small, small_blocks, "small", False)):
            alloc = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
            segments.append({"device": dev, "address": addr, "total_size": total,
                             "allocated_size": alloc, "active_size": alloc,
                             "requested_size": sum(b["requested_size"] for b in blocks),
                             "stream": 0, "segment_type": kind, "segment_pool_id": (0, 0),
                             "is_expandable": exp, "frames": frames["weights"],
                             "blocks": blocks})
        if dev == 1:
            # an expandable segment holding one block of half its size
            ea = base + 0x20000000
            segments.append({"device": dev, "address": ea, "total_size": 20 * MiB,
                             "allocated_size": 10 * MiB, "active_size": 10 * MiB,
                             "requested_size": 10 * MiB, "stream": 0,
                             "segment_type": "large", "segment_pool_id": (0, 0),
                             "is_expandable": True, "frames": frames["weights"],
                             "blocks": [{"address": ea, "size": 10 * MiB,
                                         "requested_size": 10 * MiB,
                                         "state": "active_allocated",
                                         "frames": frames["weights"]},
                                        {"address": ea + 10 * MiB, "size": 10 * MiB,
                                         "requested_size": 0, "state": "inactive",
                                         "frames": []}]})
    settings = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                "max_split_size": -1, "garbage_collection_threshold": 0.0,
                "expandable_segments": True, "pinned_num_register_threads": 1,
                "release_lock_on_cudamalloc": False,
                "pinned_use_cuda_host_register": False,
                "roundup_power2_divisions": {"1": 0, "2": 0}}
    if variant == "tiny":
        return {"segments": segments[:1], "device_traces": [traces[0][:3]],
                "allocator_settings": settings}
    return {"segments": segments, "device_traces": traces, "allocator_settings": settings}


# ---- the independent reading (the definitions of docs/analyses/memory-snapshot.md) ----

OMIT_NAMES = ("unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp", "_start",
              "__libc_start_main", "PyEval_", "PyObject_", "PyFunction_")
OMIT_FILES = ("core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c",
              "Objects/call.c", "Objects/methodobject.c", "pycore_ceval.h", "ceval.c",
              "cpython/abstract.h")


def torch_own(f):
    fn, name = f["filename"], f["name"]
    if any(o in name for o in OMIT_NAMES) or any(o in fn for o in OMIT_FILES):
        return True
    return ("/torch/" in fn or fn.startswith("torch/") or "/c10/" in fn
            or fn.startswith("c10/") or "/aten/" in fn or fn.startswith("aten/")
            or fn in ("", "??"))


def top_frame(frames):
    if not frames:
        return "<no frames>"
    for f in frames:
        if not torch_own(f):
            return "%s:%d:%s" % (f["filename"], f["line"], f["name"])
    f = frames[0]
    return "%s:%d:%s" % (f["filename"], f["line"], f["name"])


def group(live):
    g = {}
    for size, frames in live:
        k = top_frame(frames)
        b, c = g.get(k, (0, 0))
        g[k] = (b + size, c + 1)
    return sorted(([k, b, c] for k, (b, c) in g.items()), key=lambda r: (-r[1], r[0]))


def expect(snap):
    out = {}
    devs = sorted({s["device"] for s in snap["segments"]} |
                  {i for i, t in enumerate(snap["device_traces"]) if t})
    for dev in devs:
        segs = [s for s in snap["segments"] if s["device"] == dev]
        blocks = [b for s in segs for b in s["blocks"] if b["state"] == "active_allocated"]
        tr = snap["device_traces"][dev] if dev < len(snap["device_traces"]) else []
        frag = {}
        for s in segs:
            cls = "expandable" if s.get("is_expandable") else s["segment_type"]
            a = sum(b["size"] for b in s["blocks"] if b["state"] == "active_allocated")
            r = frag.setdefault(cls, [0, 0, 0])
            r[0] += 1
            r[1] += s["total_size"]
            r[2] += a
        d = {"fragmentation": frag}
        if not tr:
            d["peak"] = {"source": "snapshot", "allocated_bytes": sum(b["size"] for b in blocks)}
            d["top"] = group([(b["size"], b["frames"]) for b in blocks])
            out[str(dev)] = d
            continue
        alloc_addrs = {e["addr"] for e in tr if e["action"] == "alloc"}
        live = {}
        seen = set()
        for e in tr:  # frees of what the trace never allocated were live at its start
            if e["action"] == "alloc":
                seen.add(e["addr"])
            elif e["action"] == "free_completed" and e["addr"] not in seen:
                live[e["addr"]] = (e["size"], e.get("frames", []))
                seen.add(e["addr"])
        for b in blocks:
            if b["address"] not in alloc_addrs and b["address"] not in live:
                # in the trace's unit: torch's trace entries carry the size asked for
                live[b["address"]] = (b.get("requested_size", b["size"]), b["frames"])
        level = sum(s for s, _ in live.values())
        peak, peak_i, peak_live = level, -1, dict(live)
        ooms = []
        for i, e in enumerate(tr):
            if e["action"] == "alloc":
                if e["addr"] in live:  # its free was lost: the address is reused
                    level -= live[e["addr"]][0]
                live[e["addr"]] = (e["size"], e.get("frames", []))
                level += e["size"]
            elif e["action"] == "free_completed" and e["addr"] in live:
                level -= live.pop(e["addr"])[0]
            elif e["action"] == "oom":
                ooms.append({"entry": i, "requested": e["size"], "device_free": e["device_free"],
                             "allocated": level, "top": group(live.values())})
            if level > peak:
                peak, peak_i, peak_live = level, i, dict(live)
        d["peak"] = {"source": "trace", "allocated_bytes": peak, "entry": peak_i,
                     "time_us": tr[peak_i]["time_us"] if peak_i >= 0 else None}
        d["top"] = group(peak_live.values())
        d["ooms"] = ooms
        out[str(dev)] = d
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--proto", type=int, default=pickle.DEFAULT_PROTOCOL)
    ap.add_argument("--variant", default="base")
    ap.add_argument("--expect")
    ap.add_argument("--json", help="the snapshot as JSON (tuples as lists)")
    a = ap.parse_args()
    snap = build(a.variant)
    with open(a.out, "wb") as f:
        pickle.dump(snap, f, protocol=a.proto)
    if a.expect:
        with open(a.expect, "w") as f:
            json.dump(expect(snap), f, indent=1, sort_keys=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(snap, f, sort_keys=True)


if __name__ == "__main__":
    main()
