#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0504-report-aggregate.sh - `gpuprof report` of gpuprof.aggregate/1 documents (written by
# aggpage_doc.py as `gpuprof aggregate --json` writes them: 8 ranks, and 1,024 ranks with a
# desynchronisation), and of a compare of two aggregates. Each page passes the static
# checks (it loads nothing), carries the document whole, and in headless Chromium draws
# ("ok") without a console error or a request: the per-rank table has a row per rank
# (50 first, all after "show all"), the min/max/mean/median rows of the document's
# "table" and the robust outliers highlighted, and sorts on a click; the wait heatmap has
# one canvas row per rank and bin per bin, each rank's largest bin painted and an empty
# bin left blank (read back from the canvas's pixels), also after ordering the rows by
# total wait; the legend's scale ends at the largest bin; the stragglers have blame bars
# in blame order and a table; the collectives table holds every (group, collective); the
# desynchronisation is the first thing of the summary; the findings and warnings are
# listed. A malformed aggregate is refused naming the file. Skips (77) where Chromium
# cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
cd "$TMP" || exit 1

python3 "$E/aggpage_doc.py" agg8.json --ranks 8 || fail "aggdoc 8"
python3 "$E/aggpage_doc.py" agg1024.json --ranks 1024 --straggler 700 --desync --bins 120 || fail "aggdoc 1024"
python3 "$E/aggpage_doc.py" worse.json --ranks 8 --seed 2 --scale 1.2 || fail "aggdoc worse"
expect_rc 0 report -q -o agg8.html agg8.json
expect_rc 0 report -q -o agg1024.html agg1024.json
"$GPUPROF" compare --json agg8.json worse.json >cmp.json
[ $? -eq 3 ] || fail "compare of a 20% slower aggregate is no regression"
expect_rc 0 report -q -o cmp.html cmp.json
for p in agg8 agg1024 cmp; do
	NCHECK=$((NCHECK + 1))
	probs=$(python3 "$E/reportpage.py" static $p.html) || fail "static checks of $p.html"
	[ -z "$probs" ] || fail "$p.html: $probs"
done
# the page model: kind aggregate, the document whole, the hosts and GPUs in the header
NCHECK=$((NCHECK + 1))
python3 - "$E" <<'EOF' || fail "the page model"
import json, sys
sys.path.insert(0, sys.argv[1])
import reportpage
for n, hosts in ((8, "node-0"), (1024, "128 hosts: node-0 \u2026 node-127")):
    p = reportpage.page_data(open("agg%d.html" % n, encoding="utf-8").read())
    d = json.load(open("agg%d.json" % n))
    assert p["kind"] == "aggregate" and p["doc"] == d, n
    assert p["env"]["host"] == hosts, p["env"]
    assert p["env"]["gpus"] == ["%d \u00d7 NVIDIA H100 80GB HBM3" % n], p["env"]
    assert p["perfetto"] is None
EOF

# a malformed aggregate, and one of a schema report does not know, are refused naming the file
python3 -c 'import json; json.dump({"schema": "gpuprof.aggregate/1", "ranks": [{"rank": "x"}]}, open("bad.json", "w"))'
expect_rc 1 report -q -o bad.html bad.json
err_has "'bad.json': ranks[0].rank is not an integer"
python3 -c 'import json; json.dump({"schema": "gpuprof.aggregate/1", "ranks": 3}, open("bad2.json", "w"))'
expect_rc 1 report -q -o bad.html bad2.json
err_has "'bad2.json'"

need_chromium
NCHECK=$((NCHECK + 1))
python3 - "$E" "$ART" <<'EOF' || fail "the pages in Chromium (above)"
import json, os, statistics, sys
E, ART = sys.argv[1], sys.argv[2]
sys.path.insert(0, E)
import aggpage_check as ac
from aggpage_check import BLANK, fmt_ns, bins_of

