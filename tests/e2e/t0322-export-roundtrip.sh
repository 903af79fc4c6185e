#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0322-export-roundtrip.sh - an export analyses as its source: for every
# Kineto trace of tests/data/kineto and ../shared/traces, `gpuprof analyze
# --json` of the export (and with --compat hta) equals that of the trace,
# apart from what describes the file rather than the run (its path, the
# events and bytes read, the count by category, python_function events,
# the base time an hour earlier, a displayTimeUnit "ns" added where the trace
# had none), as docs/cli/gpuprof-export.md says. That covers the memory
# events (2021 traces have "Bytes" only), deviceProperties, distributedInfo
# and the other top-level metadata. Then `-o NAME.gz` writes gzip, for export
# and for every command's -o (analyze, compare, report, bench), and what is
# written reads back; `top --record NAME.gz` (plain lines as it samples) is
# refused instead.
. "$(dirname "$0")/lib.sh"
need python3

K="$GP_SRC_DIR/tests/data/kineto"
S="$GP_SHARED_DIR/traces"
set -- "$K/modern.json" "$K/legacy2021.json" "$K/base_after.json" "$K/multi.json.gz"
if [ -d "$S" ]; then
	for f in "$S"/kineto/*.json.gz "$S"/hta/*.json.gz "$S"/tracelens/*.json.gz; do
		[ -e "$f" ] && set -- "$@" "$f"
	done
else
	echo "note: no $S: the shared traces are not tested"
fi

i=0
for f in "$@"; do
	i=$((i + 1))
	expect_rc 0 export -q "$f" -o "$TMP/e$i.json"
	for compat in none hta; do
		expect_rc 0 analyze --json -q --compat "$compat" "$f"
		mv "$OUT" "$TMP/a.json"
		expect_rc 0 analyze --json -q --compat "$compat" "$TMP/e$i.json"
		NCHECK=$((NCHECK + 1))
		python3 - "$TMP/a.json" "$OUT" "$f" <<'EOF' || fail "analyze of the export of '$f' (--compat $compat) differs (above)"
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# what describes the file, not the run (docs/cli/gpuprof-export.md, "Read back")
FILE = re.compile(r"^\.ranks\[0\]\.(file|overview\.(categories|events_read|python_events|"
                  r"trace\.(bytes_read|base_time_ns)))$")
out = []
def diff(x, y, path):
    if FILE.match(path):
        return
    if path == ".ranks[0].overview.trace.display_time_unit" and x is None and y == "ns":
        return
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            diff(x.get(k, "<absent>"), y.get(k, "<absent>"), path + "." + k)
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for k, (p, q) in enumerate(zip(x, y)):
            diff(p, q, "%s[%d]" % (path, k))
    elif x != y:
        out.append("%s: %r != %r" % (path, x, y))
diff(a, b, "")
for line in out[:10]:
    print("  " + line[:300])
sys.exit(1 if out else 0)
EOF
	done
done

# a 2021 trace's memory events ("Bytes" only) export with their values, not zeros
expect_rc 0 export -q "$K/legacy2021.json" -o "$TMP/legacy.json"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/legacy.json" <<'EOF' || fail "the memory counters of a 2021 trace (above)"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
m = [e for e in ev if e["ph"] == "i" and e["name"] == "[memory]"]
c = [e["args"]["allocated_bytes"] for e in ev if e["ph"] == "C" and e["name"] == "memory"]
assert m and all("Total Allocated" not in e["args"] for e in m), m
assert len(c) == len(m) and max(c) > 0, c
run = 0
for e, v in zip(m, c):
    run += e["args"]["Bytes"]
    assert v == run, (e, v, run)
EOF

# several traces: each trace's metadata kept on its first process
mkdir "$TMP/ranks"
cp "$K/modern.json" "$TMP/ranks/a.json"
cp "$K/legacy2021.json" "$TMP/ranks/worker1.json"
expect_rc 0 export -q "$TMP/ranks" -o "$TMP/ranks.json"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/ranks.json" <<'EOF' || fail "the metadata of several traces (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert "distributedInfo" not in d and "deviceProperties" not in d, d.keys()
tm = [e for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "trace_metadata"]
assert len(tm) == 2, tm
assert tm[0]["args"]["distributedInfo"]["rank"] == 3, tm[0]
assert tm[0]["args"]["deviceProperties"][0]["name"] == "NVIDIA H100 80GB HBM3", tm[0]
EOF

# metadata strings are escaped as every string of the export ("</" and U+2028 for a <script>);
# the trace's own otherData keeps its members beside the exporter's
printf '{"traceName":"</script>\xe2\x80\xa8x","otherData":{"mine":1,"exporter":"other"},"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":5,"dur":2}]}' >"$TMP/meta.json"
expect_rc 0 export -q "$TMP/meta.json" -o "$TMP/meta.out.json"
NCHECK=$((NCHECK + 1))
grep -qF '"traceName":"<\/script>\u2028x"' "$TMP/meta.out.json" || fail "metadata strings not escaped: $(head -c 300 "$TMP/meta.out.json")"
NCHECK=$((NCHECK + 1))
python3 - "$TMP/meta.out.json" <<'EOF' || fail "the metadata of meta.json (above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["traceName"] == "</script>\u2028x", d
assert d["otherData"]["mine"] == 1 and d["otherData"]["exporter"] == "gpuprof", d["otherData"]
EOF

# -o NAME.gz writes gzip, for every command that writes a file
gz_ok() {
	NCHECK=$((NCHECK + 1))
	[ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' ')" = "1f8b" ] || fail "'$1' is not gzip"
	gzip -t "$1" 2>/dev/null || fail "'$1' is damaged gzip"
}
expect_rc 0 export -q "$K/modern.json" -o "$TMP/m.json.gz"
gz_ok "$TMP/m.json.gz"
expect_rc 0 export -q "$K/modern.json" -o "$TMP/m.json"
NCHECK=$((NCHECK + 1))
gzip -dc "$TMP/m.json.gz" | cmp -s - "$TMP/m.json" || fail "the .gz export holds other bytes"
expect_rc 0 analyze -q "$TMP/m.json.gz"
out_has "H100"
expect_rc 0 analyze -q "$K/modern.json" -o "$TMP/a.txt.gz"
gz_ok "$TMP/a.txt.gz"
expect_rc 0 analyze --json -q "$K/modern.json" -o "$TMP/a.json.gz"
gz_ok "$TMP/a.json.gz"
expect_rc 0 compare "$TMP/a.json.gz" "$TMP/a.json.gz" -o "$TMP/c.txt.gz"
gz_ok "$TMP/c.txt.gz"
expect_rc 0 report "$TMP/a.json.gz" -o "$TMP/r.html.gz"
gz_ok "$TMP/r.html.gz"
NCHECK=$((NCHECK + 1))
gzip -dc "$TMP/r.html.gz" | grep -q "<html" || fail "the page in r.html.gz is not HTML"
expect_rc 0 bench --runs 3 --warmup 0 --json -o "$TMP/b.json.gz" -- true
gz_ok "$TMP/b.json.gz"
expect_rc 0 compare "$TMP/b.json.gz" "$TMP/b.json.gz"
ls -a "$TMP" | grep -q "\.tmp\." && fail "a .gz write left a temporary file"
# a metrics timeline is written line by line as it is sampled: a gzip name is refused, not faked
expect_rc 1 top --no-gpu --record "$TMP/m.jsonl.gz" --count 1
err_has "name it without '.gz'"
[ ! -e "$TMP/m.jsonl.gz" ] || fail "top --record wrote plain text under a .gz name"
done_ok
