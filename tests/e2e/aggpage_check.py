#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the aggregate page tests (t0504, t0505, t0507) share: the page's formats
as the terminal's (durations, p-values), a drawn page read through aggpage-dom.js
in headless Chromium, and the checks that hold for every aggregate document,
hand-written or made by `gpuprof aggregate`: each section present, the cards'
numbers the document's, a row per rank, the heatmap a row per rank and a bin per
bin with each rank's largest bin painted and its empty bins blank, the
stragglers and collectives in the document's order and numbers, the findings
(the warnings first) and the p-values shown from p_value_log10.

Importable only; the tests call check_page(doc, f) on what page() returned.
"""
import json
import math
import os

import cdp

HERE = os.path.dirname(os.path.abspath(__file__))
BLANK = [248, 250, 252]


def fmt_ns(ns):
    """The one duration policy of the terminal (src/lib/text/num.c)."""
    v = float(round(ns))
    a = abs(v)
    if a < 1e3:
        return "%.0f ns" % v
    units = [(1e3, "\u00b5s"), (1e6, "ms"), (1e9, "s")]
    i = 0
    while i < 2 and a >= units[i + 1][0]:
        i += 1
    x = v / units[i][0]
    a = abs(x)
    if a < 9.9995:
        return "%.3f %s" % (x, units[i][1])
    if a < 99.995:
        return "%.2f %s" % (x, units[i][1])
    if a < 999.95 or i == 2:
        return "%.1f %s" % (x, units[i][1])
    return "%.3f %s" % (x / 1e3, units[i + 1][1])


def fmt_rate(v):
    """text/num.c's gp__fmt_rate: four significant digits, a rate under 1 never "0.000"."""
    a = abs(v)
    dec = 3 if a < 9.9995 else 2 if a < 99.995 else 1 if a < 999.95 else 0
    if 0 < a < 0.99995:
        dec = 3
        while dec < 15 and a * 10 ** dec < 999.95:
            dec += 1
    return "%.*f" % (dec, v)


def p_of(p, lg):
    """The p-value a straggler has: p_value_log10 where p_value's six decimals are too few."""
    if isinstance(lg, (int, float)) and lg <= 0 and (not isinstance(p, (int, float)) or p < 1e-4):
        return 10.0 ** lg
    return p if isinstance(p, (int, float)) else None


def fmt_p(v):
    """Four decimals; under 1e-4 the decade it is below ("< 1e-13"); an exact 0 "< 1e-6"."""
    if v is None:
        return "-"
    if v >= 1e-4:
        return "%.4f" % v
    if v > 0:
        return "< 1e-%d" % max(4, math.ceil(-math.log10(v) - 1e-9) - 1)
    return "< 1e-6"


def bins_of(rows):
    """Per heatmap row: its largest bin (the first one), and its first empty bin (-1: none)."""
    mx = [max(range(len(w)), key=lambda b: (w[b], -b)) for w in rows]
    em = [next((b for b, v in enumerate(w) if v == 0), -1) for w in rows]
    return mx, em


def page(html, shot=None, args=None, timeout=90, before=None):
    """Draws @html in Chromium (a full-page screenshot to @shot) and returns what
    aggpage-dom.js read, after the JavaScript statement @before (a click);
    asserts a clean draw: no console error, request or dialog."""
    dom = open(os.path.join(HERE, "aggpage-dom.js")).read()
    expr = dom + "(" + json.dumps(args or {}) + ")"
    if before:
        expr = "(function () { " + before + "; return (" + expr + "); })()"
    r = cdp.run(html, width=1280, height=900, timeout=timeout, eval_expr=expr,
                screenshot=shot, full_page=bool(shot), max_height=9000)
    f = r["value"]
    assert r["waited_ok"] and r["state"] == "ok", (html, r["state"], f and f["error"])
    assert r["errors"] == [], (html, r["errors"])
    assert r["requests"] == [] and r["dialogs"] == [], (html, r["requests"], r["dialogs"])
    return f


def heatmap_args(d):
    """aggpage-dom.js's arguments: where to read each heatmap row, by rank and by total wait."""
    hm = d["heatmap"]
    mx, em = bins_of(hm["wait_ns"])
    order = sorted(range(len(hm["ranks"])), key=lambda k: (-sum(hm["wait_ns"][k]), k))
    return {"maxBin": mx, "emptyBin": em, "maxBinByWait": [mx[k] for k in order],
            "emptyBinByWait": [em[k] for k in order]}


def check_doc(d):
    """The document itself: a heatmap row per rank, each summing to that rank's wait."""
    hm, ranks = d["heatmap"], {r["rank"]: r for r in d["ranks"]}
    assert sorted(hm["ranks"]) == sorted(ranks) and len(hm["wait_ns"]) == len(hm["ranks"]), hm["ranks"][:8]
    assert len({len(w) for w in hm["wait_ns"]}) == 1, "heatmap rows of different lengths"
    for r, w in zip(hm["ranks"], hm["wait_ns"]):
        assert all(v >= 0 for v in w), (r, min(w))
        # the bins are whole nanoseconds: each rounds at most half a nanosecond
        assert abs(sum(w) - ranks[r]["wait_ns"]) <= len(w) / 2 + 1, (r, sum(w), ranks[r]["wait_ns"])