def page(name, args):
    return ac.page(name + ".html", os.path.join(ART, "t0504-%s.png" % name), args)

def check_aggregate(n):
    d = json.load(open("agg%d.json" % n))
    ranks, hm = d["ranks"], d["heatmap"]
    mx, em = bins_of(hm["wait_ns"])
    order = sorted(range(len(hm["ranks"])), key=lambda k: (-sum(hm["wait_ns"][k]), k))
    f = page("agg%d" % n, {"maxBin": mx, "emptyBin": em, "maxBinByWait": [mx[k] for k in order],
                            "emptyBinByWait": [em[k] for k in order]})
    assert f["kind"] == "aggregate", f["kind"]
    want = ["gp-summary", "gp-findings", "gp-ranks", "gp-heatmap", "gp-stragglers", "gp-collectives"]
    assert list(f["sections"]) == want and set(f["sections"].values()) == {"1"}, f["sections"]
    # the summary: ranks, the slowest rank, the top straggler, the desynchronisation first
    c = f["cards"]
    assert c["ranks"]["value"] == str(n), c["ranks"]
    assert float(c["slowest"]["value"]) == d["table"]["step_mean_ns"]["max"], c["slowest"]
    assert c["slowest"]["text"] == fmt_ns(d["table"]["step_mean_ns"]["max"]), c["slowest"]
    top = d["stragglers"][0]
    assert c["straggler"]["value"] == str(top["rank"]) and fmt_ns(top["blame_ns"]) in c["straggler"]["sub"], c["straggler"]
    assert float(c["wait"]["value"]) == sum(r["wait_ns"] for r in ranks), c["wait"]
    if d["desync"]:
        ds = d["desync"]
        assert f["desync"] and f["desync"]["first"] and f["desync"]["kind"] == ds["kind"], f["desync"]
        assert "rank %d lacks allreduce seq 57 of process group 0" % ds["rank"] in f["desync"]["text"], f["desync"]
        assert ds["detail"] in f["desync"]["text"], f["desync"]
        assert c["desync"]["value"] == "yes", c["desync"]
    else:
        assert f["desync"] is None and c["desync"]["value"] == "none", (f["desync"], c["desync"])
    # the warnings first, then the findings in their order
    assert [x["id"] for x in f["findings"]] == ["aggregate-warning"] * len(d.get("warnings", [])) + [x["id"] for x in d["findings"]], f["findings"]
    # the per-rank table: a row per rank, by rank; the table's rows under them; the outliers
    rt = f["ranks"]
    assert rt["ranks"] == [r["rank"] for r in ranks][:50], rt["ranks"][:10]
    assert f["tables"]["agg-ranks"]["count"] == "%d of %d" % (min(50, n), n), f["tables"]["agg-ranks"]
    assert rt["afterAll"] == n and rt["moreHidden"] == (n <= 50), rt
    assert [x["label"] for x in rt["foot"]] == ["min", "max", "mean", "median"], rt["foot"]
    for x in rt["foot"]:
        assert float(x["step_mean"]["value"]) == d["table"]["step_mean_ns"][x["label"]], x
        assert x["step_mean"]["text"] == fmt_ns(d["table"]["step_mean_ns"][x["label"]]), x
    cols = f["tables"]["agg-ranks"]["cols"]
    assert all(m in cols for m in d["table"]), (cols, list(d["table"]))
    outl = sorted((r["rank"], m) for r in ranks if r["rank"] < 50 or n <= 50 for m in r["outliers"])
    assert outl and sorted(tuple(x) for x in rt["outliers"]) == outl, (rt["outliers"][:10], outl[:10])
    waits = sorted((r["wait_ns"] for r in ranks), reverse=True)[:3]
    assert rt["byWaitSort"] == "descending" and rt["byWait"] == waits, rt["byWait"]
    # the heatmap: a row per rank, a bin per bin, each row's largest bin painted, empty bins blank
    h = f["heatmap"]
    assert h["rows"] == len(hm["ranks"]) == n and h["bins"] == len(hm["wait_ns"][0]), h
    assert h["max"] == max(max(w) for w in hm["wait_ns"]), h
    assert h["legendMax"] == fmt_ns(h["max"]) and h["axis"] >= 3, h
    assert h["height"] == 2 + n * h["rowHeight"], h
    assert h["boxScrolls"] == (n > 500), h
    for k, px in enumerate(h["byRank"]):
        w = hm["wait_ns"][k]
        if max(w) > 0:
            assert px["max"] != BLANK, (k, px)
        else:
            assert px["max"] == BLANK, (k, px)
        if em[k] >= 0:
            assert px["empty"] == BLANK, (k, px)
    # the darkest cell is the largest bin: the sum of its channels is the smallest of the row's samples
    kmax = max(range(n), key=lambda k: max(hm["wait_ns"][k]))
    assert sum(h["byRank"][kmax]["max"]) == min(sum(p["max"]) for p in h["byRank"]), h["byRank"][kmax]
    # ordered by total wait: the straggler (no wait) is the last row, blank
    assert h["order"] == "wait", h
    assert h["firstByWait"][-1]["max"] == BLANK and h["firstByWait"][0]["max"] != BLANK, h["firstByWait"][-1]
    # the stragglers: blame bars longest first, and the table
    st = d["stragglers"]
    assert [b[0] for b in f["blame"]] == [x["rank"] for x in st][:32], f["blame"]
    assert [b[1] for b in f["blame"]] == [x["blame_ns"] for x in st][:32], f["blame"]
    assert f["blame"][0][2] > f["blame"][-1][2], f["blame"]
    assert [x[:2] for x in f["stragglers"]] == [[x["rank"], x["blame_ns"]] for x in st], f["stragglers"]
    assert f["stragglers"][0][2] == ac.fmt_p(ac.p_of(st[0]["p_value"], st[0].get("p_value_log10"))), f["stragglers"]
    # the collectives: every (group, collective), by wait, busbw in GB/s
    cs = d["collectives"]
    assert [x[:2] for x in f["collectives"]] == [[x["pg"], x["name"]] for x in cs], f["collectives"]
    for got, x in zip(f["collectives"], cs):
        assert got[2] == x["busbw_gbps"] and got[3] == ac.fmt_rate(x["busbw_gbps"]) + " GB/s", (got, x)
    return f

