# SPDX-License-Identifier: MIT
"""gpuprof.bench(): time a function's iterations, with the statistics of `gpuprof bench`.

The samples are taken here; the statistics, the JSON document (``gpuprof.bench/1``,
docs/bench-schema.md) and the table come from libgpuprof (``gp_bench_*``), so they are
the CLI's, number for number, and ``gpuprof compare`` reads the file this writes.

Timing (docs/python.md):

- with PyTorch imported and CUDA available (or ``device="cuda"``): a pair of CUDA events
  per iteration on the current stream, recorded before and after ``fn``; the device is
  synchronised before the first warm-up, after the warm-up and once at the end, before
  the events are read (``torch.cuda.Event.elapsed_time``). An iteration's time is the
  stream's time from the start event to the end event, so a host that launches too
  slowly shows up in it too. The peak memory of each iteration is
  ``torch.cuda.max_memory_allocated()`` after ``torch.cuda.reset_peak_memory_stats()``,
  its memory at the end ``torch.cuda.memory_allocated()``, both read when ``fn``
  returns (the caching allocator counts on the host, as ``fn`` allocates and frees:
  no synchronisation is needed, and none is added inside the timed loop);
- otherwise ``time.perf_counter_ns()`` around ``fn`` (monotonic).
"""
import ctypes
import json
import sys
import time

from . import _lib

_bound = {"done": False}


def _library():
    lib = _lib.load()
    if lib is None:
        raise RuntimeError("gpuprof.bench needs libgpuprof.so: %s" % _lib.reason())
    if not _bound["done"]:
        vp, cp, dp = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_double)
        protos = {
            "gp_bench_new": (vp, [cp, ctypes.c_uint64]),
            "gp_bench_free": (None, [vp]),
            "gp_bench_tag": (ctypes.c_int, [vp, cp, cp]),
            "gp_bench_source_arg": (ctypes.c_int, [vp, cp]),
            "gp_bench_target": (ctypes.c_int, [vp, cp]),
            "gp_bench_add": (ctypes.c_int, [vp, cp, cp, ctypes.c_double, ctypes.c_uint32, dp,
                                            ctypes.c_size_t, dp, dp, ctypes.POINTER(ctypes.c_int)]),
            "gp_bench_warmup_times": (ctypes.c_int, [vp, ctypes.c_int, dp, ctypes.c_size_t]),
            "gp_bench_memory_at_end": (ctypes.c_int, [vp, ctypes.c_int, dp, ctypes.c_size_t]),
            "gp_bench_json": (ctypes.c_int, [vp, ctypes.c_bool, ctypes.POINTER(vp),
                                             ctypes.POINTER(ctypes.c_size_t)]),
            "gp_bench_text": (ctypes.c_int, [vp, ctypes.c_int, ctypes.POINTER(vp),
                                             ctypes.POINTER(ctypes.c_size_t)]),
            "gp_free": (None, [vp]),
            "gp_last_error": (cp, []),
        }
        for name, (res, args) in protos.items():
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = args
        _bound["done"] = True
    return lib


def _check(lib, rc, what):
    if rc < 0:
        msg = lib.gp_last_error()
        raise RuntimeError("gpuprof.bench: %s: %s" % (what, msg.decode("utf-8", "replace")
                                                      if msg else "error %d" % rc))
    return rc


def _doubles(values):
    if values is None:
        return None
    return (ctypes.c_double * len(values))(*[float(v) for v in values])


def _take_text(lib, fn, handle, arg):
    out, n = ctypes.c_void_p(), ctypes.c_size_t()
    _check(lib, fn(handle, arg, ctypes.byref(out), ctypes.byref(n)), "formatting")
    try:
        return ctypes.string_at(out, n.value).decode("utf-8")
    finally:
        lib.gp_free(out)


def summarize(series, tags=None, seed=0, kind="python", args=(), targets=()):
    """The ``gpuprof.bench/1`` document (a dict) and its text table, for series given as
    dicts: name, times_ns, and optionally rate_name, batch_size, warmup, warmup_times_ns,
    gpu_ns, peak_memory_bytes, memory_at_end_bytes (None: unknown). ``targets`` as ``gpuprof bench --target`` takes them
    ("p50<16.67ms", "fps>=60"): each series gets their status, the document
    ``targets_met``. Used by bench(); useful for samples taken elsewhere."""
    lib = _library()
    b = lib.gp_bench_new(kind.encode(), seed)
    if not b:
        raise MemoryError("gpuprof.bench: out of memory")
    try:
        for k, v in sorted((tags or {}).items()):
            _check(lib, lib.gp_bench_tag(b, str(k).encode(), str(v).encode()), "tag %r" % k)
        for a in args:
            _check(lib, lib.gp_bench_source_arg(b, str(a).encode()), "source")
        for t in targets:
            _check(lib, lib.gp_bench_target(b, str(t).encode()), "target")
        for s in series:
            times = list(s["times_ns"])
            gpu, mem = s.get("gpu_ns"), s.get("peak_memory_bytes")
            rate = s.get("rate_name")
            i = _check(lib, lib.gp_bench_add(
                b, s["name"].encode(), rate.encode() if rate else None,
                float(s.get("batch_size", 1)), int(s.get("warmup", 0)), _doubles(times),
                len(times), _doubles(gpu), _doubles(mem), None), "series %r" % s["name"])
            end = s.get("memory_at_end_bytes")
            if end is not None:
                _check(lib, lib.gp_bench_memory_at_end(b, i, _doubles(end), len(end)),
                       "memory at the end")
            warm = s.get("warmup_times_ns") or []
            if warm:
                _check(lib, lib.gp_bench_warmup_times(b, i, _doubles(warm), len(warm)),
                       "warm-up times")
        doc = json.loads(_take_text(lib, lib.gp_bench_json, b, False))
        table = _take_text(lib, lib.gp_bench_text, b, 0)
        return doc, table
    finally:
        lib.gp_bench_free(b)