def check_page(d, f, top=50):
    """What every aggregate page shows of document @d (f: page()'s value with heatmap_args(d))."""
    ranks, hm, n = d["ranks"], d["heatmap"], len(d["ranks"])
    assert f["kind"] == "aggregate", f["kind"]
    want = ["gp-summary", "gp-findings", "gp-ranks", "gp-heatmap", "gp-stragglers", "gp-collectives"]
    assert list(f["sections"]) == want and set(f["sections"].values()) == {"1"}, f["sections"]
    c = f["cards"]
    assert c["ranks"]["value"] == str(n), c["ranks"]
    sm = d["table"]["step_mean_ns"]
    assert float(c["slowest"]["value"]) == sm["max"] and c["slowest"]["text"] == fmt_ns(sm["max"]), c["slowest"]
    top_s = d["stragglers"][0]
    assert c["straggler"]["value"] == str(top_s["rank"]) and fmt_ns(top_s["blame_ns"]) in c["straggler"]["sub"], c["straggler"]
    assert float(c["wait"]["value"]) == sum(r["wait_ns"] for r in ranks), c["wait"]
    assert (c["desync"]["value"] == "yes") == bool(d["desync"]), c["desync"]
    assert (f["desync"] is not None) == bool(d["desync"]), f["desync"]
    if d["desync"]:
        ds = d["desync"]
        assert f["desync"]["first"] and f["desync"]["kind"] == ds["kind"], f["desync"]
        assert ds["detail"] in f["desync"]["text"], f["desync"]
    assert [x["id"] for x in f["findings"]] == ["aggregate-warning"] * len(d.get("warnings") or []) + [x["id"] for x in d["findings"]], f["findings"]
    # the evidence: p-values from their exponent, never "0"; outliers by rank
    for fd in d["findings"]:
        ev = fd.get("evidence") or {}
        shown = {k: t for i, k, t in f["evidence"] if i == fd["id"]}
        if "p_value" in ev:
            assert shown["p_value"] == fmt_p(p_of(ev["p_value"], ev.get("p_value_log10"))), (fd["id"], shown)
            assert "p_value_log10" not in shown, shown
        if fd["id"] == "rank-outlier":
            # rank_R.metric beside median.metric, each shown as a line of its own
            rk = [k for k in ev if k.startswith("rank_")]
            assert rk and all(k in shown for k in rk), (rk, shown)
    # the per-rank table: a row per rank (the first 50), min/max/mean/median from "table"
    rt = f["ranks"]
    assert rt["ranks"] == [r["rank"] for r in ranks][:top], rt["ranks"][:10]
    assert rt["afterAll"] == n, rt
    for x in rt["foot"]:
        assert float(x["step_mean"]["value"]) == sm[x["label"]] and x["step_mean"]["text"] == fmt_ns(sm[x["label"]]), x
    outl = sorted((r["rank"], m) for r in ranks[:top] for m in r["outliers"])
    assert sorted(tuple(x) for x in rt["outliers"]) == outl, (rt["outliers"][:10], outl[:10])
    # the heatmap: a row per rank, a bin per bin; painted where the rank waited, blank where not
    h = f["heatmap"]
    assert h["rows"] == n == len(hm["ranks"]) and h["bins"] == len(hm["wait_ns"][0]), h
    assert h["max"] == max(max(w) for w in hm["wait_ns"]) and h["legendMax"] == fmt_ns(h["max"]), h
    _, em = bins_of(hm["wait_ns"])
    for k, px in enumerate(h["byRank"]):
        assert (px["max"] != BLANK) == (max(hm["wait_ns"][k]) > 0), (k, px)
        if em[k] >= 0:
            assert px["empty"] == BLANK, (k, px)
    # the stragglers: bars and table in the document's order (by blame), p from its exponent
    st = d["stragglers"]
    assert [b[0] for b in f["blame"]] == [x["rank"] for x in st][:32], f["blame"]
    assert [x[:2] for x in f["stragglers"]] == [[x["rank"], x["blame_ns"]] for x in st][:top], f["stragglers"][:5]
    for got, x in zip(f["stragglers"], st):
        assert got[2] == fmt_p(p_of(x["p_value"], x.get("p_value_log10"))), (got, x)
    # the collectives: every (group, collective) in the document's order, busbw in GB/s
    cs = d["collectives"]
    assert [x[:2] for x in f["collectives"]] == [[x["pg"], x["name"]] for x in cs][:top], f["collectives"]
    for got, x in zip(f["collectives"], cs):
        assert got[2] == x["busbw_gbps"] and got[3] == fmt_rate(x["busbw_gbps"]) + " GB/s", (got, x)
