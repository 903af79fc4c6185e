#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tracediff.py - an independent kernel and operator diff of two Kineto traces,
checked against `gpuprof compare --json` (tests/e2e/t0410-compare-traces.sh).

    tracediff.py BASE.json[.gz] NEW.json[.gz] COMPARE.json...

Reads the raw traces with the standard library only (gzip, json, decimal) and
computes, per name, the count and total duration of
  - kernels:   complete events ("ph": "X") of category "kernel" or "Kernel"
               (memcpy and memset are not kernels, as in `gpuprof analyze`);
  - operators: complete events of category "cpu_op" or "Operator", with their
               inclusive durations (an operator nested in one of the same name
               counts in both, as analyze's cpu_ops total_ns does).
Durations are read exactly (decimal.Decimal, microseconds to integer
nanoseconds), never through a float. Then it checks every row of each
compare result's "kernels" and "operators" tables (of its first group, the
traces having one rank each): the counts, the totals,
the added and removed sets, the status by the documented rule (per-call
time moved by at least the table's threshold_pct), the order (|delta total|
descending, then name) and the table totals; and it prints the numbers it
compared. Exit status 0 when everything matches, 1 otherwise.
"""
import collections
import decimal
import gzip
import json
import sys

KERNEL_CATS = ("kernel", "Kernel")
OPERATOR_CATS = ("cpu_op", "Operator")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def ns(dur):
    """microseconds (int or Decimal) to integer nanoseconds, exactly"""
    v = decimal.Decimal(dur) * 1000
    if v != v.to_integral_value():
        raise SystemExit("a duration with sub-nanosecond digits: %s" % dur)
    return int(v)


def tables(path):
    kernels = collections.defaultdict(lambda: [0, 0])
    operators = collections.defaultdict(lambda: [0, 0])
    for e in load(path):
        if e.get("ph") != "X" or "dur" not in e:
            continue
        cat = e.get("cat")
        if cat in KERNEL_CATS:
            t = kernels
        elif cat in OPERATOR_CATS:
            t = operators
        else:
            continue
        t[e["name"]][0] += 1
        t[e["name"]][1] += ns(e["dur"])
    return kernels, operators


def expected_rows(base, new, threshold_pct):
    rows = []
    for name in set(base) | set(new):
        bc, bt = base.get(name, (0, 0))
        nc, nt = new.get(name, (0, 0))
        if bc == 0:
            status = "added"
        elif nc == 0:
            status = "removed"
        else:
            ab, an = bt / bc, nt / nc
            if ab == 0:
                status = "slower" if an > 0 else "same"
            else:
                d = 100 * (an - ab) / ab
                status = ("slower" if d >= threshold_pct else
                          "faster" if d <= -threshold_pct else "same")
        rows.append({"name": name, "status": status, "base_count": bc, "new_count": nc,
                     "base_total_ns": bt, "new_total_ns": nt, "delta_total_ns": nt - bt})
    # |delta total| descending, then name (bytewise; the same as code points for UTF-8)
    rows.sort(key=lambda r: (-abs(r["delta_total_ns"]), r["name"].encode("utf-8")))
    return rows


def check_table(label, got, base, new, errors):
    thr = got["threshold_pct"]
    want = expected_rows(base, new, thr)
    rows = got["rows"]
    if len(rows) != len(want):
        errors.append("%s: %d rows, expected %d" % (label, len(rows), len(want)))
    by_name = {r["name"]: r for r in rows}
    for w in want:
        r = by_name.get(w["name"])
        if r is None:
            errors.append("%s: no row for %r" % (label, w["name"]))
            continue
        for k, v in w.items():
            if r.get(k) != v:
                errors.append("%s: %r: %s is %r, expected %r" % (label, w["name"], k, r.get(k), v))
    for i, (r, w) in enumerate(zip(rows, want)):
        if r["name"] != w["name"]:
            errors.append("%s: row %d is %r, expected %r" % (label, i, r["name"], w["name"]))
            break
    added = [w for w in want if w["status"] == "added"]
    removed = [w for w in want if w["status"] == "removed"]
    totals = {
        "base_names": len(base), "new_names": len(new),
        "base_total_ns": sum(t for _, t in base.values()),
        "new_total_ns": sum(t for _, t in new.values()),
        "slower": sum(w["status"] == "slower" for w in want),
        "faster": sum(w["status"] == "faster" for w in want),
        "same": sum(w["status"] == "same" for w in want),
    }
    totals["delta_total_ns"] = totals["new_total_ns"] - totals["base_total_ns"]
    for k, v in totals.items():
        if got.get(k) != v:
            errors.append("%s: %s is %r, expected %r" % (label, k, got.get(k), v))
    if got["added"] != {"names": len(added), "total_ns": sum(w["new_total_ns"] for w in added)}:
        errors.append("%s: added is %r" % (label, got["added"]))
    if got["removed"] != {"names": len(removed),
                          "total_ns": sum(w["base_total_ns"] for w in removed)}:
        errors.append("%s: removed is %r" % (label, got["removed"]))
    if not got.get("complete"):
        errors.append("%s: not complete" % label)

    print("%s: %d names in base, %d in new; total %d -> %d ns; %d added (%d ns), "
          "%d removed (%d ns); %d slower, %d faster, %d same (threshold %g %%)" % (
              label, totals["base_names"], totals["new_names"], totals["base_total_ns"],
              totals["new_total_ns"], len(added), sum(w["new_total_ns"] for w in added),
              len(removed), sum(w["base_total_ns"] for w in removed), totals["slower"],
              totals["faster"], totals["same"], thr))
    for w in want[:5]:
        print("  %-8s %5d -> %-5d %12d -> %-12d %+13d ns  %s" % (
            w["status"], w["base_count"], w["new_count"], w["base_total_ns"],
            w["new_total_ns"], w["delta_total_ns"], w["name"][:60]))


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    bk, bo = tables(argv[1])
    nk, no = tables(argv[2])
    errors = []
    for path in argv[3:]:
        with open(path, encoding="utf-8") as f:
            g = json.load(f)["groups"][0]
        print("== %s" % path)
        check_table("kernels", g["kernels"], bk, nk, errors)
        check_table("operators", g["operators"], bo, no, errors)
    for e in errors[:30]:
        print("MISMATCH: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
