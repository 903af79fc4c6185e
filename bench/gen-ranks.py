#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-ranks.py - writes realistic multi-rank PyTorch profiler (Kineto) traces of one data-parallel
training job, with a known straggler, known host clock offsets and NCCL collectives carrying the
arguments PyTorch 2.x writes, and prints the ground truth as JSON on stdout (issue 22, CONTRACT-22 D).

One trace per rank, named as torch.profiler.tensorboard_trace_handler names them
(<host>_<pid>.<time_ns>.pt.trace.json[.gz]); hosts node-0, node-1, ... with ranks/hosts GPUs each.
Per ProfilerStep#N of every rank:
  - a parameter all-gather on the rank's tensor-parallel group (process group "1", "2", ...: the
    --tp ranks of one host; all_gather_into_tensor, "_allgather_base", BFloat16), prefetched at the
    step start like FSDP/HSDP;
  - the DataLoader annotation `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__` and the
    batch's host-to-device copy;
  - a forward pass (GEMM, flash attention, layer norm, GELU kernels) and a backward pass on the
    autograd thread, whose gradient buckets are all-reduced on the default group ("0",
    default_pg) as soon as each is ready (several sizes, Float and BFloat16), overlapping compute;
  - a gradient reduce-scatter on the tensor-parallel group ("_reduce_scatter_base", BFloat16);
  - an AdamW step after the all-reduces, and a cudaStreamSynchronize.
Each collective is written as PyTorch 2.x and Kineto write it: a c10d:: cpu_op holding
`record_param_comms` (Collective name, In/Out msg nelems, Group size, dtype, In/Out split size,
Process Group Name/Description/Ranks, Global rank start/stride, Rank, Seq) holding the
`nccl:<op>` annotation, cudaEventRecord/cudaStreamWaitEvent and cudaLaunchKernelExC, and the
`ncclDevKernel_*` kernel (NCCL >= 2.19 names) on the group's stream with the same NCCL args and
the record_param_comms External id, a `nccl:<op>` gpu_user_annotation and ac2g flow events.

