#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/gen-ranks.py (issue 22): the generated ranks are deterministic, named as
# torch.profiler.tensorboard_trace_handler names them, valid Kineto traces that `gpuprof analyze`
# reads (ranks, steps, NCCL kernels), and their events agree with the printed ground truth: every
# collective ends at the same true time on all its ranks, host clock offsets are exactly the given
# ones, the straggler arrives last where the truth says, a desync drops exactly one collective.
. "$(dirname "$0")/lib.sh"
need python3
gen="$GP_SRC_DIR/bench/gen-ranks.py"

# 8 ranks on 2 hosts, rank 5 straggling by 5 ms per step, node-1's clock 1234.5 us ahead
args="--ranks 8 --hosts 2 --straggler 5 --straggler-ms 5 --host-offset-us node-1=1234.5 --seed 7"
python3 "$gen" $args --out "$TMP/r" >"$TMP/truth.json" || fail "gen-ranks.py failed"
mv "$TMP/r" "$TMP/r1"
python3 "$gen" $args --out "$TMP/r" >"$TMP/truth2.json" || fail "gen-ranks.py failed (2nd run)"
cmp -s "$TMP/truth.json" "$TMP/truth2.json" || fail "the ground truth differs between two runs"
for f in "$TMP"/r1/*; do
	cmp -s "$f" "$TMP/r/${f##*/}" || fail "not deterministic: ${f##*/}"
done
[ "$(ls "$TMP/r" | wc -l)" -eq 8 ] || fail "expected 8 files: $(ls "$TMP/r")"
python3 "$gen" --ranks 8 --hosts 2 --seed 8 --out "$TMP/other" >/dev/null || fail "gen-ranks.py --seed 8 failed"
if cmp -s "$TMP/r/$(ls "$TMP/r" | head -n 1)" "$TMP/other/$(ls "$TMP/other" | head -n 1)"; then
	fail "another seed wrote the same trace"
fi

expect_rc 0 analyze --json -o "$TMP/report.json" "$TMP/r"
python3 - "$TMP/r" "$TMP/truth.json" "$TMP/report.json" <<'PY' || fail "generated ranks disagree with the truth"
import json, os, re, sys
from collections import defaultdict

d, truth, rep = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert truth["host_offsets_ns"] == {"node-0": 0, "node-1": 1234500}, truth["host_offsets_ns"]
assert truth["clock_offset_ns"] == {"node-0": 0, "node-1": -1234500}, truth["clock_offset_ns"]
assert truth["straggler"]["rank"] == 5 and truth["straggler"]["cause"] == "compute", truth["straggler"]
files = {f["rank"]: f for f in truth["files"]}
assert sorted(files) == list(range(8))
# names as tensorboard_trace_handler writes them: <host>_<pid>.<time_ns>.pt.trace.json
for r, f in files.items():
    m = re.fullmatch(r"(node-\d+)_(\d+)\.(\d{19})\.pt\.trace\.json", f["file"])
    assert m and m.group(1) == f["host"] == "node-%d" % (r // 4), f

# what gpuprof analyze reads
ranks = {x["rank"]: x for x in rep["ranks"]}
assert sorted(ranks) == list(range(8)), sorted(ranks)
for r, x in ranks.items():
    assert os.path.basename(x["file"]) == files[r]["file"], (r, x["file"])
    o = x["overview"]
    assert o["steps"] == truth["steps"] == 4, (r, o["steps"])
    assert o["distributed"]["world_size"] == 8 and o["distributed"]["backend"] == "nccl", o["distributed"]
    comm = sum(k["count"] for k in x["kernels"] if k["type"] == "COMMUNICATION")
    assert comm == files[r]["nccl_kernels"] == 24, (r, comm, files[r]["nccl_kernels"])

# the events themselves, on each rank's clock, taken back to true time with the truth's offsets
coll = defaultdict(dict)       # (pg, seq) -> rank -> (start, end, name, bytes)
for r, f in files.items():
    t = json.load(open(os.path.join(d, f["file"])))
    base, off = t["baseTimeNanoseconds"], truth["host_offsets_ns"][f["host"]]
    assert t["distributedInfo"]["rank"] == r and t["distributedInfo"]["world_size"] == 8
    assert [p["pg_name"] for p in t["distributedInfo"]["pg_config"]] == ["0", str(1 + r // 4)]
    ev = t["traceEvents"]
    ns = lambda x: base + round(float(x) * 1000) - off
    steps = sorted(e["name"] for e in ev if e.get("name", "").startswith("ProfilerStep#"))
    assert steps == ["ProfilerStep#%d" % n for n in range(10, 14)], steps
    dl = [e for e in ev if e.get("name") == "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"]
    assert len(dl) == 4 and all(e["cat"] == "user_annotation" for e in dl)
    rpc = {e["args"]["External id"]: e for e in ev if e.get("name") == "record_param_comms"}
    for e in ev:
        if e.get("cat") != "kernel" or not e["name"].startswith("ncclDevKernel_"):
            continue
        a = e["args"]
        c = rpc[a["External id"]]["args"]      # the kernel links to its record_param_comms
        for k in ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
                  "Process Group Name", "Process Group Description", "Process Group Ranks", "Seq"):
            assert a[k] == c[k], (k, a[k], c[k])
        size = {"Float": 4, "BFloat16": 2}[a["dtype"]]
        coll[(a["Process Group Name"], a["Seq"])][r] = (ns(e["ts"]), ns(e["ts"]) + round(float(e["dur"]) * 1000),
                                                       a["Collective name"],
                                                       max(a["In msg nelems"], a["Out msg nelems"]) * size)
last, mine, transfer = 0, 0, defaultdict(int)
for (pg, seq), by in coll.items():
    assert len(by) == (8 if pg == "0" else 4), (pg, seq, sorted(by))
    ends = {v[1] for v in by.values()}
    assert len(ends) == 1, ("collective does not end together", pg, seq, ends)
    transfer[(pg, next(iter(by.values()))[2])] += min(v[1] - v[0] for v in by.values())
    if 5 in by:
        mine += 1
        last += max(by, key=lambda r: by[r][0]) == 5
assert mine == truth["straggler"]["collectives"] == 24, mine
assert last == truth["straggler"]["last_count"], (last, truth["straggler"])
assert last > mine // 2, ("the straggler is not last in most collectives", last, mine)
for t in truth["collective_totals"]:
    assert transfer[(t["pg"], t["name"])] == t["transfer_ns"], (t, transfer[(t["pg"], t["name"])])
# the busbw of the truth is the formula's: bytes / transfer * factor
for t in truth["collective_totals"]:
    n = t["group_size"]
    f = 2 * (n - 1) / n if t["name"] == "allreduce" else (n - 1) / n
    assert abs(t["busbw_gbps"] - t["bytes"] / t["transfer_ns"] * f) < 1e-9, t
print("ok: %d collectives, straggler last in %d of %d" % (len(coll), last, mine))
PY

# a desynchronisation: rank 3 skips the all-reduce of Seq 42
python3 "$gen" --ranks 8 --hosts 2 --desync 3:42 --out "$TMP/ds" >"$TMP/ds.json" || fail "--desync failed"
expect_rc 0 analyze --json -o "$TMP/ds-report.json" "$TMP/ds"
python3 - "$TMP/ds" "$TMP/ds.json" "$TMP/ds-report.json" <<'PY' || fail "desync ranks disagree with the truth"
import json, os, sys
d, truth, rep = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
ds = truth["desync"]
assert ds["rank"] == 3 and ds["pg"] == "0" and ds["seq"] == 42 and ds["report"] == {"seq": 42, "kind": "missing"}, ds
for f in truth["files"]:
    t = json.load(open(os.path.join(d, f["file"])))
    seqs = [e["args"]["Seq"] for e in t["traceEvents"] if e.get("cat") == "kernel" and
            e["args"].get("Process Group Name") == "0"]
    assert (42 in seqs) == (f["rank"] != 3), (f["rank"], seqs)
    assert len(seqs) == 16 - (f["rank"] == 3)
comm = {x["rank"]: sum(k["count"] for k in x["kernels"] if k["type"] == "COMMUNICATION") for x in rep["ranks"]}
assert comm == {r: 24 - (r == 3) for r in range(8)}, comm
PY

# older Kineto: integer absolute us, no baseTimeNanoseconds; no Seq; gzip; data-loading straggler
python3 "$gen" --ranks 4 --hosts 2 --old-format --no-seq --gzip --straggler 1 --straggler-cause data_loading \
	--out "$TMP/old" >"$TMP/old.json" || fail "--old-format failed"
expect_rc 0 analyze --json -o "$TMP/old-report.json" "$TMP/old"
python3 - "$TMP/old" "$TMP/old.json" "$TMP/old-report.json" <<'PY' || fail "old-format ranks wrong"
import gzip, json, os, sys
d, truth, rep = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert truth["seq_source"] == "step" and truth["format"] == "old"
assert [x["overview"]["steps"] for x in rep["ranks"]] == [4] * 4
for f in truth["files"]:
    assert f["file"].endswith(".pt.trace.json.gz")
    t = json.load(gzip.open(os.path.join(d, f["file"])))
    assert "baseTimeNanoseconds" not in t
    k = [e for e in t["traceEvents"] if e.get("cat") == "kernel" and e["name"].startswith("ncclDevKernel_")]
    assert len(k) == f["nccl_kernels"] == 24 and all(isinstance(e["ts"], int) and "Seq" not in e["args"] for e in k)
    dl = [e["dur"] for e in t["traceEvents"] if e.get("name", "").startswith("enumerate(DataLoader)")]
    if f["rank"] == 1:
        assert min(dl) > 5000, dl  # the straggler's data loading is 5 ms longer
    else:
        assert max(dl) < 5000, dl
PY

# bad options: a clear message, exit 2
if python3 "$gen" --ranks 8 --hosts 3 --out "$TMP/bad" 2>"$ERR"; then fail "--hosts 3 of 8 ranks accepted"; fi
grep -q "does not divide" "$ERR" || fail "no message for --hosts 3: $(cat "$ERR")"
if python3 "$gen" --ranks 8 --desync 3:999 --out "$TMP/bad" 2>"$ERR"; then fail "--desync 3:999 accepted"; fi
grep -q "Seq on group 0 runs" "$ERR" || fail "no message for --desync 3:999: $(cat "$ERR")"
echo ok
