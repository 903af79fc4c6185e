# SPDX-License-Identifier: MIT
"""perfsections.py - analyze reports with known critical_path, modules and roofline sections.

    python3 perfsections.py IN.json OUT.json [--variant base|new] [--device known|unknown]
                            [--whole-trace]
    python3 perfsections.py IN.json OUT.json --strip

Reads an analyze report (`gpuprof analyze --json`) and gives each rank the three sections of
issue 23 (docs/report-schema.md) with values computed here, so that the report page and
compare can be tested on numbers known in advance (t0420-t0429, t0510-t0519):

- critical_path: per complete step of the rank, a path of segments that tile the step
  (cpu, edge, gpu; the bounds in a fixed rotation), bound_by_ns summed from the segments,
  bound_by_pct their shares; top_cpu_ops and top_kernels summed from the segments' names;
  the total over the steps. --whole-trace: one pseudo-step over the trace.
- modules: four classes (Embedding, Block, Attention inside Block, LayerNorm) with counts,
  host and GPU times per instance, and their tree.
- roofline: an H100 SXM (or, --device unknown, a GPU not in the table: peaks null, the
  missing list saying so) and five ops with FLOPs and bytes of their shapes.

--variant new: the change a compare should see: the path moves from GPU compute to the CPU,
Block's GPU time per instance grows 30 %, aten::mm [[64, 1024], [1024, 4096]] takes 1.5x the
time (its TFLOP/s falls by a third), LayerNorm is gone and a class Mlp is added, and the op
aten::softmax is gone and aten::gelu added.

--strip: the report without the three sections, as analyze wrote it before issue 23.

The module `expected(doc)` gives the values the tests compare against.
"""
import json
import sys

CATS = ["cpu_bound", "gpu_compute_bound", "gpu_communication_bound",
        "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead"]

# the bound of each segment of a step, in order (base); new makes the CPU dominate
ROT_BASE = ["cpu_bound", "gpu_compute_bound", "gpu_kernel_launch_overhead", "gpu_compute_bound",
            "gpu_kernel_kernel_overhead", "gpu_compute_bound", "gpu_communication_bound",
            "gpu_compute_bound"]
ROT_NEW = ["cpu_bound", "cpu_bound", "gpu_kernel_launch_overhead", "cpu_bound",
           "gpu_kernel_kernel_overhead", "gpu_compute_bound", "gpu_communication_bound",
           "cpu_bound"]
KIND = {"cpu_bound": "cpu", "gpu_compute_bound": "gpu", "gpu_communication_bound": "gpu",
        "gpu_kernel_kernel_overhead": "edge", "gpu_kernel_launch_overhead": "edge"}
SEG_NAME = {"cpu_bound": "aten::linear", "gpu_compute_bound": "sm90_xmma_gemm_bf16",
            "gpu_communication_bound": "ncclKernel_AllReduce"}


def pct(x, tot):
    return 100.0 * x / tot if tot else 0.0


