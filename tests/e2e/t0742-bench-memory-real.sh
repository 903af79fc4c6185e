#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0742-bench-memory-real.sh - memory per iteration of `gpuprof bench` on the
# real profile_memory traces of ../shared/traces (a Kineto ResNet-50 and three
# TraceLens models, H100 and MI300): per complete step the at-end bytes equal
# analyze's memory.devices[].step_growth of the GPU and the highest peak its
# peak_allocated_bytes (the peak falls in a step); ResNet-50's six steps peak
# alike (σ 0), so its bench compared with itself is "exact" and the same.
# Skips (77) without the traces.
. "$(dirname "$0")/lib.sh"
need python3
T="$GP_SHARED_DIR/traces"
RESNET="$T/kineto/resnet50_num_workers_0_worker0.pt.trace.json.gz"
[ -f "$RESNET" ] || { echo "skip: no shared traces"; exit 77; }

for f in "$RESNET" "$T"/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz \
	"$T"/tracelens/h100_gaunernst_bert-small-uncased__1016001.json.gz \
	"$T"/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz; do
	[ -f "$f" ] || continue
	expect_rc 0 analyze --json "$f"
	cp "$OUT" "$TMP/a.json"
	expect_rc 0 bench --json "$f"
	cp "$OUT" "$TMP/b.json"
	NCHECK=$((NCHECK + 1))
	python3 - "$TMP/a.json" "$TMP/b.json" <<'PY' || fail "$f against analyze (above)"
import json, sys
a = json.load(open(sys.argv[1]))
r = a["ranks"][0] if "ranks" in a else a
gpus = [d for d in r["memory"]["devices"] if d["device"] != "cpu"]
assert len(gpus) == 1, [d["device"] for d in r["memory"]["devices"]]
dev = gpus[0]
complete = [s for s in r["steps"] if not s["incomplete"] and s.get("number") is not None]
names = {s["name"] for s in complete}
ends = [g["allocated_at_end_bytes"] for g in dev["step_growth"] if g["step"] in names]
s = json.load(open(sys.argv[2]))["series"][0]
assert s["n"] == len(complete) == len(ends), (s["n"], len(complete), len(ends))
assert s["memory_at_end_bytes"] == ends, (s["memory_at_end_bytes"], ends)
assert dev["peak_step"] in names, dev["peak_step"]
assert max(s["peak_memory_bytes"]) == dev["peak_allocated_bytes"], (s["peak_memory_bytes"], dev["peak_allocated_bytes"])
assert s["memory_stats"]["max_bytes"] == dev["peak_allocated_bytes"]
PY
done

# ResNet-50: every step peaks alike; against itself, an exact "same"
expect_rc 0 bench --json "$RESNET"
cp "$OUT" "$TMP/r.json"
[ "$(json_get "$TMP/r.json" '(len(set(d["series"][0]["peak_memory_bytes"])), d["series"][0]["memory_stats"]["std_bytes"])')" = "(1, 0)" ] ||
	fail "ResNet-50: steps alike"
expect_rc 0 compare --json "$TMP/r.json" "$TMP/r.json"
[ "$(json_get "$OUT" '[(m["test"], m["verdict"]) for m in d["groups"][0]["metrics"] if m["metric"] == "peak_memory"]')" = \
	"[('exact', 'same')]" ] || fail "ResNet-50: exact"
expect_rc 0 bench "$RESNET"
out_has "  memory  peak   mean 2.6 GiB ± 0 B  min 2.6 GiB  max 2.6 GiB"

done_ok
