#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_roofline.py - a small Kineto trace with known shapes and durations, and the roofline
rows it must give.

Usage: gen_roofline.py TRACE.json EXPECTED.json

The trace (an H100 SXM by its deviceProperties) holds, under ProfilerStep#1:
- aten::matmul > aten::mm, bf16 [1024, 2048] @ [2048, 4096], two kernels on two streams that
  overlap (union 60 µs): compute-bound; the matmul has shapes too but launches nothing;
- aten::add, fp32 [4096, 4096] + [4096, 4096], one 100 µs kernel: memory-bound;
- aten::_softmax, fp16 [64, 1024] with half_to_float, one 5 µs kernel, called twice;
- aten::foo, which has no model, one 40 µs kernel;
- aten::mul with shapes and no kernel (no row).
EXPECTED holds each row's numbers computed here from the formulas of
docs/analyses/roofline.md and the H100 SXM's datasheet peaks, written out by hand.
"""
import json
import sys

BF16_PEAK, FP32_PEAK, TBPS = 989.5, 67.0, 3.35  # TFLOP/s, TB/s


def main():
    write(sys.argv[1], sys.argv[2])


def write(trace_path, exp_path):
    evs, corr = [], [100]

    def op(name, ts, dur, ext, dims, types, conc=None):
        args = {"External id": ext, "Input Dims": dims, "Input type": types}
        if conc is not None:
            args["Concrete Inputs"] = conc
        evs.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts,
                    "dur": dur, "args": args})

    def launch(ts, ext, kname, kts, kdur, stream=7):
        corr[0] += 1
        evs.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                    "tid": 1, "ts": ts, "dur": 2, "args": {"External id": ext,
                                                           "correlation": corr[0]}})
        evs.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": stream,
                    "ts": kts, "dur": kdur,
                    "args": {"External id": ext, "correlation": corr[0], "device": 0,
                             "stream": stream}})

    evs.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1,
                "tid": 1, "ts": 0, "dur": 1000, "args": {"External id": 1}})
    bf = ["c10::BFloat16", "c10::BFloat16"]
    op("aten::matmul", 10, 100, 2, [[1024, 2048], [2048, 4096]], bf)
    op("aten::mm", 11, 90, 3, [[1024, 2048], [2048, 4096]], bf)
    launch(12, 3, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 200, 50)
    launch(20, 3, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 230, 30,
           stream=8)
    op("aten::add", 120, 10, 4, [[4096, 4096], [4096, 4096], []], ["float", "float", "Scalar"],
       ["", "", "1"])
    launch(121, 4, "vectorized_elementwise_kernel", 300, 100)
    for k in range(2):
        op("aten::_softmax", 140 + 10 * k, 5, 5 + k, [[64, 1024], [], []],
           ["c10::Half", "Scalar", "Scalar"], ["", "-1", "True"])
        launch(141 + 10 * k, 5 + k, "softmax_warp_forward", 420 + 10 * k, 5)
    op("aten::foo", 170, 5, 7, [[8]], ["float"])
    launch(171, 7, "foo_kernel", 450, 40)
    op("aten::mul", 180, 5, 8, [[8], [8]], ["float", "float"])
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132,
                                 "totalGlobalMem": 85018279936, "computeMajor": 9,
                                 "computeMinor": 0, "warpSize": 32}],
           "traceEvents": evs}
    with open(trace_path, "w") as fh:
        json.dump(doc, fh)

    def row(name, flops, byts, t_ns, peak, count, model, dtype):
        tc = flops / (peak * 1e3)
        tm = byts / (TBPS * 1e3)
        roof = max(tc, tm)
        return {"name": name, "flops": flops, "bytes": byts, "gpu_time_ns": t_ns,
                "count": count, "model": model, "dtype": dtype, "peak_tflops": peak,
                "achieved_tflops": flops / t_ns / 1e3, "achieved_tbps": byts / t_ns / 1e3,
                "bound": "compute" if tc >= tm else "memory",
                "roofline_pct": min(100.0, 100.0 * roof / t_ns),
                "headroom_ns": max(0, round(t_ns - roof))}

    m, k, n = 1024, 2048, 4096
    rows = [
        row("aten::mm", 2 * m * n * k, (m * k + k * n + m * n) * 2, 60000, BF16_PEAK, 1, "gemm",
            "bf16"),
        row("aten::add", 4096 * 4096, 3 * 4096 * 4096 * 4, 100000, FP32_PEAK, 1,
            "elementwise", "fp32"),
        # 3 FLOPs an element; reads fp16, writes fp32 (half_to_float); two calls
        row("aten::_softmax", 2 * 3 * 64 * 1024, 2 * (64 * 1024 * 2 + 64 * 1024 * 4), 10000,
            FP32_PEAK, 2, "softmax", "fp16"),
    ]
    rows.sort(key=lambda r: -r["headroom_ns"])
    gpu = 60000 + 100000 + 10000 + 40000
    exp = {"rows": rows, "gpu_time_ns": gpu, "modeled_gpu_time_ns": gpu - 40000,
           "model_flops": sum(r["flops"] for r in rows),
           # window: first kernel start (200 µs) to last end (450 + 40 µs)
           "mfu_window_ns": 290000,
           "mfu_pct": 100.0 * sum(r["flops"] / (r["peak_tflops"] * 1e3) for r in rows) / 290000}
    with open(exp_path, "w") as fh:
        json.dump(exp, fh)


if __name__ == "__main__":
    main()
