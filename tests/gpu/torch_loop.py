#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""torch_loop.py - a PyTorch inference loop with NVTX ranges, for the GPU tests
(tests/e2e/t0911-gpu-run-torch.sh) and the capture-overhead benchmark
(bench/bench_capture.sh).

Each step is one NVTX range "step" (torch.cuda.nvtx.range_push/pop) holding a
range "forward" (the model) and, after it, a reduction of the output outside
"forward" (so "step" projects more GPU ops than "forward"); every
--sync-every steps the step ends with torch.cuda.synchronize(). The first
--warmup steps are annotated too but not timed: the timed loop is bracketed
by torch.cuda.synchronize() and time.perf_counter_ns(), so process start,
CUDA/cuBLAS initialisation and warm-up are excluded.

Modes (the model, an MLP of Linear+ReLU layers, and its input):
  launch   launch-bound: 8 layers of 256x256 fp32, batch 1 (tiny kernels: the
           CPU's launch path is the bottleneck); default 2000 timed steps
  compute  compute-bound: 4 layers of 8192x8192 fp16, batch 8192 (~1.1 TFLOP
           per layer, ~2 ms per GEMM on an H100); default 60 timed steps

Prints one JSON line on stdout (keys sorted): mode, width, layers, batch, dtype,
warmup, steps (timed), total_steps (= the number of "step" and of "forward"
ranges), ranges {step, forward}, sync_every, syncs (in the loop), measured_ns,
per_iter_ns (measured_ns / steps: the steady-state time per iteration),
torch_profiler, torch, device, exit_code. Then exits with --exit-code.

usage: torch_loop.py [launch|compute] [--steps N] [--warmup N] [--sync-every K]
                     [--torch-profiler [--trace FILE]] [--exit-code N]
Exit 77 without PyTorch or without CUDA (nothing printed on stdout).
"""
import argparse
import json
import sys
import time

MODES = {
    "launch": {"width": 256, "layers": 8, "batch": 1, "dtype": "float32", "steps": 2000,
               "warmup": 200},
    "compute": {"width": 8192, "layers": 4, "batch": 8192, "dtype": "float16", "steps": 60,
                "warmup": 10},
}


def parse_args(argv):
    p = argparse.ArgumentParser(description="PyTorch inference loop with NVTX ranges")
    p.add_argument("mode", nargs="?", default="launch", choices=sorted(MODES))
    p.add_argument("--steps", type=int, help="timed steps (default: per mode)")
    p.add_argument("--warmup", type=int, help="untimed steps first (default: per mode)")
    p.add_argument("--sync-every", type=int, default=4,
                   help="torch.cuda.synchronize() every K steps (0: never inside the loop)")
    p.add_argument("--torch-profiler", action="store_true",
                   help="run the whole loop inside torch.profiler.profile (CPU + CUDA activity)")
    p.add_argument("--trace", help="with --torch-profiler: export the Chrome trace to this file")
    p.add_argument("--exit-code", type=int, default=0, help="exit status at the end (default 0)")
    a = p.parse_args(argv)
    cfg = dict(MODES[a.mode])
    if a.steps is not None:
        cfg["steps"] = a.steps
    if a.warmup is not None:
        cfg["warmup"] = a.warmup
    if cfg["steps"] < 1 or cfg["warmup"] < 0 or a.sync_every < 0:
        p.error("--steps must be >= 1, --warmup and --sync-every >= 0")
    if a.trace and not a.torch_profiler:
        p.error("--trace needs --torch-profiler")
    return a, cfg


def main(argv):
    a, cfg = parse_args(argv)
    try:
        import torch
    except ImportError:
        print("torch_loop.py: skip: no PyTorch", file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("torch_loop.py: skip: PyTorch has no CUDA device", file=sys.stderr)
        return 77

    dev = torch.device("cuda", 0)
    dtype = getattr(torch, cfg["dtype"])
    w, n_layers, batch = cfg["width"], cfg["layers"], cfg["batch"]
    torch.manual_seed(0)
    layers = []
    for _ in range(n_layers):
        layers += [torch.nn.Linear(w, w, device=dev, dtype=dtype), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers).eval()
    x = torch.randn(batch, w, device=dev, dtype=dtype) * 0.1
    nvtx = torch.cuda.nvtx
    syncs = 0

    def step(i):
        nonlocal syncs
        nvtx.range_push("step")
        nvtx.range_push("forward")
        y = model(x)
        nvtx.range_pop()
        s = y.sum()  # outside "forward", inside "step"
        if a.sync_every and (i + 1) % a.sync_every == 0:
            torch.cuda.synchronize()
            syncs += 1
        nvtx.range_pop()
        return s

    def loop():
        with torch.inference_mode():
            for i in range(cfg["warmup"]):
                step(i)
            torch.cuda.synchronize()
            t0 = time.perf_counter_ns()
            for i in range(cfg["steps"]):
                step(i)
            torch.cuda.synchronize()
            return time.perf_counter_ns() - t0

    if a.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            measured = loop()
        if a.trace:
            prof.export_chrome_trace(a.trace)
    else:
        measured = loop()

    total = cfg["warmup"] + cfg["steps"]
    out = {
        "mode": a.mode,
        "width": w,
        "layers": n_layers,
        "batch": batch,
        "dtype": cfg["dtype"],
        "warmup": cfg["warmup"],
        "steps": cfg["steps"],
        "total_steps": total,
        "ranges": {"step": total, "forward": total},
        "sync_every": a.sync_every,
        "syncs": syncs,
        "measured_ns": measured,
        "per_iter_ns": measured / cfg["steps"],
        "torch_profiler": a.torch_profiler,
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(dev),
        "exit_code": a.exit_code,
    }
    print(json.dumps(out, sort_keys=True), flush=True)
    return a.exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
