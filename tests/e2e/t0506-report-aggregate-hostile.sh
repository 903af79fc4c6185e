#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0506-report-aggregate-hostile.sh - an aggregate from a hostile or unusual document, drawn
# by `gpuprof report`: host names, process group descriptions, collective names, causes,
# finding texts, the desynchronisation's detail and the warnings carrying markup and script
# ("</script>", "<img onerror>", "<svg onload>") are shown as text, never run: the page
# passes the static checks and draws with no dialog, request or console error, and each
# string is in the page's text verbatim. The p-values as the page shows them: 0.5 "0.5000",
# 0.00005 "< 1e-4", 0 with p_value_log10 -20.5 "< 1e-20", 0 without it (an older document)
# "< 1e-6", null "-", and the p column sorts by the value. A cause that is no string, and a
# desynchronisation of unknown rank, draw without an error; process groups "10", "2", "9"
# sort as numbers. A rank with every metric null
# shows "-" in each cell; a collective with a rate under 1 GB/s is never "0.00". Skips (77)
# where Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
cd "$TMP" || exit 1

python3 "$E/aggpage_doc.py" base.json --ranks 8 --desync || fail "aggdoc"
python3 - <<'PY' || fail "the hostile document"
import json
d = json.load(open("base.json"))
H = ["</script><script>alert(1)</script>", "<img src=x onerror=alert(2)>", "\"'><svg onload=alert(3)>",
     "a&amp;b <b>bold</b>", "__proto__", "rank\u202e5 \u00b5s \U0001f600"]
for k, r in enumerate(d["ranks"]):
    r["host"] = H[k % len(H)]
    r["gpu_model"] = H[(k + 1) % len(H)]
for k in d["ranks"][7]:
    if k not in ("rank", "host", "outliers"):
        d["ranks"][7][k] = None
for k, c in enumerate(d["collectives"]):
    c["pg_desc"], c["name"] = H[k % len(H)], H[(k + 2) % len(H)]
d["collectives"][0]["busbw_gbps"] = 0.001316
for k, c in enumerate(d["collectives"]):  # group ids past 9: sorted as numbers
    c["pg"] = str([10, 2, 9, 1][k % 4])
ps = [(0.5, None), (0.00005, -4.3), (0, -20.5), (0, None), (None, None)]
while len(d["stragglers"]) < len(ps):  # more stragglers, less blame each
    s = dict(d["stragglers"][-1])
    s["rank"] = min({r["rank"] for r in d["ranks"]} - {x["rank"] for x in d["stragglers"]})
    s["blame_ns"] = s["blame_ns"] // 2
    d["stragglers"].append(s)
for k, s in enumerate(d["stragglers"][:len(ps)]):
    s["p_value"], lg = ps[k]
    s.pop("p_value_log10", None)
    if lg is not None:
        s["p_value_log10"] = lg
    s["cause"], s["cause_detail"] = H[k % len(H)], H[(k + 3) % len(H)]
for k, f in enumerate(d["findings"]):
    f["title"], f["suggestion"] = H[k % len(H)], H[(k + 4) % len(H)]
    f["evidence"] = {"detail": H[(k + 5) % len(H)], "p_value": 0, "p_value_log10": -30.25}
d["stragglers"][0]["cause"] = 42  # no string: no cause shown, nothing thrown
d["stragglers"][1]["cause"] = "data_loading"
d["desync"]["detail"] = H[0] + H[1]
d["desync"]["rank"] = None
d["desync"]["collective"] = H[2]
d["warnings"] = [H[1], {"text": H[0]}]
json.dump(d, open("hostile.json", "w"))
json.dump(H, open("strings.json", "w"))
PY
expect_rc 0 report -q -o hostile.html hostile.json
NCHECK=$((NCHECK + 1))
probs=$(python3 "$E/reportpage.py" static hostile.html) || fail "static checks"
[ -z "$probs" ] || fail "hostile.html: $probs"

need_chromium
NCHECK=$((NCHECK + 1))
python3 - "$E" <<'PY' || fail "the hostile page in Chromium (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import aggpage_check as ac
d, H = json.load(open("hostile.json")), json.load(open("strings.json"))
f = ac.page("hostile.html", None, ac.heatmap_args(d))
for s in H:
    assert s in f["text"], ("not shown verbatim", s)
assert d["desync"]["detail"] in f["desync"]["text"], f["desync"]
# the p-values as shown, and the p column sorted by the value (blame order in the document)
want = {s["rank"]: ac.fmt_p(ac.p_of(s["p_value"], s.get("p_value_log10"))) for s in d["stragglers"]}
got = {r: p for r, _, p in f["stragglers"]}
assert [got[s["rank"]] for s in d["stragglers"][:5]] == ["0.5000", "< 1e-4", "< 1e-20", "< 1e-6", "-"], got
assert got == want, (got, want)
assert [t for i, k, t in f["evidence"] if k == "p_value"] == ["< 1e-30"] * len(d["findings"]), f["evidence"]
assert "log10" not in f["text"], "p_value_log10 shown beside its p"
# the collective under 1 GB/s, and the rank of nulls
assert [c[3] for c in f["collectives"] if c[2] == 0.001316] == ["0.001316 GB/s"], f["collectives"]
assert "0.00 GB/s" not in f["text"]
# a cause that is no string is left out; "data_loading" reads as words; an unknown desync rank "-"
assert f["cards"]["straggler"]["sub"].endswith("of its collectives"), f["cards"]["straggler"]
assert "\u00b7 data loading" in f["text"], "data_loading not as words"
assert f["cards"]["desync"]["sub"] == "rank -, seq %d" % d["desync"]["seq"], f["cards"]["desync"]
PY
NCHECK=$((NCHECK + 1))
python3 "$E/cdp.py" --eval '(function () {
  function rows(n) { return Array.prototype.slice.call(document.querySelectorAll("table[data-gp-table=\"" + n + "\"] tbody tr")); }
  function col(tr, c) { return tr.querySelector("td[data-col=\"" + c + "\"]"); }
  var r7 = rows("agg-ranks").filter(function (tr) { return col(tr, "rank").textContent === "7"; })[0];
  var nulls = ["steps", "step_mean_ns", "wait_ns", "peak_memory_bytes", "gpu_clock_mhz", "clock_offset_ns"].map(function (c) { return col(r7, c).textContent; });
  var th = document.querySelector("table[data-gp-table=\"agg-stragglers\"] th[data-col=\"p_value\"]");
  th.click(); th.click();
  var asc = rows("agg-stragglers").map(function (tr) { return col(tr, "p_value").getAttribute("data-value"); });
  var pg = document.querySelector("table[data-gp-table=\"agg-collectives\"] th[data-col=\"pg\"]");
  pg.click();
  var pgs = rows("agg-collectives").map(function (tr) { return col(tr, "pg").textContent; });
  return { nulls: nulls, sort: th.getAttribute("aria-sort"), asc: asc, pgs: pgs };
})()' hostile.html >cdp.json || fail "cdp"
python3 - <<'PY' || fail "sorting and nulls (above)"
import json
r = json.load(open("cdp.json"))
v = r["value"]
assert r["state"] == "ok" and r["errors"] == [] and r["dialogs"] == [], r
assert v["nulls"] == ["-"] * 6, v["nulls"]
assert v["sort"] == "ascending", v
assert v["pgs"] == sorted(v["pgs"], key=int) and len(v["pgs"]) >= 3, v["pgs"]
ps = [float(x) for x in v["asc"] if x != "null"]
assert ps == sorted(ps) and v["asc"][-1] == "null" and ps[:2] == [0, 10 ** -20.5], v["asc"]
PY
done_ok
