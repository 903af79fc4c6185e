#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_torch_run.py - compares a `gpuprof run` capture of tests/gpu/torch_loop.py
with what the loop says it did (its JSON line). Used by
tests/e2e/t0911-gpu-run-torch.sh; see there for what is checked.

usage: check_torch_run.py GPUPROF RUN_DIR LOOP_JSON
Exit 0 when every check passes, 1 otherwise (each failure is listed).
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpucheck import analyze, captures, check, finish, range_table  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, run_dir, loop_path = argv
    loop = json.loads(open(loop_path).read().strip().splitlines()[-1])
    total, layers = loop["total_steps"], loop["layers"]
    print(f"torch_loop: {loop['mode']}, {total} steps, {layers} layers, batch {loop['batch']},"
          f" {loop['syncs']} syncs, torch {loop['torch']} on {loop['device']}")

    run = json.load(open(os.path.join(run_dir, "run.json")))
    check(run.get("state") == "exited" and run.get("exit_code") == loop["exit_code"],
          f"run.json: state {run.get('state')} exit_code {run.get('exit_code')}, "
          f"expected exited {loop['exit_code']}")
    pid = run.get("pid")
    caps = captures(run_dir)
    mine = [c for c in caps if (c["meta"] or {}).get("pid") == pid]
    if not check(len(mine) == 1, f"{len(mine)} capture files of pid {pid}, expected 1"):
        return finish()
    cap = mine[0]
    end = cap["end"] or {}
    check(end.get("reason") == "exit", f"END reason {end.get('reason')}, expected exit")
    check((end.get("cupti_version") or 0) > 0,
          "CUPTI was not loaded (END cupti_version 0): see the warnings above")
    check(cap["dropped"]["cupti_records"] == 0 and cap["dropped"]["cupti_buffers"] == 0 and
          cap["dropped"]["nvtx_records"] == 0, f"records dropped: {cap['dropped']}")
    with_kernels = [c["path"] for c in caps if c["kernels"] > 0]
    check(with_kernels == [cap["path"]], f"capture files with kernels: {with_kernels}")

    r = analyze(exe, cap["path"])["ranks"][0]
    nk = sum(k["count"] for k in r["kernels"])
    top = ", ".join(f"{k['count']}x {k['name'][:60]}" for k in r["kernels"][:5])
    print(f"kernels: {nk} in {len(r['kernels'])} names; top by time: {top}")
    # each step: >= 1 kernel per Linear and per ReLU, and >= 1 for the sum
    check(nk >= total * (2 * layers + 1), f"{nk} kernels captured, expected >= "
          f"{total * (2 * layers + 1)} ({total} steps x ({layers} Linear + {layers} ReLU + sum))")

    rows, table = range_table(r)
    print(f"NVTX ranges from the report's '{table}' table: " + ", ".join(
        f"{n}: count {x['count']} gpu_ops {x.get('gpu_ops')}" for n, x in sorted(rows.items())))
    st, fw = rows.get("step"), rows.get("forward")
    if check(st is not None and fw is not None, f"no 'step' or 'forward' range: {sorted(rows)}"):
        check(st["count"] == total, f"'step' count {st['count']} != {total} steps")
        check(fw["count"] == total, f"'forward' count {fw['count']} != {total} steps")
        check((fw.get("gpu_ops") or 0) >= total * 2 * layers,
              f"'forward' gpu_ops {fw.get('gpu_ops')}, expected >= {total * 2 * layers}")
        check((st.get("gpu_ops") or 0) >= (fw.get("gpu_ops") or 0) + total,
              f"'step' gpu_ops {st.get('gpu_ops')} should exceed forward's "
              f"{fw.get('gpu_ops')} by >= {total} (the sum outside 'forward')")
        check((fw.get("gpu_ops") or 0) <= nk, "'forward' projects more ops than were captured")
    api = {a["name"]: a["count"] for a in r["api_calls"]}
    print("API calls: " + ", ".join(f"{n} {c}" for n, c in sorted(api.items(), key=lambda x: -x[1])[:8]))
    check(api.get("cudaDeviceSynchronize", 0) >= loop["syncs"],
          f"cudaDeviceSynchronize {api.get('cudaDeviceSynchronize', 0)} < {loop['syncs']} syncs")
    if table != "ranges":
        print("note: the report has no 'ranges' table yet; 'annotations' was used")
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
