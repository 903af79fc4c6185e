#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0507-report-job-view.sh - `gpuprof report` of a distributed job's ranks (a directory of
# the traces bench/gen-ranks.py writes, the ranks' analyze reports, the traces named one by
# one) draws each rank's analysis and, with it, the job's view, made from the page's own
# analysis (nothing read twice): the page model's "aggregate" is what `gpuprof aggregate --json`
# writes of the same inputs (the ranks named by the files the analysis read), and the page's "all ranks"
# view (the selector's first option, the link in the summary) draws it as the page of an
# aggregate is drawn (aggpage_check.py), the selector then back on a rank. One rank, --rank
# and reports without the collectives ledger have no job view; the last says why in
# "aggregate_note" and on the page, and the page of the ranks is still written. Skips (77)
# where Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
cd "$TMP" || exit 1

python3 "$GP_SRC_DIR/bench/gen-ranks.py" --jobs 2 --ranks 8 --hosts 2 --straggler 5 \
	--host-offset-us node-1=1234.5 --out job >/dev/null || fail "gen-ranks"
mkdir reps old || fail "mkdir"
for f in job/*.json; do
	b=$(basename "$f" .pt.trace.json)
	"$GPUPROF" analyze --json -o "reps/$b.json" "$f" || fail "analyze $f"
done
python3 - <<'PY' || fail "reports without the ledger"
import glob, json, os
for f in glob.glob("reps/*.json"):
    d = json.load(open(f))
    for r in d["ranks"]:
        r.pop("collectives", None)
    json.dump(d, open(os.path.join("old", os.path.basename(f)), "w"))
PY
expect_rc 0 aggregate -q --json -o job.agg.json job
expect_rc 0 aggregate -q --json -o reps.agg.json reps
expect_rc 0 report -q -o job.html job
expect_rc 0 report -q -o reps.html reps
expect_rc 0 report -q -o listed.html job/node-0_*.json
expect_rc 0 report -q -o one.html "$(ls job/*.json | head -1)"
expect_rc 0 report -q --rank 3 -o rank3.html job
expect_rc 0 report -q -o old.html old
NCHECK=$((NCHECK + 1))
python3 - "$E" <<'PY' || fail "the page models (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import reportpage
def model(name):
    return reportpage.page_data(open(name + ".html", encoding="utf-8").read())
for name, agg in (("job", "job.agg.json"), ("reps", "reps.agg.json")):
    p, a = model(name), json.load(open(agg))
    assert p["kind"] == "analyze" and len(p["doc"]["ranks"]) == 8, (name, p["kind"])
    # made from the page's own analysis: its ranks name the files the analysis read (the
    # traces the reports came from), else it is what `gpuprof aggregate` writes
    files = {r["rank"]: r["file"] for r in p["doc"]["ranks"]}
    assert "aggregate_note" not in p, (name, p.get("aggregate_note"))
    assert [x["file"] for x in p["aggregate"]["inputs"]] == [files[x["rank"]] for x in p["aggregate"]["inputs"]]
    assert [x["file"] for x in p["aggregate"]["ranks"]] == [files[x["rank"]] for x in p["aggregate"]["ranks"]]
    for x in p["aggregate"]["inputs"] + p["aggregate"]["ranks"] + a["inputs"] + a["ranks"]:
        x.pop("file")
    assert p["aggregate"] == a, name
    assert p["aggregate"]["stragglers"][0]["rank"] == 5, p["aggregate"]["stragglers"][0]
p = model("listed")  # the four ranks of node-0, named one by one
assert len(p["aggregate"]["ranks"]) == 4 and p["aggregate"]["world_size"] == 8, p["aggregate"]["ranks"]
for name in ("one", "rank3"):
    p = model(name)
    assert "aggregate" not in p and "aggregate_note" not in p, name
p = model("old")
assert "aggregate" not in p and len(p["doc"]["ranks"]) == 8, list(p)
assert "without the collectives ledger" in p["aggregate_note"] and "job/" in p["aggregate_note"], p["aggregate_note"]
PY

need_chromium
NCHECK=$((NCHECK + 1))
python3 - "$E" <<'PY' || fail "the job's view in Chromium (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import aggpage_check as ac, cdp, reportpage
a = json.load(open("job.agg.json"))
# the selector lists the ranks in the analysis's order (its files')
order = ["rank %d" % r["rank"] for r in reportpage.page_data(open("job.html", encoding="utf-8").read())["doc"]["ranks"]]
assert sorted(order) == ["rank %d" % k for k in range(8)], order
# the link in rank 0's summary draws the job: the aggregate's page
f = ac.page("job.html", None, ac.heatmap_args(a), before="document.querySelector('[data-gp-job]').click()")
assert f["kind"] == "analyze" and f["view"] == "job", (f["kind"], f["view"])
f["kind"] = "aggregate"
ac.check_page(a, f)
# the selector: the job first, then each rank; back on a rank, its page
r = cdp.run("job.html", timeout=60, eval_expr="""(function () {
  var sel = document.getElementById('gp-rank'), out = {};
  out.options = Array.prototype.map.call(sel.options, function (o) { return o.textContent; });
  out.first = { view: document.body.getAttribute('data-gp-view'), value: sel.value };
  out.note = document.querySelector('[data-gp-job-note]').textContent;
  sel.value = '-1'; sel.dispatchEvent(new Event('change'));
  sel = document.getElementById('gp-rank');
  out.job = { view: document.body.getAttribute('data-gp-view'), value: sel.value, heatmap: !!document.querySelector('canvas[data-gp-heatmap]') };
  sel.value = '2'; sel.dispatchEvent(new Event('change'));
  out.back = { view: document.body.getAttribute('data-gp-view'), value: document.getElementById('gp-rank').value, heatmap: !!document.querySelector('canvas[data-gp-heatmap]') };
  return out;
})()""")
v = r["value"]
assert r["state"] == "ok" and r["errors"] == [] and r["requests"] == [], r
assert v["options"] == ["all ranks: the job"] + order, v["options"]
assert v["first"] == {"view": "rank", "value": "0"}, v["first"]
assert v["note"].startswith("The job: all 8 ranks together"), v["note"]
assert v["job"] == {"view": "job", "value": "-1", "heatmap": True}, v["job"]
assert v["back"] == {"view": "rank", "value": "2", "heatmap": False}, v["back"]
# without the ledger: no job option, the reason on the page
r = cdp.run("old.html", timeout=60, eval_expr="""(function () {
  return { options: Array.prototype.map.call(document.getElementById('gp-rank').options, function (o) { return o.textContent; }),
           note: document.querySelector('[data-gp-job-note]').textContent };
})()""")
v = r["value"]
assert r["state"] == "ok" and r["errors"] == [], r
assert sorted(v["options"]) == sorted(order), v["options"]
assert v["note"].startswith("No view of the job\u2019s 8 ranks together: ") and "collectives ledger" in v["note"], v["note"]
PY
done_ok
