#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_hta_side.py: gpuprof against Holistic Trace Analysis, side by side in one run.

usage: HTA_SRC=DIR bench/bench_hta_side.py [--runs N] [--gpuprof BIN] [TRACE|DIR...]

Runs HTA itself from its source checkout (HTA_SRC: facebookresearch/HolisticTraceAnalysis, e.g.
`fetch` it; Debian's python3-pandas, -numpy, -networkx, -plotly, -pydot, -psutil; nothing is
installed by this script) and `gpuprof analyze --json --compat hta -o /dev/null` on every trace
given (default: every *.json.gz under ../shared/traces), interleaved (HTA, gpuprof, HTA, ...: a
noisy machine penalises both alike), --runs times each (default 3), and prints the medians:

  hta-work   HTA's load + the seven analyses gpuprof also computes (temporal, idle-time and
             kernel breakdowns, comm/comp overlap, launch stats, queue-length and memory-bandwidth
             summaries), timed inside its process: no interpreter start-up, no imports
  hta+cp     hta-work plus critical_path_analysis() and summary() of every ProfilerStep HTA keeps
  hta-proc   HTA's whole process (start-up and imports too: what its user waits for), with the
             critical path
  gpuprof    gpuprof's whole process (exec to exit; it always computes the critical path); a
             short run is repeated until ~0.2 s and divided, beyond the clock's resolution

and the ratios work = hta-work / gpuprof (the strict one: HTA's start-up not counted, gpuprof's
counted), cp = hta+cp / gpuprof and proc = hta-proc / gpuprof, with the lowest of each over the
traces. HTA's errors on a trace (analyses it raises on) are listed: it is timed up to where it
stopped, as its user would wait.

