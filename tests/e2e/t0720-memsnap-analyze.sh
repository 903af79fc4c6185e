#!/bin/bash
# SPDX-License-Identifier: MIT
# t0720-memsnap-analyze.sh - `gpuprof analyze` of PyTorch memory snapshots written by
# Python's pickle at every protocol (tests/memsnap_gen.py): the kind is known by name
# (.pickle, .pkl) and by content (any name, standard input); --json gives a
# gpuprof.memsnap/1 document whose peaks, top frames, fragmentation and OOMs are those of
# the generator's own Python reading; the text shows the same; a damaged or hostile
# pickle is one error line naming the file and the byte, exit 1.
. "$(dirname "$0")/lib.sh"
need python3
GEN="$GP_SRC_DIR/tests/memsnap_gen.py"

for proto in 2 3 4 5; do
	python3 "$GEN" "$TMP/s$proto.pickle" --proto "$proto" --expect "$TMP/want$proto.json"
	expect_rc 0 analyze --json "$TMP/s$proto.pickle"
	json_ok "$OUT"
	python3 - "$OUT" "$TMP/want$proto.json" "$proto" <<'PY' || fail "protocol $proto: the document differs from the Python reading"
import json, sys
doc, want, proto = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
assert doc["schema"] == "gpuprof.memsnap/1", doc["schema"]
assert doc["pickle_protocol"] == proto
assert doc["allocator_settings"]["expandable_segments"] is True
assert [str(d["device"]) for d in doc["devices"]] == sorted(want), list(want)
for d in doc["devices"]:
    w = want[str(d["device"])]
    p = d["peak"]
    assert (p["source"], p["allocated_bytes"]) == (w["peak"]["source"], w["peak"]["allocated_bytes"]), (p, w["peak"])
    assert (p["entry"], p["time_us"]) == (w["peak"]["entry"], w["peak"]["time_us"])
    assert [[f["frame"], f["bytes"], f["blocks"]] for f in p["frames"]] == w["top"], (p["frames"], w["top"])
    frag = {f["class"]: [f["segments"], f["reserved_bytes"], f["allocated_bytes"]] for f in d["fragmentation"]}
    assert frag == w["fragmentation"], (frag, w["fragmentation"])
    got = [[o["entry"], o["requested_bytes"], o["device_free_bytes"], o["allocated_bytes"],
            [[f["frame"], f["bytes"], f["blocks"]] for f in o["frames"]]] for o in d["ooms"]]
    assert got == [[o["entry"], o["requested"], o["device_free"], o["allocated"], o["top"]] for o in w["ooms"]]
    assert d["curve"]["x"] == "time_us" and len(d["curve"]["points"]) <= 1000
    assert max(y for _, y in d["curve"]["points"]) == p["allocated_bytes"]
PY
done

# the text: the peak, its top frame, the classes, the OOM
expect_rc 0 analyze "$TMP/s4.pickle"
out_has "Memory snapshot '$TMP/s4.pickle' (pickle protocol 4)"
out_has "Peak: 22.0 MiB allocated at trace entry 31"
out_has "/home/u/model.py:40:forward"
out_has "expandable"
out_has "Out of memory: 1 event"
out_has "PYTORCH_CUDA_ALLOC_CONF: \"expandable_segments:True\""
# --top 1: one frame a table
expect_rc 0 analyze --top 1 "$TMP/s4.pickle"
out_has "... 3 more frames (--top)"

# by content: another name, standard input; by name: .pkl
cp "$TMP/s4.pickle" "$TMP/snap.bin"
expect_rc 0 analyze --json "$TMP/snap.bin"
out_has '"schema": "gpuprof.memsnap/1"'
run analyze --json - <"$TMP/s4.pickle"
[ "$RC" -eq 0 ] || fail "standard input: exit $RC"
out_has '"file": "<stdin>"'
# a snapshot without traces: the peak is the snapshot's state
python3 "$GEN" "$TMP/nt.pkl" --variant notrace
expect_rc 0 analyze "$TMP/nt.pkl"
out_has "Peak: no trace; the state at the snapshot"

# damaged and hostile: one line, the file and the byte
head -c 700 "$TMP/s2.pickle" >"$TMP/cut.pickle"
expect_rc 1 analyze "$TMP/cut.pickle"
err_one_line
err_has "gpuprof: error: '$TMP/cut.pickle': byte "
printf '\200\002cos\nsystem\n(S"true"\ntR.' >"$TMP/evil.pkl"
expect_rc 1 analyze "$TMP/evil.pkl"
err_one_line
err_has "byte 2: opcode GLOBAL (0x63) is not read"
printf '\200\002]q\000h\000a.' >"$TMP/cycle.pickle"
expect_rc 1 analyze "$TMP/cycle.pickle"
err_has "byte 2: a list holds itself through memo references"
printf '\200\001N.' >"$TMP/old.pickle"
expect_rc 1 analyze "$TMP/old.pickle"
err_has "pickle protocol 1 (protocols 2 to 5 are read)"
# a snapshot goes alone
expect_rc 1 analyze "$TMP/s4.pickle" "$TMP/s3.pickle"
err_has "a memory snapshot is analysed alone"
done_ok
