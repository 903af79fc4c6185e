#!/bin/bash
# SPDX-License-Identifier: MIT
# t0003-hostile-strings.sh - traces built to stall a reader (issue item 7,
# "Inputs must never stall"): 8-17 MB strings of "é" and of "\u00e9" escapes as an
# event name, plain and gzip (also cut into gzip members inside a character),
# long keys and "args" strings, and metadata objects with 200,000 keys. Each is
# analysed and the long name must come back whole in the report. Nothing here is
# timed (shared machines): bench/bench_hostile.sh measures the full-size inputs.
. "$(dirname "$0")/lib.sh"
need python3

# the hostile inputs, with the expected kernel name of each in NAME.<file>
python3 - "$TMP" <<'PY' || fail "could not generate the inputs"
import gzip, json, sys

d = sys.argv[1]
ev = '"ph": "X", "cat": "kernel", "pid": 1, "tid": 7, "ts": 1, "dur": 2'


def doc(name_json, extra=""):
    return ('{"traceEvents": [{"name": "' + name_json + '", ' + ev + extra +
            '}, {"name": "k2", ' + ev.replace('"ts": 1', '"ts": 5') + '}]}')


def put(fname, text, name):
    data = text.encode("utf-8")
    if fname.endswith(".gz"):
        data = gzip.compress(data, 6)
    open(f"{d}/{fname}", "wb").write(data)
    open(f"{d}/NAME.{fname}", "w", encoding="utf-8").write(name)


e = "é" * (6 << 20)  # 12 MB
put("e.json", doc(e), e)
put("e.json.gz", doc(e), e)
u = "é" * (2 << 20)  # 12 MB of "\u00e9"
put("u.json", doc("\\u00e9" * (2 << 20)), u)
put("u.json.gz", doc("\\u00e9" * (2 << 20)), u)
# larger than the size at which a plain file is read by two threads
big = "é" * (17 << 19)  # 17 MB
put("big.json", doc(big), big)
# mixed characters and escapes, with a long key and a long skipped argument
mix = "aé€😀\n\"" * (1 << 19)
mix_json = json.dumps(mix, ensure_ascii=False)[1:-1]
put("mix.json", doc(mix_json, ', "' + "\\u00e9" * (1 << 20) + '": 1, "args": {"Call stack": "' +
                    "é" * (2 << 20) + '", "' + "é" * (1 << 20) + '": [1]}'), mix)
# gzip members that end inside a character of the name (é is 2 bytes)
text = doc(e).encode("utf-8")
at = text.index(b'"name": "') + 9
cuts = [0, at + 1, at + 262145, at + 3000001, len(text)]
data = b"".join(gzip.compress(text[a:b], 1) for a, b in zip(cuts, cuts[1:]))
open(f"{d}/members.json.gz", "wb").write(data)
open(f"{d}/NAME.members.json.gz", "w", encoding="utf-8").write(e)
# metadata: an object with 200,000 keys (and a duplicate), and as many top-level keys
keys = ", ".join(f'"k{i}": {i}' for i in range(200000))
put("keys.json", '{"meta": {' + keys + ', "k7": -7}, "traceEvents": [{"name": "k1", ' + ev + '}]}',
    "k1")
put("topkeys.json", '{' + keys + ', "traceEvents": [{"name": "k1", ' + ev + '}]}', "k1")
PY

for f in e.json e.json.gz u.json u.json.gz big.json mix.json members.json.gz keys.json \
	topkeys.json; do
	expect_rc 0 analyze --json -o "$TMP/r.json" "$TMP/$f"
	NCHECK=$((NCHECK + 1))
	python3 - "$TMP/r.json" "$TMP/NAME.$f" <<'PY' || fail "$f: the report is not right"
import json, sys

r = json.load(open(sys.argv[1], encoding="utf-8"))["ranks"][0]
want = open(sys.argv[2], encoding="utf-8").read()
names = [k["name"] for k in r["kernels"]]
if want not in names:
    print(f"no kernel named as expected ({len(want)} chars); names of "
          f"{[len(n) for n in names]} chars", file=sys.stderr)
    sys.exit(1)
if r["overview"]["events_read"] != (1 if want == "k1" else 2):
    print(f"{r['overview']['events_read']} events read", file=sys.stderr)
    sys.exit(1)
PY
done

# the terminal report of a long name is one line per row, cut to the column
expect_rc 0 analyze "$TMP/e.json.gz"
out_has "éééé"
no_width_over 200 "$OUT"

# a long string cut by the end of the file: one error line with the offset
head -c 5000000 "$TMP/e.json" >"$TMP/cut.json"
expect_rc 1 analyze "$TMP/cut.json"
err_one_line
err_has "cut.json: byte 5000000: unexpected end of input"

done_ok