def _cuda(device):
    """(torch, the CUDA device) to time on with events, or (None, None) for the host clock."""
    torch = sys.modules.get("torch")
    if device is not None and str(device) == "cpu":
        return None, None
    if torch is None and device is not None:
        try:
            import torch  # noqa: F811 (asked for a device: torch must be there)
        except ImportError as e:
            raise RuntimeError("gpuprof.bench: device %r asked for, but PyTorch cannot be "
                               "imported: %s" % (device, e))
    if torch is None or not torch.cuda.is_available():
        if device is not None:
            raise RuntimeError("gpuprof.bench: device %r asked for, but CUDA is not available"
                               % (device,))
        return None, None
    dev = torch.device(device if device is not None else "cuda")
    if dev.type != "cuda":
        raise ValueError("gpuprof.bench: device %r: expected None, 'cpu' or a CUDA device"
                         % (device,))
    if dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    return torch, dev


def bench(fn, *args, warmup=10, iters=50, batch_size=1, name=None, rate_name=None,
          device=None, memory=True, tags=None, seed=0, json_path=None, show=True, targets=(),
          **kwargs):
    """Runs ``fn(*args, **kwargs)`` ``warmup`` times, then ``iters`` timed times, and returns
    the ``gpuprof.bench/1`` document as a dict (one series). ``batch_size`` items per
    iteration give the rate (``rate_name``, e.g. "FPS" or "samples/s"). ``device``: None
    (CUDA events when torch is imported and CUDA is available), "cuda" or "cpu".
    ``json_path`` writes the document; ``show`` prints the table to stderr. ``targets``:
    as ``gpuprof bench --target`` ("p99<25ms"); ``doc["targets_met"]`` says if all are met."""
    if iters < 1:
        raise ValueError("gpuprof.bench: iters must be at least 1")
    if warmup < 0:
        raise ValueError("gpuprof.bench: warmup must not be negative")
    if batch_size <= 0:
        raise ValueError("gpuprof.bench: batch_size must be positive")
    _library()  # fail before running anything when the library is missing
    label = name or getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "fn")
    torch, dev = _cuda(device)
    warm_ns, times_ns, mem, mem_end = [], [], None, None
    if torch is not None:
        # the events go on dev's current stream; fn's work is assumed to go there too
        with torch.cuda.device(dev):
            torch.cuda.synchronize(dev)
            for _ in range(warmup):
                t0 = time.perf_counter_ns()
                fn(*args, **kwargs)
                torch.cuda.synchronize(dev)
                warm_ns.append(time.perf_counter_ns() - t0)
            mem = [] if memory else None
            mem_end = [] if memory else None
            pairs = []
            for _ in range(iters):
                if memory:
                    torch.cuda.reset_peak_memory_stats(dev)
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn(*args, **kwargs)
                end.record()
                pairs.append((start, end))
                if memory:
                    mem.append(torch.cuda.max_memory_allocated(dev))
                    mem_end.append(torch.cuda.memory_allocated(dev))
            torch.cuda.synchronize(dev)
            # elapsed_time is in ms (float, 0.5 us resolution)
            times_ns = [max(s.elapsed_time(e) * 1e6, 1.0) for s, e in pairs]
        clock = "cuda_event"
    else:
        for _ in range(warmup):
            t0 = time.perf_counter_ns()
            fn(*args, **kwargs)
            warm_ns.append(time.perf_counter_ns() - t0)
        for _ in range(iters):
            t0 = time.perf_counter_ns()
            fn(*args, **kwargs)
            times_ns.append(max(time.perf_counter_ns() - t0, 1))
        clock = "monotonic"
    all_tags = {"clock": clock}
    all_tags.update(tags or {})
    doc, table = summarize([{
        "name": label, "times_ns": times_ns, "rate_name": rate_name, "batch_size": batch_size,
        "warmup": warmup, "warmup_times_ns": [max(w, 1) for w in warm_ns],
        "peak_memory_bytes": mem, "memory_at_end_bytes": mem_end}], tags=all_tags, seed=seed, args=(label,), targets=targets)
    if json_path:
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, sort_keys=True)
            f.write("\n")
    if show:
        sys.stderr.write(table)
    return doc
