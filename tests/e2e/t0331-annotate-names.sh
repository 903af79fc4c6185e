#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0331-annotate-names.sh - many distinct annotation names (docs/python.md,
# "How many names"): a Python program names 20,000 ranges, 1,500 frame marks
# and 1,200 counters at run time under `gpuprof run --no-cuda`, with the limit
# of call sites lowered to 1,000 (GPUPROF_ANNOTATE_MAX_SITES). Past the limit
# names go by value: `gpuprof analyze --json` gives every range, mark and
# counter its right name and count; the ranges below the limit keep their
# source location, the others have none; the program's stderr shows one
# RuntimeWarning and the capture one warning; and what the process keeps
# stays at the limit (the module's dicts and libgpuprof's registry of sites,
# as the program reports them). Capture windows follow names by value
# (limit 0): --capture-range nvtx:NAME on a range, --iter-range NAME on a
# range and on a frame mark.
. "$(dirname "$0")/lib.sh"
need_python_binding
use_tracer
LIB="${GP_LIBGPUPROF:-$B/libgpuprof.so}"
[ -e "$LIB" ] || { echo "skip: no $LIB"; exit 77; }
export GPUPROF_LIBRARY="$LIB" PYTHONPATH="$GP_SRC_DIR/python" PYTHONDONTWRITEBYTECODE=1
unset GPUPROF_ANNOTATE_MAX_SITES

cat >"$TMP/names.py" <<'EOF'
import json, sys
import gpuprof, gpuprof._lib as L

def rng(name):
    return gpuprof.range(name)  # the call site of every range: this line

mode = sys.argv[1]
if mode == "names":
    for i in range(20000):
        with rng("n%d" % i):
            pass
    for name in ("n5", "n5", "n15000", "n15000"):  # a known site; by value again
        with rng(name):
            pass
    for i in range(3000):
        gpuprof.frame("f%d" % (i % 1500))
    for i in range(2400):
        gpuprof.counter("c%d" % (i % 1200), i)
    print(json.dumps({"rec": gpuprof.recording(), "sites": len(gpuprof._sites),
                      "named": len(gpuprof._named), "lib_sites": L.site_count(L.load()),
                      "limit": L.max_sites(L.load())}))
elif mode == "window":  # --capture-range nvtx:decode
    for i in range(3):
        with rng("step"):
            with rng("decode"):
                gpuprof.counter("queue", i)
            gpuprof.counter("outside", i)
elif mode == "iters":  # --iter-range step
    for i in range(10):
        with rng("step"):
            gpuprof.counter("queue", i)
elif mode == "marks":  # --iter-range tick
    for i in range(10):
        gpuprof.frame("tick")
        with rng("work"):
            gpuprof.counter("queue", i)
    gpuprof.frame("tick")
EOF

# run_py NAME MAX_SITES [gpuprof run options...] -- ARGS: a run into $TMP/NAME, its report in $OUT
run_py() {
	local name=$1 max=$2
	shift 2
	NCHECK=$((NCHECK + 1))
	GPUPROF_ANNOTATE_MAX_SITES=$max "$GPUPROF" run --quiet --sample-ms 0 --no-cuda \
		-o "$TMP/$name" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	RC=$?
	[ "$RC" -eq 0 ] || fail "$name: gpuprof run exited $RC: $(cat "$TMP/$name.err")"
	expect_rc 0 analyze --json "$TMP/$name"
	json_ok "$OUT"
}

# --- 20,000 range names, 1,500 marks, 1,200 counters; 1,000 call sites at most
run_py names 1000 -- python3 "$TMP/names.py" names
python3 - "$OUT" "$TMP/names.out" "$TMP/names.err" "$TMP/names.py" <<'EOF' || fail "names: the report"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
out = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
err = open(sys.argv[3]).read()
line = next(i + 1 for i, l in enumerate(open(sys.argv[4])) if "return gpuprof.range(name)" in l)
# what the process keeps stays at the limit
assert out == {"rec": True, "sites": 1000, "named": 0, "lib_sites": 1000, "limit": 1000}, out
# one warning from Python, on stderr
assert err.count("RuntimeWarning") == 1, err
assert "limit of 1000 annotation call sites (GPUPROF_ANNOTATE_MAX_SITES)" in err, err
# every range with its name and count; a source below the limit only
rg = {x["name"]: x for x in r["ranges"]}
assert len(rg) == 20000, len(rg)
for i in range(20000):
    x = rg["n%d" % i]
    want = 3 if i in (5, 15000) else 1
    assert x["count"] == want and x["domain"] == "gpuprof", x
    if i < 1000:
        assert x["source"] == "%s:%d" % (sys.argv[4], line), x
    else:
        assert x["source"] is None, x
cap = r["overview"]["capture"]
assert cap["nvtx_unmatched"] == 0 and cap["dropped_records"] == 0, cap
marks = {m["name"]: m["count"] for m in cap["marks"]}
assert marks == {"f%d" % i: 2 for i in range(1500)}, len(marks)
ctr = {c["name"]: c for c in r["counters"]}
assert len(ctr) == 1200, len(ctr)
for i in range(1200):
    c = ctr["c%d" % i]
    assert (c["count"], c["min"], c["max"], c["last"]) == (2, i, i + 1200, i + 1200), c
# the capture says once that names went by value
w = [m for m in cap["warning_messages"] if "by value" in m["text"]]
assert len(w) == 1 and w[0]["count"] == 1, cap["warning_messages"]
assert "GPUPROF_ANNOTATE_MAX_SITES" in w[0]["text"] and "no source location" in w[0]["text"], w
EOF

# check_counter NAME "VALUES" RANGE=COUNT...: the counter "queue" kept these values
check_counter() {
	python3 - "$OUT" "$@" <<'EOF' || fail "$1: windows do not follow the names by value"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
name, want = sys.argv[2], [int(x) for x in sys.argv[3].split()]
c = {x["name"]: x for x in r["counters"]}["queue"]
assert (c["count"], c["min"], c["max"]) == (len(want), min(want), max(want)), (name, c)
assert abs(c["mean"] - sum(want) / len(want)) < 1e-9, (name, c)
rg = {x["name"]: x["count"] for x in r["ranges"]}
for kv in sys.argv[4:]:
    k, v = kv.split("=")
    assert rg.get(k, 0) == int(v), (name, k, rg)
assert all(x["source"] is None for x in r["ranges"]), r["ranges"]  # all by value
assert r["overview"]["capture"]["windows"], name
EOF
}

# --- windows: every name by value (limit 0)
run_py window 0 --capture-range nvtx:decode -- python3 "$TMP/names.py" window
check_counter window "0 1 2" decode=3 step=0
[ "$(json_get "$OUT" '[c["name"] for c in d["ranks"][0]["counters"]]')" = "['queue']" ] ||
	fail "window: a counter sample outside the decode ranges was kept"
run_py iters 0 --schedule wait=1,warmup=1,active=2,repeat=2 --iter-range step -- \
	python3 "$TMP/names.py" iters
check_counter iters "2 3 6 7" step=4
run_py marks 0 --schedule wait=1,warmup=1,active=2,repeat=2 --iter-range tick -- \
	python3 "$TMP/names.py" marks
check_counter marks "2 3 6 7" work=4

done_ok