check_aggregate(8)
check_aggregate(1024)

# a compare of two aggregates: the job's lines, the collectives and one table of the ranks
c = json.load(open("cmp.json"))
f = page("cmp", {})
assert f["kind"] == "compare" and f["cards"]["verdict"]["value"] == c["verdict"] == "regression", f["cards"]
job = [g for g in c["groups"] if g["name"] == "job"][0]
assert [m["metric"] for m in job["metrics"]] == f["compareMetrics"][:len(job["metrics"])], f["compareMetrics"]
rg = [g for g in c["groups"] if g.get("base_rank") is not None]
assert len(rg) == 8 and f["tables"]["compare-ranks"]["rows"] == 8, f["tables"].get("compare-ranks")
want = sorted(((g["base_rank"], [m for m in g["metrics"] if m["metric"] == "step_mean"][0]["delta_pct"]) for g in rg), key=lambda x: (-x[1], x[0]))
assert [x[0] for x in f["compareRanks"]] == [x[0] for x in want], (f["compareRanks"], want)
# the GPU idle change in percentage points, as compare's text prints it
idle = {g["base_rank"]: [m for m in g["metrics"] if m["metric"] == "gpu_idle_pct"][0]["delta"] for g in rg}
assert [x[2] for x in f["compareRanks"]] == ["%+.1f pp" % idle[x[0]] for x in f["compareRanks"]], f["compareRanks"]
print("aggregate pages ok; screenshots in", ART)
EOF
done_ok
