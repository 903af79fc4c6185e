# SPDX-License-Identifier: MIT
"""gpucheck.py - helpers shared by the checkers of the GPU tests
(check_cuda_run.py, check_torch_run.py): reading a `gpuprof run` directory,
its capture files (docs/capture-format.md) and `gpuprof analyze --json`
reports (docs/report-schema.md). Standard library only."""
import glob
import json
import os
import struct
import subprocess
import sys

MAGIC = b"GPCAPT\r\n"
T_META, T_END, T_WARN, T_KERNEL, T_DROPPED = 1, 2, 3, 5, 14

FAILS = []


def check(cond, msg):
    """Records a failed check (all are reported at the end); returns cond."""
    if not cond:
        FAILS.append(msg)
        print("  FAIL: " + msg)
    return cond


def finish(nchecks_hint=""):
    if FAILS:
        print(f"{len(FAILS)} check(s) failed:", file=sys.stderr)
        for f in FAILS:
            print("  " + f, file=sys.stderr)
        sys.exit(1)
    print("all checks passed" + (f" ({nchecks_hint})" if nchecks_hint else ""))


def read_capture(path):
    """The records of a capture file that the checks use: META and END (dicts
    or None), WARN texts, DROPPED totals, the number of KERNEL records, and
    whether the file was cut inside a record."""
    b = open(path, "rb").read()
    out = {"path": path, "meta": None, "end": None, "warnings": [], "kernels": 0,
           "dropped": {"cupti_records": 0, "cupti_buffers": 0, "nvtx_records": 0,
                       "write_bytes": 0}, "cut": False}
    if b[:8] != MAGIC:
        raise ValueError(f"{path}: not a capture file (magic {b[:8]!r})")
    o = struct.unpack("<I", b[12:16])[0]
    while o + 8 <= len(b):
        t, sz = struct.unpack("<II", b[o:o + 8])
        if o + 8 + sz > len(b):
            out["cut"] = True
            break
        p = b[o + 8:o + 8 + sz]
        if t == T_META:
            out["meta"] = json.loads(p)
        elif t == T_END:
            out["end"] = json.loads(p)
        elif t == T_WARN and sz >= 16:
            code = struct.unpack("<I", p[8:12])[0]
            out["warnings"].append(f"[{code}] " + p[16:].decode("utf-8", "replace").rstrip("\0"))
        elif t == T_KERNEL:
            out["kernels"] += 1
        elif t == T_DROPPED and sz >= 40:
            v = struct.unpack("<qQQQQ", p[:40])
            for k, x in zip(("cupti_records", "cupti_buffers", "nvtx_records", "write_bytes"),
                            v[1:]):
                out["dropped"][k] += x
        o += 8 + sz + (8 - sz % 8) % 8
    return out


def captures(run_dir):
    """The capture files of a run directory, each read by read_capture(), with a summary
    line printed for each."""
    files = sorted(glob.glob(os.path.join(run_dir, "capture-*.gpcap")))
    caps = []
    for f in files:
        c = read_capture(f)
        m, e = c["meta"] or {}, c["end"] or {}
        print(f"capture {os.path.basename(f)}: pid {m.get('pid')} ppid {m.get('ppid')}, "
              f"{c['kernels']} kernel records, END {e.get('reason', 'none')} "
              f"(cupti_version {e.get('cupti_version')}), dropped {c['dropped']}"
              + (", CUT inside a record" if c["cut"] else ""))
        for w in c["warnings"]:
            print(f"  warning: {w}")
        caps.append(c)
    return caps


def gpuprof(exe, *args, check_rc=True):
    """Runs gpuprof; returns (rc, stdout, stderr)."""
    p = subprocess.run([exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check_rc and p.returncode != 0:
        raise SystemExit(f"'gpuprof {' '.join(args)}' exited {p.returncode}: {p.stderr.strip()}")
    return p.returncode, p.stdout, p.stderr


def analyze(exe, path):
    """`gpuprof analyze --json PATH` as a dict."""
    _, out, err = gpuprof(exe, "analyze", "--json", "--top", "0", path)
    if err.strip():
        print("  analyze says: " + err.strip().replace("\n", "\n  analyze says: "))
    return json.loads(out)


def range_table(rank):
    """The per-name NVTX range rows: `ranges` (nsys's columns, domain "" for the default
    domain) when the report has it, else `annotations`. Returns (rows by name, table name)."""
    if isinstance(rank.get("ranges"), list):
        rows = {}
        for r in rank["ranges"]:
            if r.get("domain") in ("", None):
                rows[r["name"]] = r
        return rows, "ranges"
    return {r["name"]: r for r in rank.get("annotations") or []}, "annotations"


def within(got, want, rel):
    return want != 0 and abs(got - want) <= rel * abs(want)


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
