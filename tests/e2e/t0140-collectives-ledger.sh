#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The collectives ledger of `analyze --json` on real traces, checked against the
# traces themselves: every NCCL kernel once, its name, sizes and group from its args
# (bytes = max(nelems) * dtype size), its start and end the kernel's own; old traces
# without args named from the kernels, seq from the ProfilerSteps, the same seqs on
# both ranks; gloo's CPU-side collectives; the host from a tensorboard_trace_handler
# file name; the text output does not show the ledger.
. "$(dirname "$0")/lib.sh"
need python3
src="$GP_SHARED_DIR/traces/hta"
[ -f "$src/nccl_parser_config_nccl_data.json.gz" ] || { echo "skip: no ../shared/traces"; exit 77; }

# the ledger against the kernels of the trace
check_kernels() { # TRACE REPORT
	python3 - "$1" "$2" <<'PY' || fail "ledger of '$1' does not match its kernels"
import decimal, gzip, json, sys
tr = json.load(gzip.open(sys.argv[1]), parse_float=decimal.Decimal)
rep = json.load(open(sys.argv[2]))
base = int(tr.get("baseTimeNanoseconds", 0))
ns = lambda us: int(decimal.Decimal(us) * 1000) + base
sizes = {"Float": 4, "Long": 8, "Half": 2, "BFloat16": 2, "Int": 4, "Double": 8, "Byte": 1}
kern = sorted((e for e in tr["traceEvents"]
               if e.get("ph") == "X" and e.get("cat") == "kernel" and e["name"].startswith("nccl")),
              key=lambda e: ns(e["ts"]))
c = rep["ranks"][0]["collectives"]
led = c["ledger"]
assert len(led) == len(kern), (len(led), len(kern))
for k, x in zip(kern, led):
    a = k.get("args", {})
    assert x["kernel"] == k["name"], (x, k)
    assert x["start_ns"] == ns(k["ts"]) and x["end_ns"] == ns(k["ts"]) + ns(k["dur"]) - base, x
    if "Collective name" in a:
        assert x["name"] == a["Collective name"], x
        assert x["in_nelems"] == a["In msg nelems"] and x["out_nelems"] == a["Out msg nelems"], x
        assert x["dtype"] == a["dtype"] and x["group_size"] == a["Group size"], x
        assert x["bytes"] == max(a["In msg nelems"], a["Out msg nelems"]) * sizes[a["dtype"]], x
        assert x["pg"] == a["Process Group Name"], x
    else:
        assert x["name"] == "sendrecv" and "SendRecv" in k["name"], x
        assert x["bytes"] is None and x["pg"] is None, x
    assert x["step"] is not None, x
seqs = [x["seq"] for x in led]
assert len(set((x["pg"], x["seq"]) for x in led)) == len(led), "seq not unique in its group"
steps = {int(e["name"].split("#")[1]) for e in tr["traceEvents"]
         if e.get("name", "").startswith("ProfilerStep#")}
if not any("Seq" in k.get("args", {}) for k in kern):
    assert c["seq_source"] == "step", c["seq_source"]
    assert all(x["seq"] // 1000000 == x["step"] and x["step"] in steps for x in led), seqs
names = {}
for x in led:
    names[x["name"]] = names.get(x["name"], 0) + 1
print(sys.argv[1].rsplit("/", 1)[1], len(led), names, c["seq_source"])
PY
}

expect_rc 0 analyze --json -o "$TMP/nccl.json" "$src/nccl_parser_config_nccl_data.json.gz"
check_kernels "$src/nccl_parser_config_nccl_data.json.gz" "$TMP/nccl.json"
# the process group from distributedInfo.pg_config; the kernels' args name the same
python3 - "$TMP/nccl.json" <<'PY' || fail "process groups"
import json, sys
c = json.load(open(sys.argv[1]))["ranks"][0]["collectives"]
assert c["process_groups"] == [{"name": "0", "desc": "default_pg", "ranks": [0, 1], "size": 2}], c
counts = {}
for x in c["ledger"]:
    counts[x["name"]] = counts.get(x["name"], 0) + 1
assert counts == {"allreduce": 15, "broadcast": 6}, counts
assert all(x["cpu_start_ns"] is not None and x["cpu_start_ns"] <= x["start_ns"] for x in c["ledger"])
PY

# old format: no args, names from the kernels; the two ranks number their collectives alike
for r in 0 1; do
	expect_rc 0 analyze --json -o "$TMP/r$r.json" "$src/trace_filter_sampled_rank-$r.json.gz"
	check_kernels "$src/trace_filter_sampled_rank-$r.json.gz" "$TMP/r$r.json"
done
python3 - "$TMP/r0.json" "$TMP/r1.json" <<'PY' || fail "ranks 0 and 1 differ in their seqs"
import json, sys
s = [[(x["seq"], x["name"]) for x in json.load(open(f))["ranks"][0]["collectives"]["ledger"]]
     for f in sys.argv[1:]]
assert s[0] == s[1] and len(s[0]) == 10, s
PY

# gloo: CPU-side collectives from the gloo: annotations; the host from the file name
g=$(ls "$src"/cpu_only_rank-34*.pt.trace.json.gz | head -n 1)
ln -s "$g" "$TMP/node-x_4242.1700000000000.pt.trace.json.gz"
expect_rc 0 analyze --json -o "$TMP/gloo.json" "$TMP/node-x_4242.1700000000000.pt.trace.json.gz"
python3 - "$g" "$TMP/gloo.json" <<'PY' || fail "gloo ledger"
import gzip, json, sys
tr = json.load(gzip.open(sys.argv[1]))
r = json.load(open(sys.argv[2]))["ranks"][0]
assert r["host"] == "node-x", r["host"]
ann = [e for e in tr["traceEvents"] if e.get("name", "").startswith("gloo:")]
led = r["collectives"]["ledger"]
assert len(led) == len(ann) > 0, (len(led), len(ann))
assert all(x["kernel"] is None and x["name"] == "allreduce" for x in led), led
assert [x["seq"] for x in led] == list(range(len(led))), r["collectives"]["seq_source"]
assert r["collectives"]["seq_source"] == "order"
names = [g["name"] for g in r["collectives"]["process_groups"]]
assert len(names) == len(tr["distributedInfo"]["pg_config"]) + 1 and names[-1] is None, names
PY

# a trace without collectives: the empty ledger; the text output never shows it
expect_rc 0 analyze --json -o "$TMP/none.json" "$src/triton_example_triton_example.json.gz"
python3 - "$TMP/none.json" <<'PY' || fail "empty ledger"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
assert r["collectives"] == {"seq_source": None, "process_groups": [], "ledger": []}, r["collectives"]
assert r["host"] is None
PY
expect_rc 0 analyze "$src/nccl_parser_config_nccl_data.json.gz"
grep -qiE "seq_source|process_groups|cpu_start" "$OUT" && fail "the text output shows the ledger"
done_ok
