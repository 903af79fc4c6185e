#!/bin/bash
# SPDX-License-Identifier: MIT
# t0722-memsnap-report.sh - `gpuprof report SNAP.pickle`: one self-contained page (the
# static checks of reportpage.py) that headless Chromium draws without an error: per
# device the allocated curve (at most 1,000 points, its top the peak, the peak and the OOM
# marked), the top frames at the peak, the fragmentation classes and the OOM events, each
# as the gpuprof.memsnap/1 document has them; a snapshot of 30,000 trace entries keeps
# its curve under 1,000 points with the peak; a saved document draws the same page.
# Skips (77) only where Chromium cannot start.
. "$(dirname "$0")/lib.sh"
need python3
E="$GP_SRC_DIR/tests/e2e"
GEN="$GP_SRC_DIR/tests/memsnap_gen.py"
need_chromium
cd "$TMP" || exit 1

python3 "$GEN" snap.pickle --proto 4
expect_rc 0 report -q -o snap.html snap.pickle
expect_rc 0 analyze --json -o snap.json snap.pickle
expect_rc 0 report -q -o saved.html snap.json
# many entries: the curve is downsampled, the peak kept
python3 - <<'PY' || fail "a long snapshot"
import pickle
fr = [{"filename": "/home/u/loop.py", "line": 7, "name": "step"}]
tr, t = [], 0
for i in range(15000):
    t += 1
    tr.append({"action": "alloc", "addr": 4096 * (i % 64), "size": 1000 + (i * 7919) % 5000, "stream": 0, "time_us": t, "frames": fr})
    t += 1
    tr.append({"action": "free_completed", "addr": 4096 * (i % 64), "size": tr[-1]["size"], "stream": 0, "time_us": t, "frames": fr})
tr[20001]["size"] = 1 << 30  # one spike: an alloc at entry 20000 freed at 20001
tr[20000]["size"] = 1 << 30
pickle.dump({"segments": [], "device_traces": [tr]}, open("long.pickle", "wb"), protocol=5)
PY
expect_rc 0 report -q -o long.html long.pickle
expect_rc 0 analyze --json -o long.json long.pickle

NCHECK=$((NCHECK + 1))
for p in snap.html saved.html long.html; do
	python3 "$E/reportpage.py" static "$p" >static.txt || fail "static checks of $p: $(cat static.txt)"
done
NCHECK=$((NCHECK + 1))
python3 - "$E" <<'PY' || fail "the pages in Chromium (above)"
import json, sys
E = sys.argv[1]
sys.path.insert(0, E)
import cdp, reportpage

FACTS = r"""(function () {
  function q(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  var f = { state: document.body.getAttribute('data-gp-state'), view: document.body.getAttribute('data-gp-view'),
            error: document.getElementById('gp-error').textContent, sections: q('section.gp-sec').map(function (s) { return s.id; }),
            devices: {}, settings: {} };
  q('section[data-gp-device]').forEach(function (sec) {
    var d = { cards: {}, charts: [], frames: [], frag: [], ooms: q('[data-gp-oom]', sec).length };
    q('[data-gp-card]', sec).forEach(function (c) { d.cards[c.getAttribute('data-gp-card')] = c.querySelector('.gp-v').getAttribute('data-value'); });
    q('svg[data-gp-chart="memsnap-curve"]', sec).forEach(function (s) {
      var top = s.querySelector('text[data-axis="max"]');
      d.charts.push({ points: Number(s.getAttribute('data-points')), marks: q('[data-mark]', s).length,
                      top: top ? top.textContent : null, path: (s.querySelector('path.gp-line') || { getAttribute: function () { return ''; } }).getAttribute('d').length });
    });
    q('table[data-gp-table^="memsnap-frames-"] tbody tr', sec).forEach(function (r) {
      d.frames.push([r.querySelector('td[data-col="frame"]').getAttribute('data-value'),
                     JSON.parse(r.querySelector('td[data-col="bytes"]').getAttribute('data-value'))]);
    });
    q('table[data-gp-table^="memsnap-frag-"] tbody tr', sec).forEach(function (r) {
      d.frag.push([r.querySelector('td[data-col="class"]').getAttribute('data-value'),
                   JSON.parse(r.querySelector('td[data-col="free_bytes"]').getAttribute('data-value'))]);
    });
    f.devices[sec.getAttribute('data-gp-device')] = d;
  });
  q('[data-gp-setting]').forEach(function (e) { f.settings[e.getAttribute('data-gp-setting')] = e.textContent; });
  return JSON.stringify(f);
})()"""

def fmt_bytes(b):
    # the page's byte format for the axis (report.js fmtBytes)
    u = ["B", "KiB", "MiB", "GiB", "TiB"]
    i = 0
    while abs(b) >= 1024 and i < 4:
        b /= 1024.0
        i += 1
    return "%.0f B" % b if i == 0 else "%.1f %s" % (b, u[i])

for page, doc in (("snap.html", "snap.json"), ("saved.html", "snap.json"), ("long.html", "long.json")):
    r = cdp.run(page, width=1280, height=900, timeout=60, eval_expr=FACTS)
    assert r["state"] == "ok" and r["errors"] == [], (page, r["state"], r["errors"])
    f = json.loads(r["value"])
    assert f["view"] == "memsnap" and not f["error"], f
    assert "gp-memsnap-summary" in f["sections"], f["sections"]
    d = json.load(open(doc))
    assert sorted(f["devices"]) == sorted(str(x["device"]) for x in d["devices"]), (f["devices"].keys(), page)
    for dev in d["devices"]:
        g = f["devices"][str(dev["device"])]
        pk = dev["peak"]
        assert int(g["cards"]["peak_allocated"]) == pk["allocated_bytes"], (page, g["cards"])
        assert int(g["cards"]["reserved"]) == dev["reserved_bytes"]
        # the curve: at most 1,000 points, its top the peak, the peak and each OOM marked
        assert len(g["charts"]) == 1, g["charts"]
        c = g["charts"][0]
        assert c["points"] == len(dev["curve"]["points"]) <= 1000, (page, c)
        assert c["path"] > 0 and c["top"] == fmt_bytes(pk["allocated_bytes"]), (page, c, pk)
        assert c["marks"] == 1 + len(dev["ooms"]), (page, c, dev["ooms"])
        assert g["frames"][:len(pk["frames"])] == [[x["frame"], x["bytes"]] for x in pk["frames"]][:len(g["frames"])], (page, g["frames"])
        assert g["frames"], page
        assert sorted(g["frag"]) == sorted([x["class"], x["free_bytes"]] for x in dev["fragmentation"]), (page, g["frag"])
        assert g["ooms"] == len(dev["ooms"]), (page, g["ooms"])
    if page != "long.html":
        assert f["settings"]["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True", f["settings"]
    else:
        dev = d["devices"][0]
        assert dev["trace_entries"] == 30000 and dev["peak"]["allocated_bytes"] >= 1 << 30, dev["peak"]
        assert max(y for _, y in dev["curve"]["points"]) == dev["peak"]["allocated_bytes"]
    print(page, "ok")
PY
done_ok