def critical_path(rank, variant, whole):
    steps = [s for s in rank.get("steps") or [] if not s.get("incomplete")]
    if whole or not steps:
        tl = rank.get("timeline") or {}
        s0 = min((s["start_ns"] for s in rank.get("steps") or []), default=tl.get("start_ns", 0))
        e0 = max((s["start_ns"] + s["dur_ns"] for s in rank.get("steps") or []),
                 default=tl.get("end_ns", 1000000))
        steps = [{"name": "trace", "start_ns": s0, "dur_ns": e0 - s0}]
        whole = True
    rot = ROT_NEW if variant == "new" else ROT_BASE
    out = []
    tot_ns = {c: 0 for c in CATS}
    tot_path = 0
    for i, st in enumerate(steps):
        start, dur = st["start_ns"], st["dur_ns"]
        n = 16
        cuts = [start + dur * k // n for k in range(n + 1)]
        segs = []
        ns = {c: 0 for c in CATS}
        cpu, ker = {}, {}
        for k in range(n):
            b = rot[k % len(rot)]
            a, e = cuts[k], cuts[k + 1]
            nm = SEG_NAME.get(b)
            segs.append({"start_ns": a, "end_ns": e, "bound": b, "kind": KIND[b], "name": nm,
                         "tid": 1 if KIND[b] == "cpu" else None,
                         "stream": 7 if KIND[b] == "gpu" else None})
            ns[b] += e - a
            if KIND[b] == "cpu":
                cpu.setdefault(nm, [0, 0])
                cpu[nm][0] += e - a
                cpu[nm][1] += 1
            elif KIND[b] == "gpu":
                ker.setdefault(nm, [0, 0])
                ker[nm][0] += e - a
                ker[nm][1] += 1
        path = cuts[-1] - cuts[0]
        out.append({
            "step": st["name"], "step_index": None if whole else i,
            "start_ns": start, "end_ns": start + dur, "path_ns": path,
            "bound_by_ns": ns, "bound_by_pct": {c: pct(ns[c], path) for c in CATS},
            "top_cpu_ops": [{"name": k, "path_ns": v[0], "count": v[1]} for k, v in sorted(cpu.items(), key=lambda x: (-x[1][0], x[0]))],
            "top_kernels": [{"name": k, "path_ns": v[0], "count": v[1]} for k, v in sorted(ker.items(), key=lambda x: (-x[1][0], x[0]))],
            "segments": segs,
        })
        for c in CATS:
            tot_ns[c] += ns[c]
        tot_path += path
    return {"available": True, "reason": None, "compat": "gpuprof", "categories": CATS,
            "steps": out, "whole_trace": whole,
            "total": {"path_ns": tot_path, "bound_by_ns": tot_ns,
                      "bound_by_pct": {c: pct(tot_ns[c], tot_path) for c in CATS}}}


# class: (count, host per instance, gpu per instance, std)
CLASSES_BASE = {"Embedding": (1, 400000, 300000, 0), "Block": (4, 2000000, 1500000, 50000),
                "Attention": (4, 900000, 700000, 20000), "LayerNorm": (8, 60000, 40000, 1000)}
CLASSES_NEW = {"Embedding": (1, 400000, 300000, 0), "Block": (4, 2600000, 1950000, 60000),
               "Attention": (4, 900000, 700000, 20000), "Mlp": (4, 500000, 450000, 5000)}


def modules(rank, variant):
    cls = CLASSES_NEW if variant == "new" else CLASSES_BASE
    rows = []
    for name, (n, host, gpu, sd) in cls.items():
        rows.append({
            "name": name, "count": n, "host_time_ns": host * n, "gpu_time_ns": gpu * n,
            "mean_gpu_ns": gpu, "std_gpu_ns": sd, "step_pct": None,
            "slowest": [{"instance": "%s_%d" % (name, k), "gpu_time_ns": gpu + sd * (n - 1 - k), "start_ns": 1000 * k} for k in range(min(n, 5))],
            "top_kernels": [{"name": "kernel_of_%s" % name, "gpu_time_ns": gpu * n}],
            "top_ops": [{"name": "aten::op_of_%s" % name, "gpu_time_ns": gpu * n}],
        })
    rows.sort(key=lambda r: (-r["gpu_time_ns"], r["name"]))
    blk = cls["Block"]
    att = cls["Attention"]
    last = "Mlp" if variant == "new" else "LayerNorm"
    lc = cls[last]
    tree = [{"name": "Embedding_0", "class": "Embedding", "calls": 1, "host_time_ns": cls["Embedding"][1],
             "gpu_time_ns": cls["Embedding"][2], "children": []}]
    for k in range(blk[0]):
        kids = [{"name": "Attention_%d" % k, "class": "Attention", "calls": 1, "host_time_ns": att[1],
                 "gpu_time_ns": att[2], "children": []}]
        per = lc[0] // blk[0]
        for j in range(per):
            kids.append({"name": "%s_%d" % (last, k * per + j), "class": last, "calls": 1,
                         "host_time_ns": lc[1], "gpu_time_ns": lc[2], "children": []})
        tree.append({"name": "Block_%d" % k, "class": "Block", "calls": 1, "host_time_ns": blk[1],
                     "gpu_time_ns": blk[2], "children": kids})
    return {"source": "python_function", "steps": len([s for s in rank.get("steps") or [] if not s.get("incomplete")]),
            "classes": rows, "tree": tree}


H100 = {"name": "NVIDIA H100 80GB HBM3", "matched": "H100 SXM",
        "peak_tflops": {"fp64": 67.0, "fp32": 67.0, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4,
                        "fp8": 1978.9, "int8": 1978.9},
        "peak_tbps": 3.35, "source": "table"}

# name, dims, dtype, count, flops, bytes, gpu_time_ns, model
OPS_BASE = [
    ("aten::mm", "[[64, 1024], [1024, 4096]]", "bf16", 10, 2 * 64 * 1024 * 4096, 2 * (64 * 1024 + 1024 * 4096 + 64 * 4096), 400000, "gemm"),
    ("aten::addmm", "[[4096], [64, 4096], [4096, 1024]]", "bf16", 10, 2 * 64 * 4096 * 1024, 2 * (4096 + 64 * 4096 + 4096 * 1024 + 64 * 1024), 300000, "gemm"),
    ("aten::softmax", "[[64, 16, 128, 128], [], []]", "bf16", 4, 5 * 64 * 16 * 128 * 128, 2 * 2 * 64 * 16 * 128 * 128, 200000, "softmax"),
    ("aten::layer_norm", "[[64, 128, 1024], [], [1024], [1024], [], []]", "fp32", 8, 8 * 64 * 128 * 1024, 4 * 2 * 64 * 128 * 1024, 250000, "norm"),
    ("aten::add", "[[64, 128, 1024], [64, 128, 1024], []]", "bf16", 20, 64 * 128 * 1024, 2 * 3 * 64 * 128 * 1024, 400000, "elementwise"),
]


def roofline(rank, variant, device):
    ops = []
    dev = json.loads(json.dumps(H100))
    missing = []
    if device == "unknown":
        dev = {"name": "Mystery GPU 9000", "matched": None,
               "peak_tflops": {k: None for k in H100["peak_tflops"]}, "peak_tbps": None,
               "ridge_flops_per_byte": {k: None for k in H100["peak_tflops"]}, "source": None}
        missing = ["gpu not in table"]
    else:
        dev["ridge_flops_per_byte"] = {k: v * 1e12 / (dev["peak_tbps"] * 1e12) for k, v in dev["peak_tflops"].items()}
    spec = list(OPS_BASE)
    if variant == "new":
        spec = [s for s in spec if s[0] != "aten::softmax"]
        spec = [(s[0], s[1], s[2], s[3], s[4], s[5], s[6] * 3 // 2 if s[0] == "aten::mm" else s[6], s[7]) for s in spec]
        spec.append(("aten::gelu", "[[64, 128, 4096], []]", "bf16", 4, 8 * 64 * 128 * 4096, 2 * 2 * 64 * 128 * 4096, 120000, "elementwise"))
    tot = 0
    for name, dims, dt, cnt, fl, by, ns, model in spec:
        fl *= cnt
        by *= cnt
        ai = fl / by
        tf = fl / ns / 1e3  # FLOP per ns = GFLOP/s; / 1e3 -> TFLOP/s
        tb = by / ns / 1e3
        peak = dev["peak_tflops"].get(dt)
        bw = dev["peak_tbps"]
        if peak is None or bw is None:
            row = {"bound": None, "peak_tflops": None, "roofline_pct": None, "headroom_ns": None}
        else:
            t_c = fl / (peak * 1e3)
            t_m = by / (bw * 1e3)
            roof = max(t_c, t_m)
            row = {"bound": "compute" if t_c >= t_m else "memory", "peak_tflops": peak,
                   "roofline_pct": 100.0 * roof / ns, "headroom_ns": ns - roof}
        row.update({"name": name, "input_dims": dims, "dtype": dt, "count": cnt, "flops": fl, "bytes": by,
                    "gpu_time_ns": ns, "achieved_tflops": tf, "achieved_tbps": tb,
                    "arithmetic_intensity": ai, "model": model})
        ops.append(row)
        tot += ns
    ops.sort(key=lambda r: (-(r["headroom_ns"] if r["headroom_ns"] is not None else -1), r["name"], r["input_dims"]))
    gpu = (rank.get("gpu") or {}).get("busy_ns") or tot * 2
    return {"device": dev, "missing": missing, "gpu_time_ns": gpu, "modeled_gpu_time_ns": tot,
            "coverage_pct": 100.0 * tot / gpu if gpu else None,
            "model_flops": sum(o["flops"] for o in ops), "mfu_pct": None, "ops": ops}


def main(argv):
    args = argv[1:]
    variant, device, whole = "base", "known", False
    if "--variant" in args:
        variant = args[args.index("--variant") + 1]
    if "--device" in args:
        device = args[args.index("--device") + 1]
    whole = "--whole-trace" in args
    strip = "--strip" in args
    pos = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--variant", "--device"))]
    if len(pos) != 2:
        sys.stderr.write(__doc__)
        return 2
    doc = json.load(open(pos[0]))
    for r in doc["ranks"]:
        if strip:
            for k in ("critical_path", "modules", "roofline"):
                r.pop(k, None)
            continue
        r["critical_path"] = critical_path(r, variant, whole)
        r["modules"] = modules(r, variant)
        r["roofline"] = roofline(r, variant, device)
    with open(pos[1], "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
