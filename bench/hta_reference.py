# SPDX-License-Identifier: MIT
"""The recorded HTA process wall times of ../shared/traces (traces/reference/<name>.json).

HTA cannot be installed here (no PyPI); the bench scripts compare with these recorded runs.
"""
import glob
import json
import os


def _wall(ref_path):
    try:
        with open(ref_path) as f:
            d = json.load(f)
        m, s = d["hta_process"]["wall"].split(":")
        return d.get("file"), int(m) * 60 + float(s)
    except (OSError, KeyError, ValueError, TypeError, AttributeError):
        return None, None


def recorded(ref_dir, trace_path):
    """Seconds of the recorded HTA process for the trace at trace_path, or None."""
    name = os.path.basename(trace_path)
    for ext in (".gz", ".json"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return _wall(os.path.join(ref_dir, name + ".json"))[1]


def all_recorded(traces_dir):
    """(trace path relative to traces_dir, seconds) for every trace with a recorded HTA run."""
    out = []
    for ref in sorted(glob.glob(os.path.join(traces_dir, "reference", "*.json"))):
        rel, wall = _wall(ref)
        if rel and wall is not None and os.path.exists(os.path.join(traces_dir, rel)):
            out.append((rel, wall))
    return out
