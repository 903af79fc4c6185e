#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0761-history-otava.sh - Apache Otava's published change points through the product: the
# Tigerbeetle series of Otava's tests/tigerbeetle_test.py (transcribed, with each test's
# options and expected indices, in tests/unit/test_cpd_otava.c: read from there, not copied)
# imported with `history import --csv`, then `history changes --otava --window W --max-pvalue P
# --min-magnitude M --json` for each of Otava's eleven test cases must list exactly Otava's
# indices, each naming the commit of its row. unit.cpd_otava checks the detector alone; this
# checks the options, the CSV path and the index mapping of the command on top; and the
# issue's setting without --otava (the GPU options on top) gives Otava's two points too.
. "$(dirname "$0")/lib.sh"
need python3
need_history_sqlite

python3 - "$GP_SRC_DIR/tests/unit/test_cpd_otava.c" "$TMP" <<'PY' || fail "cannot read Otava's cases"
import json, re, sys
src = open(sys.argv[1]).read()
series = re.search(r"tigerbeetle\[\] = \{(.*?)\};", src, re.S).group(1)
values = [float(v) for v in re.findall(r"[\d.]+", series)]
assert len(values) > 300, len(values)
block = re.search(r"cases\[\] = \{(.*?)\n\};", src, re.S).group(1)
cases = []
for m in re.finditer(r'\{\s*"(\w+)",\s*(\d+),\s*([\d.]+),\s*([\d.]+),\s*(\d+),\s*\{([^}]*)\}\s*\}', block):
    want = [int(x) for x in re.findall(r"\d+", m.group(6))]
    assert len(want) == int(m.group(5)), m.group(1)
    cases.append({"name": m.group(1), "window": int(m.group(2)), "p": m.group(3),
                  "mag": m.group(4), "want": want})
assert len(cases) == 11, [c["name"] for c in cases]
with open(sys.argv[2] + "/tb.csv", "w") as f:
    f.write("time,commit,tigerbeetle\n")
    for i, v in enumerate(values):
        f.write("%d,tb%03d,%g\n" % (1700000000 + 86400 * i, i, v))
json.dump(cases, open(sys.argv[2] + "/cases.json", "w"))
PY
DB="$TMP/o.sqlite"
expect_rc 0 history import --db "$DB" --csv "$TMP/tb.csv"
n=$(json_get "$TMP/cases.json" 'len(d)')
for i in $(seq 0 $((n - 1))); do
	w=$(json_get "$TMP/cases.json" "d[$i]['window']")
	p=$(json_get "$TMP/cases.json" "d[$i]['p']")
	m=$(json_get "$TMP/cases.json" "d[$i]['mag']")
	expect_rc 0 history changes --db "$DB" --otava --window "$w" --max-pvalue "$p" \
		--min-magnitude "$m" --json tigerbeetle
	python3 - "$OUT" "$TMP/cases.json" "$i" <<'PY' || fail "Otava's case differs (above)"
import json, sys
s = json.load(open(sys.argv[1]))
case = json.load(open(sys.argv[2]))[int(sys.argv[3])]
got = [c["index"] for c in s[0]["changes"]]
assert got == case["want"], (case["name"], got, case["want"])
assert all(c["kind"] == "step" and c["commit"] == "tb%03d" % c["index"] for c in s[0]["changes"])
assert s[0]["unstable"] is False and s[0]["threshold"] == float(case["mag"])
print(case["name"], "ok:", got if len(got) < 8 else "%d change points" % len(got))
PY
done
# the issue's setting without --otava (the options for GPU runs on top): the same two points
expect_rc 0 history changes --db "$DB" --window 30 --max-pvalue 0.01 --min-magnitude 0.05 \
	--json tigerbeetle
[ "$(json_get "$OUT" '[(c["kind"], c["index"]) for c in d[0]["changes"]]')" = \
	"[('step', 15), ('step', 71)]" ] || fail "the issue's setting: $(json_get "$OUT" \
	'[(c["kind"], c["index"]) for c in d[0]["changes"]]')"
done_ok
