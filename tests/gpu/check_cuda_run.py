#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_cuda_run.py - compares a `gpuprof run` capture of tests/gpu/cuda_app.cu
with what the program says it launched (its JSON summary). Used by
tests/e2e/t0910-gpu-run-cuda.sh; see there for what is checked and why.

usage: check_cuda_run.py GPUPROF RUN_DIR APP_JSON [PLAIN_JSON]
  GPUPROF     the gpuprof binary (analyze, export)
  RUN_DIR     the directory `gpuprof run -o` wrote
  APP_JSON    cuda_app's stdout under gpuprof run
  PLAIN_JSON  cuda_app's stdout without gpuprof (the same launches expected)
Exit 0 when every check passes, 1 otherwise (each failure is listed).
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpucheck import (analyze, captures, check, finish, gpuprof, median,  # noqa: E402
                      range_table, within)

TOL = 0.02  # kernel duration vs cudaEvent timing, relative


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    exe, run_dir, app_path = argv[:3]
    app = json.load(open(app_path))
    pid, child = app["pid"], app["child_pid"]

    # --- the program itself, and gpuprof run's view of it
    print(f"cuda_app pid {pid} on {app['device']}, child {child} exited {app['child_status']}")
    check(app["child_status"] == 0, f"the forked child exited {app['child_status']}")
    if len(argv) == 4:
        plain = json.load(open(argv[3]))
        for k in ("kernels", "stream_kernels", "copies", "memsets", "ranges", "exit_code",
                  "child_status", "timed_target_ns"):
            check(plain.get(k) == app.get(k),
                  f"'{k}' differs with and without gpuprof: {plain.get(k)} vs {app.get(k)}")
    run = json.load(open(os.path.join(run_dir, "run.json")))
    check(run.get("state") == "exited" and run.get("exit_code") == app["exit_code"],
          f"run.json: state {run.get('state')} exit_code {run.get('exit_code')}, "
          f"expected exited {app['exit_code']}")
    check(run.get("pid") == pid, f"run.json pid {run.get('pid')} is not cuda_app's {pid}")
    inj = run.get("injector") or {}
    check(inj.get("path") and inj.get("cuda"), f"run.json: no CUDA injection: {inj}")

    # --- capture files: the parent's is complete, the fork child left none with kernels
    caps = captures(run_dir)
    mine = [c for c in caps if (c["meta"] or {}).get("pid") == pid]
    if not check(len(mine) == 1, f"{len(mine)} capture files of pid {pid}, expected 1"):
        return finish()
    cap = mine[0]
    end = cap["end"] or {}
    check(end.get("reason") == "exit", f"the capture's END reason is {end.get('reason')}, "
          "expected exit (no END: the tracer did not finish)")
    check((end.get("cupti_version") or 0) > 0,
          "CUPTI was not loaded (END cupti_version 0): see the warnings above; "
          "GPUPROF_CUPTI_LIBRARY can name libcupti.so.13")
    check(not cap["cut"], "the parent's capture is cut inside a record")
    check(cap["dropped"]["cupti_records"] == 0 and cap["dropped"]["cupti_buffers"] == 0,
          f"records dropped: {cap['dropped']}")
    check(not any((c["meta"] or {}).get("pid") == child for c in caps),
          f"the forked child (pid {child}) wrote a capture file")
    with_kernels = [c["path"] for c in caps if c["kernels"] > 0]
    check(with_kernels == [cap["path"]],
          f"capture files with kernels: {with_kernels}, expected only {cap['path']}")

    rep = analyze(exe, cap["path"])
    r = rep["ranks"][0]
    check(r["overview"].get("has_gpu") is True, "the report says has_gpu false")

    # --- kernel names and counts: exactly what was launched (extern "C": unmangled names)
    got = {k["name"]: k["count"] for k in r["kernels"]}
    print(f"kernels launched {app['kernels']}; captured {got}")
    check(got == app["kernels"], f"kernel names/counts {got} != launched {app['kernels']}")

    # per stream: the kernel counts of the streams (default, s1, s2) as a multiset
    sk = sorted(s["kernels"] for s in r["overview"]["streams"] if s["kernels"])
    want = sorted(v for v in app["stream_kernels"].values() if v)
    print(f"kernels per stream: captured {sk}, launched {want} ({app['stream_kernels']})")
    check(sk == want, f"kernels per stream {sk} != launched {want}")

    # --- copies and memsets: bytes exact per direction; count at least the API calls
    # (CUPTI writes one record per call for these sizes; more would mean a split copy)
    mem = {}
    for m in r["memory_ops"]:
        key = "memset" if m["kind"] == "memset" else m.get("direction")
        e = mem.setdefault(key, {"count": 0, "bytes": 0})
        e["count"] += m["count"]
        e["bytes"] += m["total_bytes"] or 0
    print(f"memory ops captured {mem}; launched copies {app['copies']} memsets {app['memsets']}")
    for d, w in list(app["copies"].items()) + [("memset", app["memsets"])]:
        g = mem.get(d, {"count": 0, "bytes": 0})
        check(g["bytes"] == w["bytes"], f"{d}: {g['bytes']} bytes captured, {w['bytes']} copied")
        check(g["count"] >= w["count"], f"{d}: {g['count']} ops captured, {w['count']} launched")
        if g["count"] != w["count"]:
            print(f"  note: {d}: {g['count']} records for {w['count']} calls")

    # --- durations: CUPTI kernel time vs cudaEvent pairs around each gp_spin, within 2 %
    name, ev = app["timed_kernel"], app["timed_ns"]
    k = next((x for x in r["kernels"] if x["name"] == name), None)
    if check(k is not None, f"no {name} in the kernel table"):
        stats = {"avg_ns": sum(ev) / len(ev), "med_ns": median(ev), "min_ns": min(ev),
                 "max_ns": max(ev)}
        check(k["count"] == len(ev), f"{name}: {k['count']} captured, {len(ev)} timed")
        for key, w in stats.items():
            rel = (k[key] - w) / w
            print(f"{name} {key}: CUPTI {k[key]:.0f} ns, cudaEvent {w:.0f} ns ({rel:+.3%})")
            check(within(k[key], w, TOL), f"{name} {key}: CUPTI {k[key]} vs cudaEvent {w:.0f}"
                  f" ({rel:+.2%}, tolerance {TOL:.0%})")
        for t, e in zip(app["timed_target_ns"], ev):
            check(e >= t * 0.99, f"an event-timed gp_spin ({e} ns) is shorter than it spun ({t})")
        per_instance(exe, cap["path"], name, ev)

    # --- NVTX: range counts and the GPU ops projected onto each range
    rows, table = range_table(r)
    print(f"NVTX ranges from the report's '{table}' table")
    for rn, w in app["ranges"].items():
        g = rows.get(rn)
        if not check(g is not None, f"range {rn} missing from '{table}' ({sorted(rows)})"):
            continue
        print(f"  {rn}: count {g['count']} (launched {w['count']}), gpu_ops {g.get('gpu_ops')} "
              f"(launched {w['gpu_ops']}: {w['kernels']} kernels + copies/memsets)")
        check(g["count"] == w["count"], f"range {rn}: count {g['count']} != {w['count']}")
        check(g.get("gpu_ops") == w["gpu_ops"],
              f"range {rn}: gpu_ops {g.get('gpu_ops')} != {w['gpu_ops']} launched inside it")
    check("child" not in rows, "the fork child's range 'child' was captured")
    if table != "ranges":
        print("  note: the report has no 'ranges' table yet; 'annotations' was used")
    return finish()