Physics, in true time (ns): a collective starts on each rank when that rank arrives (its inputs are
ready on the GPU and its communication stream is free, plus a few us of launch jitter) and ends on
every rank at max(arrivals) + transfer, transfer = latency + busbw_factor * bytes / bandwidth
(--intra-gbps within a host, --inter-gbps across hosts; nccl-tests' factors), so that a collective's
shortest duration across ranks is its transfer time. The --straggler rank's compute kernels (or its
data loading, --straggler-cause) take --straggler-ms longer per step, so it arrives last. Every
timestamp a rank writes is on its host's clock: true time + the host's offset (--host-offset-us;
default random within +-2 ms, node-0 = 0). Modern Kineto output: baseTimeNanoseconds and float us
"ts" relative to it (exact to the ns); --old-format: integer absolute us, no baseTimeNanoseconds.
--desync RANK:SEQ (or RANK:PG:SEQ) drops that collective from that rank: the rank neither launches
nor waits for it, the others do not wait for it (a hang-free skip); its other collectives keep
their Seq (kind "missing"), or, with --desync-renumber, its later Seq on that group are one lower,
as when the call was never made (the next one then differs from the others' at that Seq).
--no-seq leaves the Seq arg out (older PyTorch).

Deterministic: the same options and --seed give the same bytes. Standard library only; --jobs
processes write the files (default: one per CPU).
"""
import argparse
import gzip
import json
import math
import multiprocessing
import os
import random
import sys

EPOCH_NS = 1764230400 * 10**9  # 2025-11-27 08:00 UTC, true time of the job's first step (+ seed jitter)
NCCL_VERSION = "2.21.5"
DTYPE_SIZE = {"Float": 4, "BFloat16": 2}
NCCL_TY = {"Float": "f32", "BFloat16": "bf16"}
NCCL_ARGS = "(ncclDevKernelArgsStorage<4096ul>)"
STREAM_COMPUTE, STREAM_DP, STREAM_TP = 7, 20, 24

# collective name as PyTorch writes it -> c10d op, nccl annotation, kernel name, busbw factor
COLL = {
    "allreduce": ("c10d::allreduce_", "nccl:all_reduce",
                  lambda dt: "ncclDevKernel_AllReduce_Sum_%s_RING_LL%s" % (NCCL_TY[dt], NCCL_ARGS),
                  lambda n: 2.0 * (n - 1) / n),
    "_allgather_base": ("c10d::_allgather_base_", "nccl:_all_gather_base",
                        lambda dt: "ncclDevKernel_AllGather_RING_LL" + NCCL_ARGS,
                        lambda n: (n - 1) / n),
    "_reduce_scatter_base": ("c10d::_reduce_scatter_base_", "nccl:_reduce_scatter_base",
                             lambda dt: "ncclDevKernel_ReduceScatter_Sum_%s_RING_LL%s" % (NCCL_TY[dt], NCCL_ARGS),
                             lambda n: (n - 1) / n),
}

# compute kernels: (outer cpu_op, launching cpu_op, kernel name, grid, block, registers, shared mem, base us)
K_GEMM = ("aten::linear", "aten::addmm",
          "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
          264, 384, 168, 213248, 420)
K_FLASH = ("aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
           "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
           "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
           "false, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
          512, 128, 255, 49152, 380)
K_LN = ("aten::layer_norm", "aten::native_layer_norm",
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
        "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
        16384, 256, 40, 0, 60)
K_GELU = ("aten::gelu", "aten::gelu",
          "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
          "at::native::GeluType)::{lambda()#3}::operator()() const::{lambda()#2}::operator()() const::"
          "{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl("
          "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#3}::operator()() const::{lambda()#2}::"
          "operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)",
          65536, 128, 28, 0, 70)
K_ADD = ("aten::add", "aten::add",
         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
         65536, 128, 24, 0, 45)
K_DGRAD = ("autograd::engine::evaluate_function: AddmmBackward0", "aten::mm",
           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
           132, 384, 168, 229376, 430)
K_WGRAD = ("autograd::engine::evaluate_function: AddmmBackward0", "aten::mm",
           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
           132, 384, 168, 229376, 450)
K_FLASH_BWD = ("autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
               "aten::_scaled_dot_product_flash_attention_backward",
               "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<"
               "128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, "
               "128, 8, cutlass::bfloat16_t> >, true, false, false, false, true, true, false>(pytorch_flash::Flash_bwd_params)",
               512, 256, 255, 98304, 760)
K_LN_BWD = ("autograd::engine::evaluate_function: NativeLayerNormBackward0", "aten::native_layer_norm_backward",
            "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>("
            "c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, "
            "c10::BFloat16*, int)",
            16384, 256, 48, 0, 90)
K_GELU_BWD = ("autograd::engine::evaluate_function: GeluBackward0", "aten::gelu_backward",
              "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl("
              "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#3}::operator()() const::{lambda()#2}::"
              "operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3> >(int, "
              "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#3}::"
              "operator()() const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, "
              "at::detail::Array<char*, 3>)",
              65536, 128, 30, 0, 95)
K_ADAM = ("aten::_fused_adamw_", "aten::_fused_adamw_",
          "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
          "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
          "(at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, bool, float*, "
          "float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::"
          "FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, "
          "double, bool, bool, float*, float*)",
          320, 512, 72, 0, 900)
FWD_PATTERN = (K_LN, K_GEMM, K_FLASH, K_GEMM, K_ADD, K_LN, K_GEMM, K_GELU, K_GEMM, K_ADD)
BWD_PATTERN = (K_DGRAD, K_WGRAD, K_GELU_BWD, K_DGRAD, K_WGRAD, K_LN_BWD, K_DGRAD, K_WGRAD, K_FLASH_BWD,
               K_DGRAD, K_WGRAD, K_LN_BWD)
DL_NAME = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
US = 1000


def die(msg):
    sys.stderr.write("gen-ranks.py: %s\n" % msg)
    sys.exit(2)


def parse_args(argv):
    p = argparse.ArgumentParser(description="Write multi-rank Kineto traces with a known straggler, host "
                                "clock offsets and NCCL collectives; print the ground truth (JSON).")
    p.add_argument("--ranks", type=int, default=8, help="world size (default 8)")
    p.add_argument("--out", required=True, help="output directory (created)")
    p.add_argument("--hosts", type=int, help="hosts node-0.. (default: ranks / the largest divisor of ranks <= 8); "
                   "must divide --ranks")
    p.add_argument("--tp", type=int, help="tensor-parallel group size, ranks of one host (default: GPUs per "
                   "host, at most 8; 1: no second process group)")
    p.add_argument("--steps", type=int, default=4, help="profiled steps (default 4)")
    p.add_argument("--first-step", type=int, default=10, help="N of the first ProfilerStep#N (default 10)")
    p.add_argument("--straggler", type=int, help="rank that is slower every step (default: none)")
    p.add_argument("--straggler-ms", type=float, default=5.0, help="its extra time per step (default 5)")
    p.add_argument("--straggler-cause", choices=("compute", "data_loading"), default="compute",
                   help="what makes it late: its compute kernels or its data loading (default compute)")
    p.add_argument("--host-offset-us", action="extend", nargs="+", default=[], metavar="HOST=US",
                   help="clock offset of a host (index or node-N) in us, may be fractional (node-1=1234.5); "
                   "repeatable; hosts not named, other than node-0, get a random offset within +-2 ms")
    p.add_argument("--no-random-offsets", action="store_true", help="unnamed hosts get offset 0")
    p.add_argument("--desync", metavar="RANK:SEQ", help="drop the collective of Seq SEQ on the default group "
                   "(or RANK:PG:SEQ on group PG) from RANK; Seq on group 0 run FIRST_STEP*BUCKETS+1.. (41..56 by "
                   "default), on a tensor-parallel group FIRST_STEP*2+1.. (21..28), also with --no-seq")
    p.add_argument("--desync-renumber", action="store_true", help="the desync rank's later Seq on that group "
                   "are one lower (the call was never made)")
    p.add_argument("--no-seq", action="store_true", help="leave the Seq arg out")
    p.add_argument("--old-format", action="store_true", help="integer absolute us timestamps, no "
                   "baseTimeNanoseconds (Kineto before 2023)")
    p.add_argument("--events-per-step", type=int, default=1000,
                   help="about this many trace events per step and rank (default 1000: ~0.2 MB per step)")
    p.add_argument("--buckets", type=int, default=4, help="gradient all-reduce buckets per step (default 4)")
    p.add_argument("--intra-gbps", type=float, default=150.0, help="bus bandwidth within a host, GB/s (150)")
    p.add_argument("--inter-gbps", type=float, default=20.0, help="bus bandwidth across hosts, GB/s (20)")
    p.add_argument("--end-jitter-us", type=float, default=0.0, help="each rank's end of a collective is later "
                   "by a random 0..this many us (default 0: all end together)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gzip", action="store_true", help="write .pt.trace.json.gz")
    p.add_argument("--jobs", type=int, default=0, help="writer processes (default: one per CPU)")
    a = p.parse_args(argv)
    if a.ranks < 1:
        die("--ranks must be >= 1")
    if a.hosts is None:
        a.hosts = a.ranks // max(d for d in range(1, 9) if a.ranks % d == 0)
    if a.hosts < 1 or a.ranks % a.hosts:
        die("--hosts %d does not divide --ranks %d" % (a.hosts, a.ranks))
    a.gpus = a.ranks // a.hosts
    if a.tp is None:
        a.tp = min(a.gpus, 8)
        while a.gpus % a.tp:
            a.tp -= 1
    if a.tp < 1 or a.gpus % a.tp:
        die("--tp %d does not divide the %d GPUs of a host" % (a.tp, a.gpus))
    if a.steps < 1 or a.buckets < 1 or a.events_per_step < 1:
        die("--steps, --buckets and --events-per-step must be >= 1")
    if a.straggler is not None and not 0 <= a.straggler < a.ranks:
        die("--straggler %d is not a rank of 0..%d" % (a.straggler, a.ranks - 1))
    if a.straggler_ms < 0:
        die("--straggler-ms must be >= 0")
    return a


class Model:
    """Everything every rank agrees on: groups, kernels, bucket sizes, host offsets, transfer times."""

    def __init__(self, a):
        self.a = a
        rng = random.Random("gen-ranks/%d/model" % a.seed)
        self.epoch = EPOCH_NS + rng.randrange(0, 10**9)
        self.hostnames = ["node-%d" % h for h in range(a.hosts)]
        off = [0] * a.hosts
        for h in range(1, a.hosts):
            r = rng.randrange(-2000000, 2000001)  # drawn whatever the options, so offsets stay put
            off[h] = 0 if a.no_random_offsets else r
        for spec in a.host_offset_us:
            name, sep, val = spec.partition("=")
            if not sep:
                die("--host-offset-us %s: expected HOST=US" % spec)
            h = int(name[5:]) if name.startswith("node-") and name[5:].isdigit() else (
                int(name) if name.isdigit() else -1)
            if not 0 <= h < a.hosts:
                die("--host-offset-us %s: no such host (node-0..node-%d)" % (spec, a.hosts - 1))
            try:
                off[h] = int(round(float(val) * 1000))
            except ValueError:
                die("--host-offset-us %s: %s is not a number of us" % (spec, val))
        self.offset = off
        # process ids, distinct on each host (the file names hold host and pid)
        self.pids = [p for _ in range(a.hosts) for p in rng.sample(range(20000, 4000000), a.gpus)]
        # kernels per layer: the step has ~12 fixed events per collective and ~40 others
        ncoll = a.buckets + (2 if a.tp > 1 else 0)
        self.layers = 8
        per_kernel = 6.0  # outer op, launching op, runtime, kernel, two flow events
        k = max(3, int(round((a.events_per_step - 40 - 12 * ncoll) / per_kernel)))
        self.nfwd = max(1, int(round(k / 3.0 / self.layers)))
        self.nbwd = 2 * self.nfwd
        self.fwd = [[FWD_PATTERN[(l * self.nfwd + i) % len(FWD_PATTERN)] for i in range(self.nfwd)]
                    for l in range(self.layers)]
        self.bwd = [[BWD_PATTERN[(l * self.nbwd + i) % len(BWD_PATTERN)] for i in range(self.nbwd)]
                    for l in range(self.layers)]
        # per-kernel base durations (ns), fixed for the job; scaled so one step's compute is ~45 ms
        # whatever the kernel count
        scale = 45e6 / (sum(kk[7] for row in self.fwd + self.bwd for kk in row) * US)
        self.fwd_ns = [[int(kk[7] * US * scale * rng.uniform(0.8, 1.2)) for kk in row] for row in self.fwd]
        self.bwd_ns = [[int(kk[7] * US * scale * rng.uniform(0.8, 1.2)) for kk in row] for row in self.bwd]
        self.compute_ns = sum(map(sum, self.fwd_ns)) + sum(map(sum, self.bwd_ns))
        # gradient buckets (DDP's ~25 MB): sizes and dtypes differ per bucket, the same every step
        self.buckets = []
        for b in range(a.buckets):
            dtype = "BFloat16" if b % 3 == 1 else "Float"
            nel = rng.choice((6637568, 7875584, 6563840, 2431040, 2049000, 4196352, 3147776))
            self.buckets.append((nel, dtype))
        # the layer after whose backward each bucket is ready (buckets fill from the last layer)
        self.bucket_after = [min(self.layers - 1, int(math.ceil((b + 1) * self.layers / a.buckets)) - 1)
                             for b in range(a.buckets)]
        self.ag_out = 8388608  # BFloat16 elements gathered per step (16 MiB)
        # process groups: "0" default_pg (all ranks), then one per tensor-parallel group
        ntp = a.ranks // a.tp if a.tp > 1 else 0
        self.ntp = ntp
        self.seq0 = {"0": a.first_step * a.buckets + 1}
        self.tp_seq0 = a.first_step * 2 + 1
        self.cross_host_world = a.hosts > 1
        self.first_step = a.first_step

    def tp_group(self, r):
        return r // self.a.tp

    def tp_name(self, g):
        return str(1 + g)

    def transfer(self, coll, nbytes, n, cross):
        if n <= 1:
            return 4 * US
        bw = self.a.inter_gbps if cross else self.a.intra_gbps
        lat = 25 * US if cross else 10 * US
        return lat + int(COLL[coll][3](n) * nbytes / bw)


def ranks_str(ranks):
    """Process Group Ranks as PyTorch writes it on events (first 30, then ', ...')."""
    if len(ranks) > 30:
        return "[%s, ...]" % ", ".join(map(str, ranks[:30]))
    return "[%s]" % ", ".join(map(str, ranks))


class Draws:
    """One rank's random draws for one step (deterministic in seed, rank, step)."""
    __slots__ = ("gap", "ag_cpu", "dl", "h2d", "ov", "fwd", "bwd", "jit", "opt", "ej")

    def __init__(self, m, rank, step):
        a = m.a
        rng = random.Random("gen-ranks/%d/%d/%d" % (a.seed, rank, step))
        self.gap = rng.randrange(30 * US, 80 * US)
        self.ag_cpu = rng.randrange(15 * US, 30 * US)
        self.dl = int(1500 * US * rng.uniform(0.9, 1.1))
        self.h2d = int(210 * US * rng.uniform(0.95, 1.05))
        self.ov = rng.randrange(9 * US, 15 * US)
        f = 1.0
        strag = a.straggler == rank
        if strag and a.straggler_cause == "compute":
            f = 1.0 + a.straggler_ms * 1e6 / m.compute_ns
        elif strag:
            self.dl += int(a.straggler_ms * 1e6)
        g = rng.gauss
        self.fwd = [[int(d * f * (1 + 0.01 * g(0, 1))) for d in row] for row in m.fwd_ns]
        self.bwd = [[int(d * f * (1 + 0.01 * g(0, 1))) for d in row] for row in m.bwd_ns]
        self.jit = [rng.randrange(3 * US, 9 * US) for _ in range(a.buckets + 2)]
        self.opt = [int(900 * US * rng.uniform(0.98, 1.02)), int(450 * US * rng.uniform(0.98, 1.02))]
        # end jitter per collective (buckets, then AG, RS); drawn last so that 0 changes nothing else
        ej = int(a.end_jitter_us * US)
        self.ej = [rng.randrange(0, ej + 1) if ej else 0 for _ in range(a.buckets + 2)]


class Emit:
    """Formats one rank's events (true ns in, the rank's clock out)."""

    def __init__(self, m, rank):
        a = m.a
        self.m, self.rank = m, rank
        self.pid = m.pids[rank]
        self.tid = self.pid
        self.bwd_tid = self.pid + 53 + rank % 7
        self.dev = rank % a.gpus
        self.off = m.offset[rank // a.gpus]
        self.old = a.old_format
        # Kineto's base time: a whole second before the rank's first event, on its clock
        self.base = ((m.epoch + self.off) // 10**9 - 7) * 10**9
        self.ev = []
        self.ext = 1000 + rank % 13
        self.corr = 5000 + rank % 17
        self.rf = 100
        self.evidx = 0
        self.nkernels = 0
        self.ncoll = 0

    def ts(self, ns):
        if self.old:
            return "%d" % ((ns + self.off) // 1000)
        return "%d.%03d" % divmod(ns + self.off - self.base, 1000)

    def dur(self, ns):
        if self.old:
            return "%d" % ((ns + 500) // 1000)
        return "%d.%03d" % divmod(ns, 1000)

    def x(self, cat, name, pid, tid, t, d, args):
        self.ev.append('{"ph": "X", "cat": "%s", "name": "%s", "pid": %d, "tid": %d, "ts": %s, "dur": %s, '
                       '"args": {%s}}' % (cat, name, pid, tid, self.ts(t), self.dur(d), args))

    def cpu(self, cat, name, tid, t, d, extra=""):
        self.ext += 1
        self.rf += 1
        self.evidx += 1
        self.x(cat, name, self.pid, tid, t, d, '"External id": %d, "Record function id": %d%s, "Ev Idx": %d'
               % (self.ext, self.rf, extra, self.evidx))
        return self.ext

    def runtime(self, name, tid, t, d, ext, cbid):
        self.corr += 1
        self.x("cuda_runtime", name, self.pid, tid, t, d, '%s"cbid": %d, "correlation": %d'
               % ('"External id": %d, ' % ext if ext else "", cbid, self.corr))
        return self.corr

    def launch(self, tid, t, ext, name="cudaLaunchKernel", cbid=211):
        corr = self.runtime(name, tid, t, 5 * US if cbid == 211 else 7 * US, ext, cbid)
        self.ev.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"}'
                       % (corr, self.pid, tid, self.ts(t)))
        return corr

    def kernel(self, name, stream, t, d, ext, corr, grid, block, regs, smem, extra=""):
        self.nkernels += 1
        warps = block / 32.0 * grid / 132.0
        self.x("kernel", name, self.dev, stream, t, d,
               '"External id": %d, "queued": 0, "device": %d, "context": 1, "stream": %d, "correlation": %d, '
               '"registers per thread": %d, "shared memory": %d, "blocks per SM": %.6f, "warps per SM": %.6f, '
               '"grid": [%d, 1, 1], "block": [%d, 1, 1], "est. achieved occupancy %%": %d%s'
               % (ext, self.dev, stream, corr, regs, smem, grid / 132.0, warps, grid, block,
                  min(100, int(warps * 100 / 64)), extra))
        self.ev.append('{"ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g", '
                       '"bp": "e"}' % (corr, self.dev, stream, self.ts(t)))

    def compute(self, k, tid, t, gstart, d):
        """One compute op launched at CPU time t, its kernel at gstart for d ns."""
        outer, leaf, kname, grid, block, regs, smem, _ = k
        self.cpu("cpu_op", outer, tid, t, 9 * US)
        ext = self.cpu("cpu_op", leaf, tid, t + 1 * US, 7 * US)
        corr = self.launch(tid, t + 2 * US, ext)
        self.kernel(kname, STREAM_COMPUTE, gstart, d, ext, corr, grid, block, regs, smem)

    def collective(self, c, tid, t, start, end):
        """A collective launched at CPU time t (c: dict of its metadata), its kernel [start, end)."""
        self.ncoll += 1
        c10d, ann, kname, _ = COLL[c["name"]]
        stream = STREAM_DP if c["pg"] == "0" else STREAM_TP
        seq = "" if c["seq"] is None else ', "Seq": %d' % c["seq"]
        cpu_args = (', "Process Group Name": "%s", "Global rank stride": 1, "Out msg nelems": %d, '
                    '"Process Group Ranks": "%s", "Group size": %d, "Global rank start": %d, "In msg nelems": %d, '
                    '"In split size": "[]", "Out split size": "[]", "dtype": "%s", "Process Group Description": '
                    '"%s", "Collective name": "%s", "Rank": %d%s'
                    % (c["pg"], c["out"], c["ranks_str"], c["n"], c["start_rank"], c["in"], c["dtype"], c["desc"],
                       c["name"], self.rank, seq))
        self.cpu("cpu_op", c10d, tid, t, 60 * US)
        ext = self.cpu("cpu_op", "record_param_comms", tid, t + 4 * US, 50 * US, cpu_args)
        ann_ext = self.cpu("user_annotation", ann, tid, t + 10 * US, 30 * US)
        self.runtime("cudaEventRecord", tid, t + 12 * US, 2 * US, ext, 135)
        self.runtime("cudaStreamWaitEvent", tid, t + 15 * US, 2 * US, ext, 147)
        corr = self.launch(tid, t + 20 * US, ext, "cudaLaunchKernelExC", 430)
        kargs = (', "Collective name": "%s", "In msg nelems": %d, "Out msg nelems": %d, "Group size": %d, '
                 '"dtype": "%s", "In split size": "[]", "Out split size": "[]", "Process Group Name": "%s", '
                 '"Process Group Description": "%s", "Process Group Ranks": "%s"%s'
                 % (c["name"], c["in"], c["out"], c["n"], c["dtype"], c["pg"], c["desc"], c["ranks_str"], seq))
        self.kernel(kname(c["dtype"]), stream, start, end - start, ext, corr, 24, 640, 96, 8432, kargs)
        self.x("gpu_user_annotation", ann, self.dev, stream, start - 1, end - start + 2, '"External id": %d' % ann_ext)
        self.runtime("cudaEventRecord", tid, t + 34 * US, 1 * US, ext, 135)


class Rank:
    """One rank's state across steps: its CPU cursor and the times its streams are free."""

    def __init__(self, m, rank):
        self.m, self.rank = m, rank
        self.cpu = m.epoch + Draws(m, rank, -1).gap  # process start jitter
        self.gfree = self.cpu
        self.dp_free = self.cpu
        self.tp_free = self.cpu


_META = {}


def coll_meta(m, r, kind, step_i, k):
    """coll_meta_new(), shared by every rank of the group (do not modify the result)."""
    key = (kind, 0 if kind == "ar" else m.tp_group(r), step_i, k)
    c = _META.get(key)
    if c is None:
        c = _META[key] = coll_meta_new(m, r, kind, step_i, k)
    return c


def coll_meta_new(m, r, kind, step_i, k):
    """The metadata of collective kind ("ag", "ar", "rs"; k: bucket) of step step_i, as rank r writes it."""
    a = m.a
    if kind == "ar":
        nel, dtype = m.buckets[k]
        pg, desc, n, start_rank = "0", "default_pg", a.ranks, 0
        ranks = range(a.ranks)
        name, cin, cout = "allreduce", nel, nel
        seq = m.seq0["0"] + step_i * a.buckets + k
    else:
        g = m.tp_group(r)
        pg, desc, n, start_rank = m.tp_name(g), "tp_group", a.tp, g * a.tp
        ranks = range(start_rank, start_rank + a.tp)
        dtype = "BFloat16"
        if kind == "ag":
            name, cin, cout = "_allgather_base", m.ag_out // a.tp, m.ag_out
            seq = m.tp_seq0 + 2 * step_i
        else:
            name, cin, cout = "_reduce_scatter_base", m.ag_out, m.ag_out // a.tp
            seq = m.tp_seq0 + 2 * step_i + 1
    return {"pg": pg, "desc": desc, "n": n, "start_rank": start_rank, "ranks_str": ranks_str(list(ranks[:31])),
            "name": name, "in": cin, "out": cout, "dtype": dtype,
            "bytes": max(cin, cout) * DTYPE_SIZE[dtype], "seq": None if a.no_seq else seq,
            "true_seq": seq}


def step_phase1(m, st, d):
    """Step start: returns (AG launch CPU time, AG arrival on the GPU)."""
    t = st.cpu + d.ag_cpu
    return t, max(st.tp_free, t + 20 * US + d.jit[-1])


def step_phase2(m, st, d, ag_end, em, ag_launch, res):
    """Data loading, forward, backward. Returns (bucket ready GPU times, bucket launch CPU times,
    backward end GPU time, RS launch CPU time, main-thread CPU time after backward). em: None or an
    Emit, then res (the step's collective results) gives the collectives' times."""
    cpu = ag_launch + 70 * US
    if em:
        em.cpu("user_annotation", DL_NAME, em.tid, cpu, d.dl)
    cpu += d.dl + 10 * US
    g = st.gfree
    # the batch's host-to-device copy
    gs = max(g, cpu + 6 * US)
    if em:
        ext = em.cpu("cpu_op", "aten::to", em.tid, cpu, 30 * US)
        corr = em.runtime("cudaMemcpyAsync", em.tid, cpu + 8 * US, 14 * US, ext, 41)
        em.ev.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"}'
                     % (corr, em.pid, em.tid, em.ts(cpu + 8 * US)))
        em.x("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", em.dev, STREAM_COMPUTE, gs, d.h2d,
             '"External id": %d, "device": %d, "context": 1, "stream": %d, "correlation": %d, "bytes": 4194304, '
             '"memory bandwidth (GB/s)": %.6f' % (ext, em.dev, STREAM_COMPUTE, corr, 4194304.0 / d.h2d))
        em.ev.append('{"ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g", '
                     '"bp": "e"}' % (corr, em.dev, STREAM_COMPUTE, em.ts(gs)))
    g = gs + d.h2d
    cpu += 40 * US
    g = max(g, ag_end)  # the forward waits for the gathered parameters
    fwd_start = cpu
    for l in range(m.layers):
        for i, k in enumerate(m.fwd[l]):
            gs = max(g, cpu + 5 * US)
            if em:
                em.compute(k, em.tid, cpu, gs, d.fwd[l][i])
            g = gs + d.fwd[l][i]
            cpu += d.ov
    if em:
        em.cpu("user_annotation", "## forward ##", em.tid, fwd_start - 1 * US, cpu - fwd_start + 2 * US)
    # backward on the autograd thread; each bucket all-reduced once its last layer is done
    bcpu = cpu + 25 * US
    bwd_start = bcpu
    ready, launch = [], []
    b = 0
    for j, l in enumerate(reversed(range(m.layers))):
        for i, k in enumerate(m.bwd[l]):
            gs = max(g, bcpu + 5 * US)
            if em:
                em.compute(k, em.bwd_tid, bcpu, gs, d.bwd[l][i])
            g = gs + d.bwd[l][i]
            bcpu += d.ov
        while b < len(m.bucket_after) and m.bucket_after[b] == j:
            ready.append(g)
            launch.append(bcpu)
            if em and res["ar"][b] is not None:
                c, s, e = res["ar"][b]
                em.collective(c, em.bwd_tid, bcpu, s, e)
            bcpu += 65 * US
            b += 1
    rs_launch = bcpu
    if em and res["rs"] is not None:
        c, s, e = res["rs"]
        em.collective(c, em.bwd_tid, bcpu, s, e)
    if m.a.tp > 1:
        bcpu += 65 * US
    if em:
        em.cpu("user_annotation", "## backward ##", em.tid, bwd_start - 20 * US, bcpu - bwd_start + 40 * US)
    st.gfree = g
    return ready, launch, g, rs_launch, bcpu + 15 * US


def step_phase3(m, st, d, cpu, last_comm_end, em, step_no, step_start):
    """Optimizer after every gradient collective, stream synchronize, step end."""
    t0 = cpu
    g = max(st.gfree, last_comm_end)
    for i, dur in enumerate(d.opt):
        gs = max(g, cpu + 5 * US)
        if em:
            em.compute(K_ADAM, em.tid, cpu, gs, dur)
        g = gs + dur
        cpu += 30 * US
    if em:
        em.cpu("user_annotation", "Optimizer.step#AdamW.step", em.tid, t0, cpu - t0)
    sync_end = max(cpu, g) + 8 * US
    if em:
        em.runtime("cudaStreamSynchronize", em.tid, cpu, sync_end - cpu, 0, 131)
    end = sync_end + 12 * US
    if em:
        em.cpu("user_annotation", "ProfilerStep#%d" % step_no, em.tid, step_start, end - step_start)
    st.gfree = g
    st.cpu = end + d.gap
    return end


def desync_target(m, a):
    """(rank, pg, true seq, kind, step index, bucket/None) of --desync, or None."""
    if not a.desync:
        return None
    parts = a.desync.split(":")
    try:
        if len(parts) == 2:
            rank, pg, seq = int(parts[0]), "0", int(parts[1])
        elif len(parts) == 3:
            rank, pg, seq = int(parts[0]), parts[1], int(parts[2])
        else:
            raise ValueError
    except ValueError:
        die("--desync %s: expected RANK:SEQ or RANK:PG:SEQ" % a.desync)
    if not 0 <= rank < a.ranks:
        die("--desync %s: no rank %d" % (a.desync, rank))
    if pg == "0":
        i = seq - m.seq0["0"]
        if not 0 <= i < a.steps * a.buckets:
            die("--desync %s: Seq on group 0 runs %d..%d" % (a.desync, m.seq0["0"],
                                                            m.seq0["0"] + a.steps * a.buckets - 1))
        return (rank, pg, seq, "ar", i // a.buckets, i % a.buckets)
    if a.tp < 2 or pg != m.tp_name(m.tp_group(rank)):
        die("--desync %s: rank %d is not in group %s" % (a.desync, rank, pg))
    i = seq - m.tp_seq0
    if not 0 <= i < 2 * a.steps:
        die("--desync %s: Seq on group %s runs %d..%d" % (a.desync, pg, m.tp_seq0, m.tp_seq0 + 2 * a.steps - 1))
    return (rank, pg, seq, "ag" if i % 2 == 0 else "rs", i // 2, None)


def simulate(m):
    """True-time schedule of every rank. Returns results[rank][step] = {"ar": [(meta, start, end) or
    None], "ag": ..., "rs": ...} and per-collective ground truth."""
    a = m.a
    R = a.ranks
    ranks = [Rank(m, r) for r in range(R)]
    dz = desync_target(m, a)
    results = [[None] * a.steps for _ in range(R)]
    truth = []
    shift = [dict() for _ in range(R)]  # renumbering after a desync: pg -> amount

    def dropped(r, kind, s, b):
        return dz is not None and dz[0] == r and dz[3] == kind and dz[4] == s and (b is None or dz[5] == b)

    def meta(r, kind, s, b):
        c = coll_meta(m, r, kind, s, b)
        sh = shift[r].get(c["pg"], 0)
        if sh and c["seq"] is not None:
            c = dict(c)
            c["seq"] -= sh
        return c

    def run_group(members, kind, s, b, arrivals, cross):
        """One collective over members: arrival per member (None: dropped). Returns end time."""
        present = [(arrivals[i], r) for i, r in enumerate(members) if arrivals[i] is not None]
        c0 = meta(members[0], kind, s, b)
        tr = m.transfer(c0["name"], c0["bytes"], len(members), cross)
        first_max = max(present)
        end = first_max[0] + tr
        srt = sorted(present)
        truth.append({"pg": c0["pg"], "seq": c0["true_seq"], "name": c0["name"], "step": m.first_step + s,
                      "bytes": c0["bytes"], "dtype": c0["dtype"], "group_size": len(members),
                      "transfer_ns": tr, "last_rank": srt[-1][1],
                      "last_gap_ns": srt[-1][0] - srt[-2][0] if len(srt) > 1 else 0,
                      "skew_ns": srt[-1][0] - srt[0][0], "end_ns": end, "cross_host": cross})
        for i, r in enumerate(members):
            if arrivals[i] is None and a.desync_renumber:
                shift[r][c0["pg"]] = shift[r].get(c0["pg"], 0) + 1
        return end

    tp_groups = [list(range(g * a.tp, (g + 1) * a.tp)) for g in range(m.ntp)]
    for s in range(a.steps):
        draws = [Draws(m, r, s) for r in range(R)]
        for r in range(R):
            results[r][s] = {"ar": [None] * a.buckets, "ag": None, "rs": None}
        step_start = [st.cpu for st in ranks]
        # phase 1: all-gather on each tensor-parallel group
        ag_launch = [0] * R
        ag_end = [0] * R
        arr = [0] * R
        for r in range(R):
            ag_launch[r], arr[r] = step_phase1(m, ranks[r], draws[r])
        if a.tp > 1:
            for members in tp_groups:
                av = [None if dropped(r, "ag", s, None) else arr[r] for r in members]
                metas = [meta(r, "ag", s, None) for r in members]
                end = run_group(members, "ag", s, None, av, False)
                for i, r in enumerate(members):
                    if av[i] is not None:
                        e = end + draws[r].ej[a.buckets]
                        results[r][s]["ag"] = (metas[i], av[i], e)
                        ranks[r].tp_free = e
                        ag_end[r] = e
                    else:
                        ag_end[r] = ranks[r].gfree  # skipped: the forward does not wait
        else:
            ag_end = [ranks[r].gfree for r in range(R)]
        # phase 2: compute; collect bucket readiness
        p2 = [step_phase2(m, ranks[r], draws[r], ag_end[r], None, ag_launch[r], None) for r in range(R)]
        # gradient all-reduces over the world, bucket by bucket (one communication stream each)
        last_end = [0] * R
        for b in range(a.buckets):
            av = []
            for r in range(R):
                ready, launch = p2[r][0][b], p2[r][1][b]
                if dropped(r, "ar", s, b):
                    av.append(None)
                else:
                    av.append(max(ready, launch + 20 * US + draws[r].jit[b], ranks[r].dp_free))
            metas = [meta(r, "ar", s, b) for r in range(R)]
            end = run_group(list(range(R)), "ar", s, b, av, m.cross_host_world)
            for r in range(R):
                if av[r] is not None:
                    e = end + draws[r].ej[b]
                    results[r][s]["ar"][b] = (metas[r], av[r], e)
                    ranks[r].dp_free = e
                    last_end[r] = e
        # reduce-scatter of the gradients on each tensor-parallel group
        if a.tp > 1:
            for members in tp_groups:
                av = []
                for r in members:
                    bwd_end, rs_launch = p2[r][2], p2[r][3]
                    if dropped(r, "rs", s, None):
                        av.append(None)
                    else:
                        av.append(max(bwd_end, rs_launch + 20 * US + draws[r].jit[a.buckets], ranks[r].tp_free))
                metas = [meta(r, "rs", s, None) for r in members]
                end = run_group(members, "rs", s, None, av, False)
                for i, r in enumerate(members):
                    if av[i] is not None:
                        e = end + draws[r].ej[a.buckets + 1]
                        results[r][s]["rs"] = (metas[i], av[i], e)
                        ranks[r].tp_free = e
                        last_end[r] = max(last_end[r], e)
        # phase 3: optimizer and step end
        for r in range(R):
            step_phase3(m, ranks[r], draws[r], p2[r][4], last_end[r], None, m.first_step + s, step_start[r])
    return results, truth, dz


# ---------------------------------------------------------------------------------------------
# writing

M = None
RESULTS = None


def device_props(n):
    return ", ".join(
        '{"id": %d, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045231616, "computeMajor": 9, '
        '"computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, '
        '"warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536, '
        '"sharedMemPerBlockOptin": 232448, "sharedMemPerMultiprocessor": 233472}' % i for i in range(n))


def file_name(m, r, end_ns):
    host = m.hostnames[r // m.a.gpus]
    return "%s_%d.%d.pt.trace.json%s" % (host, m.pids[r], end_ns + m.offset[r // m.a.gpus],
                                         ".gz" if m.a.gzip else "")


def write_rank(r):
    m, a = M, M.a
    em = Emit(m, r)
    st = Rank(m, r)
    start = st.cpu
    for s in range(a.steps):
        d = Draws(m, r, s)
        res = RESULTS[r][s]
        step_start = st.cpu
        ag_launch, _ = step_phase1(m, st, d)
        if res["ag"] is not None:
            c, gs, ge = res["ag"]
            em.collective(c, em.tid, ag_launch, gs, ge)
            st.tp_free = ge
            ag_end = ge
        else:
            ag_end = st.gfree
        p2 = step_phase2(m, st, d, ag_end, em, ag_launch, res)
        last = 0
        for x in res["ar"]:
            if x is not None:
                last = max(last, x[2])
        if res["rs"] is not None:
            last = max(last, res["rs"][2])
        step_phase3(m, st, d, p2[4], last, em, m.first_step + s, step_start)
    end = st.cpu
    head = [
        '{\n  "schemaVersion": 1,\n  "deviceProperties": [%s],\n' % device_props(a.gpus),
    ]
    pgs = [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": a.ranks,
            "ranks": list(range(a.ranks))}]
    if a.tp > 1:
        g = m.tp_group(r)
        pgs.append({"pg_name": m.tp_name(g), "pg_desc": "tp_group", "backend_config": "cuda:nccl", "pg_size": a.tp,
                    "ranks": list(range(g * a.tp, (g + 1) * a.tp))})
    dist = {"backend": "nccl", "rank": r, "world_size": a.ranks, "pg_count": len(pgs), "pg_config": pgs,
            "nccl_version": NCCL_VERSION}
    head.append('  "distributedInfo": %s,\n' % json.dumps(dist))
    if not a.old_format:
        head.append('  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d,\n' % em.base)
    head.append('  "traceEvents": [\n')
    meta = []
    t0 = em.ts(start)
    for name, arg in (("process_name", '"name": "python3"'), ("process_labels", '"labels": "CPU"'),
                      ("process_sort_index", '"sort_index": %d' % em.pid)):
        meta.append('{"name": "%s", "ph": "M", "ts": %s, "pid": %d, "tid": 0, "args": {%s}}' % (name, t0, em.pid, arg))
    for name, arg in (("process_name", '"name": "python3"'), ("process_labels", '"labels": "GPU %d"' % em.dev),
                      ("process_sort_index", '"sort_index": %d' % (16777216 + em.dev))):
        meta.append('{"name": "%s", "ph": "M", "ts": %s, "pid": %d, "tid": 0, "args": {%s}}' % (name, t0, em.dev, arg))
    for tid, nm in ((em.tid, "thread %d (python3)" % em.tid), (em.bwd_tid, "thread %d (pt_autograd_0)" % em.bwd_tid)):
        meta.append('{"name": "thread_name", "ph": "M", "ts": %s, "pid": %d, "tid": %d, "args": {"name": "%s"}}'
                    % (t0, em.pid, tid, nm))
    for stream in (STREAM_COMPUTE, STREAM_DP) + ((STREAM_TP,) if a.tp > 1 else ()):
        meta.append('{"name": "thread_name", "ph": "M", "ts": %s, "pid": %d, "tid": %d, "args": {"name": "stream %d "}}'
                    % (t0, em.dev, stream, stream))
    tail = [
        '{"ph": "X", "cat": "Trace", "ts": %s, "dur": %s, "pid": "Spans", "tid": "PyTorch Profiler", '
        '"name": "PyTorch Profiler (0)", "args": {"Op count": 0}}' % (t0, em.dur(end - start)),
        '{"name": "process_sort_index", "ph": "M", "ts": %s, "pid": "Spans", "tid": 0, "args": {"sort_index": 536870912}}'
        % t0,
        '{"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", "tid": "Trace PyTorch '
        'Profiler", "ts": %s}' % t0,
        '{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": %s}' % em.ts(end + 500 * US),
    ]
    fname = file_name(m, r, end + 40 * 10**6)
    path = os.path.join(a.out, fname)
    text = "".join(head) + ",\n".join(meta + em.ev + tail) + '\n  ],\n  "traceName": "%s"\n}\n' % path
    data = text.encode()
    if a.gzip:
        # mtime 0 and no name: the same bytes every run
        with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6,
                                                    mtime=0) as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)
    return r, fname, em.nkernels, em.ncoll, len(data), os.path.getsize(path)


def desync_truth(m, dz):
    """Ground truth of --desync: the dropped collective, and the first divergence a matcher by
    (pg, seq) must report given the Seq it can see (the trace's, or step * 1000000 + ordinal of the
    collective in its (pg, step) without Seq): {"seq", "kind": missing|metadata} or null when the
    skip cannot be seen (renumbered and every later collective alike)."""
    if dz is None:
        return None
    a = m.a
    rank, pg, seq, kind, s, b = dz
    if pg == "0":
        order = [("ar", i // a.buckets, i % a.buckets) for i in range(a.steps * a.buckets)]
    else:
        order = [(k, i, None) for i in range(a.steps) for k in ("ag", "rs")]
    metas = [coll_meta(m, rank, k, si, bi) for k, si, bi in order]
    key = [(c["name"], c["dtype"], c["bytes"], c["n"]) for c in metas]
    at = [i for i, (k, si, bi) in enumerate(order) if (k, si, bi) == (kind, s, b)][0]
    per_step = len(order) // a.steps
    c = metas[at]
    out = {"rank": rank, "pg": pg, "seq": seq, "collective": c["name"], "step": m.first_step + s,
           "ordinal": at % per_step, "renumbered": bool(a.desync_renumber),
           "expected": {"name": c["name"], "dtype": c["dtype"], "bytes": c["bytes"], "group_size": c["n"]}}
    if not a.no_seq and not a.desync_renumber:
        out["report"] = {"seq": seq, "kind": "missing"}
    elif not a.no_seq:
        # the rank's entry i is the others' i + 1, up to the end of the common range
        rep = None
        for i in range(at, len(order) - 1):
            if key[i] != key[i + 1]:
                rep = {"seq": metas[i]["true_seq"], "kind": "metadata"}
                break
        out["report"] = rep
    else:
        # seq = step * 1000000 + ordinal: the skip shifts the rest of its step only
        step_end = (at // per_step + 1) * per_step
        rep = {"seq": (m.first_step + s) * 1000000 + step_end - 1 - (at // per_step) * per_step, "kind": "missing"}
        for i in range(at, step_end - 1):
            if key[i] != key[i + 1]:
                rep = {"seq": (m.first_step + s) * 1000000 + i % per_step, "kind": "metadata"}
                break
        out["report"] = rep
    return out


def main(argv):
    global M, RESULTS
    a = parse_args(argv)
    m = Model(a)
    results, truth, dz = simulate(m)
    M, RESULTS = m, results
    os.makedirs(a.out, exist_ok=True)
    jobs = a.jobs or os.cpu_count() or 1
    if jobs > 1 and a.ranks >= 8:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(min(jobs, a.ranks)) as pool:
            written = list(pool.imap(write_rank, range(a.ranks), chunksize=max(1, a.ranks // (jobs * 8))))
    else:
        written = [write_rank(r) for r in range(a.ranks)]
    # ground truth
    strag = None
    if a.straggler is not None:
        # mine: the collectives the straggler is in (the world's, and its own tensor-parallel group's)
        tpname = m.tp_name(m.tp_group(a.straggler)) if a.tp > 1 else None
        mine = [t for t in truth if t["pg"] == "0" or t["pg"] == tpname]
        last = [t for t in mine if t["last_rank"] == a.straggler]
        strag = {"rank": a.straggler, "host": m.hostnames[a.straggler // a.gpus], "ms_per_step": a.straggler_ms,
                 "cause": a.straggler_cause, "collectives": len(mine), "last_count": len(last),
                 "last_arrival_pct": round(100.0 * len(last) / len(mine), 3) if mine else 0.0,
                 "blame_ns": sum(t["last_gap_ns"] for t in last)}
    desync = desync_truth(m, dz)
    per_pg = {}
    for t in truth:
        k = (t["pg"], t["name"])
        e = per_pg.setdefault(k, {"pg": t["pg"], "name": t["name"], "count": 0, "bytes": 0, "transfer_ns": 0,
                                  "group_size": t["group_size"], "cross_host": t["cross_host"],
                                  "factor": round(COLL[t["name"]][3](t["group_size"]), 6)})
        e["count"] += 1
        e["bytes"] += t["bytes"]
        e["transfer_ns"] += t["transfer_ns"]
    for e in per_pg.values():
        e["algbw_gbps"] = e["bytes"] / e["transfer_ns"] if e["transfer_ns"] else None
        e["busbw_gbps"] = e["algbw_gbps"] * e["factor"] if e["algbw_gbps"] else None
    doc = {
        "generator": "bench/gen-ranks.py", "seed": a.seed, "ranks": a.ranks, "hosts": a.hosts,
        "gpus_per_host": a.gpus, "tp": a.tp, "steps": a.steps, "first_step": a.first_step,
        "format": "old" if a.old_format else "modern", "seq_source": "step" if a.no_seq else "trace",
        "straggler": strag,
        "host_offsets_ns": {m.hostnames[h]: m.offset[h] for h in range(a.hosts)},
        # what an aggregation must report: add to a rank's times to get node-0's clock
        "clock_offset_ns": {m.hostnames[h]: m.offset[0] - m.offset[h] for h in range(a.hosts)},
        "desync": desync,
        "process_groups": [{"name": "0", "desc": "default_pg", "size": a.ranks}] + [
            {"name": m.tp_name(g), "desc": "tp_group", "size": a.tp,
             "ranks": list(range(g * a.tp, (g + 1) * a.tp))} for g in range(m.ntp)],
        "collectives_per_step": {"allreduce": a.buckets, "_allgather_base": 1 if a.tp > 1 else 0,
                                 "_reduce_scatter_base": 1 if a.tp > 1 else 0},
        "collective_totals": sorted(per_pg.values(), key=lambda e: (int(e["pg"]), e["name"])),
        "files": [{"rank": w[0], "host": m.hostnames[w[0] // a.gpus], "file": w[1], "kernels": w[2],
                   "nccl_kernels": w[3], "bytes": w[5]} for w in written],
        "json_bytes": sum(w[4] for w in written), "file_bytes": sum(w[5] for w in written),
    }
    json.dump(doc, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
