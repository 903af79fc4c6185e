#!/bin/bash
# SPDX-License-Identifier: MIT
# t0721-memsnap-compare.sh - `gpuprof compare` of two PyTorch memory snapshots
# (tests/memsnap_gen.py): the frames that grew, largest growth first, with the bytes each
# side's own analysis gives; a peak grown past the threshold is a regression (exit 3), one
# shrunk past it an improvement (exit 0), the same snapshot "same"; --threshold and
# --threshold-for peak_memory move the line; --json is a gpuprof.compare/1 document;
# a snapshot against a trace is an error.
. "$(dirname "$0")/lib.sh"
need python3
GEN="$GP_SRC_DIR/tests/memsnap_gen.py"

python3 "$GEN" "$TMP/a.pickle" --proto 4
python3 "$GEN" "$TMP/b.pickle" --proto 5 --variant grown
expect_rc 0 analyze --json "$TMP/a.pickle"
cp "$OUT" "$TMP/a.json"
expect_rc 0 analyze --json "$TMP/b.pickle"
cp "$OUT" "$TMP/b.json"

expect_rc 3 compare --json "$TMP/a.pickle" "$TMP/b.pickle"
json_ok "$OUT"
python3 - "$OUT" "$TMP/a.json" "$TMP/b.json" <<'PY' || fail "the comparison differs from the two analyses"
import json, sys
res, a, b = (json.load(open(p)) for p in sys.argv[1:])
assert res["schema"] == "gpuprof.compare/1" and res["kind"] == "memory snapshot"
assert res["verdict"] == "regression" and res["regression"] is True
for d in res["memsnap"]:
    da = next(x for x in a["devices"] if x["device"] == d["device"])
    db = next(x for x in b["devices"] if x["device"] == d["device"])
    assert d["base_peak_bytes"] == da["peak"]["allocated_bytes"]
    assert d["new_peak_bytes"] == db["peak"]["allocated_bytes"]
    assert d["verdict"] == "regression", d
    fa = {f["frame"]: f["bytes"] for f in da["peak"]["frames"]}
    fb = {f["frame"]: f["bytes"] for f in db["peak"]["frames"]}
    rows = [(f["frame"], f["base_bytes"], f["new_bytes"], f["change_bytes"]) for f in d["frames"]]
    want = sorted(((k, fa.get(k, 0), fb.get(k, 0), fb.get(k, 0) - fa.get(k, 0)) for k in set(fa) | set(fb)),
                  key=lambda r: (-r[3], r[0]))
    assert rows == want, (rows, want)
    assert rows[0][0] == "/home/u/model.py:40:forward" and rows[0][3] > 0
PY
expect_rc 3 compare "$TMP/a.pickle" "$TMP/b.pickle"
out_has "regression: peak allocated memory +63.6% on GPU 0 (22.0 MiB -> 36.0 MiB); most growth: /home/u/model.py:40:forward +11.0 MiB"
out_has "== GPU 1: peak 33.0 MiB -> 47.0 MiB"
# the other way: an improvement; the same file: same
expect_rc 0 compare "$TMP/b.pickle" "$TMP/a.pickle"
out_has "improvement: peak allocated memory"
expect_rc 0 compare "$TMP/a.pickle" "$TMP/a.pickle"
out_has "same: peak allocated memory +0.0%"
# a threshold above the growth: no regression
expect_rc 0 compare --threshold 70% "$TMP/a.pickle" "$TMP/b.pickle"
expect_rc 0 compare --threshold-for peak_memory=70 "$TMP/a.pickle" "$TMP/b.pickle"
expect_rc 3 compare --markdown "$TMP/a.pickle" "$TMP/b.pickle"
out_has "### gpuprof compare: regression"
out_has '| `/home/u/model.py:40:forward` |'
# a snapshot against something else
printf '{"traceEvents": []}' >"$TMP/t.json"
expect_rc 1 compare "$TMP/a.pickle" "$TMP/t.json"
err_has "cannot compare a memory snapshot ('$TMP/a.pickle') with another input"
printf '\200\002N' >"$TMP/cut.pickle"
expect_rc 1 compare "$TMP/a.pickle" "$TMP/cut.pickle"
err_has "'$TMP/cut.pickle': byte 3: the pickle ends before its STOP opcode"
done_ok