def per_instance(exe, cap_path, name, ev):
    """Each gp_spin's own duration, from `gpuprof export --format chrome` when this
    gpuprof has it (X events named NAME, ts/dur in µs), against its event pair."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "trace.json")
        rc, _, err = gpuprof(exe, "export", cap_path, "--format", "chrome", "-o", out,
                             check_rc=False)
        if rc != 0 or not os.path.exists(out):
            print(f"note: no per-instance check: 'gpuprof export --format chrome' exited {rc}"
                  f" ({err.strip()}); compared the kernel table's avg/med/min/max instead")
            return
        t = json.load(open(out))
    evs = t["traceEvents"] if isinstance(t, dict) else t
    xs = sorted((e for e in evs if e.get("ph") == "X" and e.get("name") == name),
                key=lambda e: float(e["ts"]))
    if not check(len(xs) == len(ev), f"chrome export: {len(xs)} '{name}' X events, "
                 f"expected {len(ev)}"):
        return
    worst = 0.0
    for i, (x, e) in enumerate(zip(xs, ev)):
        dur = round(float(x["dur"]) * 1000)
        rel = (dur - e) / e
        worst = max(worst, abs(rel))
        check(within(dur, e, TOL), f"{name} #{i}: CUPTI {dur} ns vs cudaEvent {e} ns "
              f"({rel:+.2%}, tolerance {TOL:.0%})")
    print(f"per instance (chrome export): {len(xs)} {name}, worst difference {worst:.3%}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