A child mode, `bench_hta_side.py --one HTA_SRC TRACE`, is one timed HTA run (JSON on stdout).
Python is /usr/bin/python3 where the running one lacks pandas (PYTHON overrides).
"""
import contextlib
import glob
import gzip
import io
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def run(src, trace, want_cp):
    """The timed HTA run of TRACE: the output object."""
    sys.path.insert(0, os.path.abspath(src))
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    from hta.trace_analysis import TraceAnalysis  # noqa: E402 (after the path is set)

    out = {"trace": os.path.basename(trace), "errors": {}, "load_s": None, "analyses_s": None,
           "critical_path_s": None, "critical_path_steps": None, "total_s": None}
    quiet = contextlib.redirect_stdout(io.StringIO())  # HTA prints its summaries
    with tempfile.TemporaryDirectory(prefix="hta-side.") as d, quiet:
        os.symlink(os.path.abspath(trace), os.path.join(d, os.path.basename(trace)))
        t0 = time.perf_counter()
        try:
            ta = TraceAnalysis(trace_dir=d)
        except Exception as e:  # HTA could not load it: the time until it gave up
            out["errors"]["load"] = "%s: %s" % (type(e).__name__, e)
            out["load_s"] = out["total_s"] = time.perf_counter() - t0
            return out
        t1 = time.perf_counter()
        ranks = sorted(ta.t.traces.keys())
        analyses = [
            ("temporal_breakdown", lambda: ta.get_temporal_breakdown(visualize=False)),
            ("idle_time_breakdown", lambda: ta.get_idle_time_breakdown(ranks=ranks, visualize=False)),
            ("gpu_kernel_breakdown", lambda: ta.get_gpu_kernel_breakdown(visualize=False)),
            ("comm_comp_overlap", lambda: ta.get_comm_comp_overlap(visualize=False)),
            ("cuda_kernel_launch_stats",
             lambda: ta.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)),
            ("queue_length_summary", lambda: ta.get_queue_length_summary(ranks=ranks)),
            ("memory_bw_summary", lambda: ta.get_memory_bw_summary(ranks=ranks)),
        ]
        for name, fn in analyses:
            try:
                fn()
            except Exception as e:
                out["errors"][name] = "%s: %s" % (type(e).__name__, e)
        t2 = time.perf_counter()
        if want_cp:
            out["critical_path_steps"] = 0
            for r in ranks:
                try:
                    df = ta.t.get_trace(r)
                    names = ta.t.symbol_table.get_sym_table()
                    n = sum(1 for i in df["name"].unique()
                            if 0 <= i < len(names) and names[i].startswith("ProfilerStep#"))
                except Exception as e:
                    out["errors"]["critical_path_steps"] = "%s: %s" % (type(e).__name__, e)
                    n = 0
                for k in range(n):
                    try:
                        cp, ok = ta.critical_path_analysis(rank=r, annotation="ProfilerStep",
                                                           instance_id=k)
                        if ok:
                            cp.summary()
                            out["critical_path_steps"] += 1
                    except Exception as e:
                        out["errors"]["critical_path_analysis"] = "%s: %s" % (type(e).__name__, e)
            out["critical_path_s"] = time.perf_counter() - t2
    out["load_s"] = t1 - t0
    out["analyses_s"] = t2 - t1
    out["total_s"] = out["load_s"] + out["analyses_s"] + (out["critical_path_s"] or 0)
    return out


def python_with_pandas():
    """An interpreter that has HTA's dependencies: PYTHON, this one, or Debian's."""
    for py in (os.environ.get("PYTHON"), sys.executable, "/usr/bin/python3"):
        if py and subprocess.run([py, "-c", "import pandas, networkx, plotly"],
                                 capture_output=True).returncode == 0:
            return py
    sys.exit("bench_hta_side.py: no Python with pandas, networkx and plotly (Debian: "
             "python3-pandas python3-networkx python3-plotly python3-pydot python3-psutil)")


def hta_once(py, src, trace):
    """One HTA process: its own timings and the process's wall time."""
    t0 = time.perf_counter()
    p = subprocess.run([py, os.path.abspath(__file__), "--one", src, trace],
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench_hta_side.py: HTA failed on %s:\n%s" % (trace, p.stderr[-2000:]))
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["proc_s"] = wall
    return out


def gpuprof_once(gp, trace, rep):
    """The wall time of one `gpuprof analyze` process: REP in a row from one shell (whose own
    start-up is spread over them; Python's fork costs more than gpuprof's start), the mean."""
    loop = 'i=0; while [ $i -lt "$1" ]; do "$2" analyze --json --compat hta -q -o /dev/null "$3" || exit 1; i=$((i + 1)); done'
    t0 = time.perf_counter()
    p = subprocess.run(["sh", "-c", loop, "sh", str(rep), gp, trace], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench_hta_side.py: gpuprof failed on %s: %s" % (trace, p.stderr.decode()[-500:]))
    return wall / rep


def traces_of(args):
    out = []
    for a in args or [os.path.join(HERE, "..", "..", "shared", "traces")]:
        if os.path.isdir(a):
            out += sorted(glob.glob(os.path.join(a, "**", "*.json.gz"), recursive=True))
        else:
            out.append(a)
    return out


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--one"]:
        if len(argv) != 3:
            sys.exit("usage: bench_hta_side.py --one HTA_SRC TRACE")
        print(json.dumps(run(argv[1], argv[2], True)))
        return
    runs, gp, paths = 3, os.path.join(HERE, "..", "build", "gpuprof"), []
    while argv:
        a = argv.pop(0)
        if a == "--runs" and argv:
            runs = max(1, int(argv.pop(0)))
        elif a == "--gpuprof" and argv:
            gp = argv.pop(0)
        elif a in ("-h", "--help"):
            print(__doc__)
            return
        elif a.startswith("-"):
            sys.exit("bench_hta_side.py: unknown option " + a)
        else:
            paths.append(a)
    src = os.environ.get("HTA_SRC")
    if not src or not os.path.isfile(os.path.join(src, "hta", "trace_analysis.py")):
        sys.exit("bench_hta_side.py: set HTA_SRC to a checkout of "
                 "facebookresearch/HolisticTraceAnalysis (its hta/ folder)")
    gp = shutil.which(gp) or gp
    if not os.access(gp, os.X_OK):
        sys.exit("bench_hta_side.py: no gpuprof at " + gp + " (--gpuprof BIN)")
    py = python_with_pandas()
    traces = traces_of(paths)
    if not traces:
        sys.exit("bench_hta_side.py: no traces")
    print("# %s, %d runs each, interleaved; HTA %s; gpuprof %s" %
          (time.strftime("%Y-%m-%d %H:%M"), runs, os.path.abspath(src), os.path.abspath(gp)))
    fmt = "%-58s %7s %9s %9s %9s %9s %8s %8s %8s"
    print(fmt % ("trace", "MB", "hta-work", "hta+cp", "hta-proc", "gpuprof", "work", "cp", "proc"))
    low = {"work": None, "cp": None, "proc": None}
    errors = []
    for tr in traces:
        mb = os.path.getsize(tr) / 1e6
        try:
            with gzip.open(tr, "rb") as f:
                mb = sum(len(b) for b in iter(lambda: f.read(1 << 20), b"")) / 1e6
        except OSError:
            pass
        t0 = time.perf_counter()
        gpuprof_once(gp, tr, 1)
        rep = max(1, min(400, int(0.3 / max(time.perf_counter() - t0, 1e-4))))
        h, g = [], []
        for _ in range(runs):
            h.append(hta_once(py, src, tr))
            g.append(gpuprof_once(gp, tr, rep))
        med = lambda k: statistics.median(x[k] for x in h)
        work = med("load_s") + med("analyses_s")
        hcp = statistics.median(x["total_s"] for x in h)
        proc = med("proc_s")
        gpt = statistics.median(g)
        r = {"work": work / gpt, "cp": hcp / gpt, "proc": proc / gpt}
        for k in low:
            if low[k] is None or r[k] < low[k][0]:
                low[k] = (r[k], os.path.basename(tr))
        print(fmt % (os.path.basename(tr)[:58], "%.2f" % mb, "%.3f" % work, "%.3f" % hcp,
                     "%.3f" % proc, "%.4f" % gpt, "%.0fx" % r["work"], "%.0fx" % r["cp"],
                     "%.0fx" % r["proc"]), flush=True)
        if h[-1]["errors"]:
            errors.append((os.path.basename(tr), h[-1]["errors"]))
    for k, what in (("work", "HTA load + 7 analyses in process"),
                    ("cp", "the same + critical path of every step"),
                    ("proc", "HTA's whole process, critical path included")):
        print("lowest %-4s %6.0fx  (%s; %s)" % (k, low[k][0], low[k][1], what))
    for name, e in errors:
        for k, v in sorted(e.items()):
            print("# HTA error on %s: %s: %s" % (name, k, v[:160]))


if __name__ == "__main__":
    main()
