# SPDX-License-Identifier: MIT
"""historypage.py - the checks of a history page in headless Chromium (t0765), standard
library only.

    python3 historypage.py PAGE.html [CHANGES.json] [SCREENSHOT.png]
    python3 historypage.py cases DIR        writes DIR/NAME.json, series lists of hand-made
                                            cases (no series, one point, 600 points with a
                                            step, noisy points and a trend, markup in every
                                            string, unstable, no points)
    python3 historypage.py write LIB SERIES.json OUT.html TITLE
                                            gp_report_history_html() of LIB (libgpuprof.so,
                                            through ctypes) on SERIES, into OUT

Opens PAGE (what `gpuprof history report` or gp_report_history_html() wrote) through
cdp.py and history-dom.js, and checks it against the series embedded in it and, when
given, against CHANGES (`gpuprof history changes --json` of the same database):

- the page's static checks (reportpage.py: a CSP that fetches nothing, the page's two
  scripts, nothing that loads a resource), it draws ("ok") with no console error, no
  request and no dialog;
- the summary table has a row per series; with no series the page says so;
- every series has its chart drawn: an SVG whose line passes through exactly its clean
  points (one path, an M then an L per point), its noisy points drawn apart at their
  indices, a change point mark at each change's index with its kind and direction, the
  same as CHANGES lists;
- hovering over a point shows its short commit, its run and its value; over a noisy
  one its reason; the tooltip goes when the mouse leaves.

Prints the number of series checked; exits 1 with the failed assertion otherwise.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
import reportpage  # noqa: E402


def short(c):
    """The commit as the page shows it (history.js's shortCommit)."""
    if all(ch in "0123456789abcdefABCDEF" for ch in c) and len(c) >= 9:
        return c[:8]
    return c


def clean(p):
    return p.get("noisy") is not True and isinstance(p.get("value"), (int, float))


def hover_targets(series):
    """[[series, index], ...]: per series the first clean point with a commit, the
    last point and the first noisy point."""
    out = []
    for i, s in enumerate(series):
        pts = s.get("points") or []
        if not pts:
            continue
        ks = [next((k for k, p in enumerate(pts) if clean(p) and p.get("commit")), None),
              len(pts) - 1, next((k for k, p in enumerate(pts) if p.get("noisy") is True), None)]
        for k in dict.fromkeys(k for k in ks if k is not None):
            out.append([i, k])
    return out


def check(page, changes=None, screenshot=None):
    text = open(page, encoding="utf-8").read()
    probs = reportpage.static_problems(text)
    assert not probs, probs
    data = reportpage.page_data(text)
    assert data["schema"] == "gpuprof.page/1" and data["kind"] == "history", data.get("kind")
    series = data["doc"]["series"]
    targets = hover_targets(series)
    dom = open(os.path.join(HERE, "history-dom.js"), encoding="utf-8").read()
    r = cdp.run(page, width=1280, height=900, timeout=120,
                eval_expr=dom + "(" + json.dumps({"hover": targets}) + ")",
                screenshot=screenshot, full_page=bool(screenshot), max_height=9000)
    f = r["value"]
    assert r["waited_ok"] and r["state"] == "ok", (r["state"], f and f["error"])
    assert r["errors"] == [], r["errors"]
    assert r["requests"] == [], ("requests", r["requests"])
    assert r["dialogs"] == [], r["dialogs"]
    assert f["kind"] == "history" and f["scripts"] == 2, f
    assert f["generated"], "no generation time in the header"
    assert f["title"] == data["title"], (f["title"], data["title"])
    assert f["series"] == len(series), (f["series"], len(series))
    assert len(f["rows"]) == min(len(series), 50), len(f["rows"])
    if not series:
        assert f["sections"]["gp-hseries"]["has"] == "0", f["sections"]
        assert "No series" in f["sections"]["gp-hseries"]["note"], f["sections"]
        assert f["charts"] == [], f["charts"]
        return 0
    by_key = {}
    if changes is not None:
        for s in changes:
            by_key[(s["metric"], s["testbed"])] = s
        assert len(by_key) == len(series), (len(by_key), len(series))
    assert len(f["charts"]) == len(series), (len(f["charts"]), len(series))
    for i, s in enumerate(series):
        c = f["charts"][i]
        name = "%s on %s" % (s["metric"], s["testbed"])
        assert c["series"] == i and c["metric"] == s["metric"] and c["testbed"] == s["testbed"], (name, c)
        assert c["heading"].startswith(s["metric"]), (name, c["heading"])
        if "points" not in s:
            # made without points: the header, and a line that says why there is no chart
            assert not c["svg"] and c["nochart"] and "No points" in c["nochart"], (name, c)
            continue
        pts = s["points"]
        assert c["svg"] and c["drawn"], (name, "no chart drawn")
        nclean = sum(1 for p in pts if clean(p))
        assert c["n"] == len(pts) == s["count"], (name, c["n"], len(pts), s["count"])
        assert c["clean"] == nclean == s["clean"], (name, c["clean"], nclean, s["clean"])
        assert c["pathPoints"] == nclean and c["pathMoves"] == (1 if nclean else 0), (name, c["pathPoints"], nclean)
        noisy = [k for k, p in enumerate(pts) if p.get("noisy") is True]
        assert c["noisy"] == noisy and len(noisy) == s["noisy"], (name, c["noisy"], noisy)
        want = [(ch["index"], ch["kind"], ch["regression"]) for ch in s["changes"]]
        got = [(m["index"], m["kind"], m["regression"]) for m in c["marks"]]
        assert got == want, (name, got, want)
        for m, ch in zip(c["marks"], s["changes"]):
            assert ("gp-cp-bad" if ch["regression"] else "gp-cp-good") in " ".join(m["lines"]), (name, m)
            assert (ch["kind"] == "trend") == any("gp-cp-trend" in x for x in m["lines"]), (name, m)
            if ch.get("commit"):
                assert short(ch["commit"]) in m["title"], (name, m["title"])
        if s.get("unstable"):
            assert c["status"] == "unstable" and not s["changes"], (name, c["status"])
        if changes is not None:
            cs = by_key[(s["metric"], s["testbed"])]
            assert [ch["index"] for ch in cs["changes"]] == [m["index"] for m in c["marks"]], (name, "marks differ from history changes")
            assert cs["unstable"] == s["unstable"] and cs["clean"] == s["clean"], name
    for (i, k), hv in zip(targets, f["hover"]):
        p = series[i]["points"][k]
        assert hv and hv["shown"] and hv["index"] == k, ((i, k), hv)
        assert hv["hiddenAfter"], ((i, k), "the tooltip stays after the mouse left")
        assert "run %d" % p["run_id"] in hv["text"], ((i, k), hv["text"])
        if p.get("commit"):
            assert "commit " + short(p["commit"]) in hv["text"], ((i, k), p["commit"], hv["text"])
        else:
            assert "commit unknown" in hv["text"], ((i, k), hv["text"])
        if p.get("noisy") is True:
            assert "noisy: " + (p.get("noise_reason") or "no reason given") in hv["text"], ((i, k), hv["text"])
        for ch in series[i]["changes"]:
            if ch["index"] == k:
                assert "step " in hv["text"] or "trend " in hv["text"], ((i, k), hv["text"])
    return len(series)


T0 = 1790000000 * 10**9
DAY = 86400 * 10**9
EVIL = "</script><script>alert(1)</script>"


def _sha(i):
    import hashlib
    return hashlib.sha1(b"commit %d" % i).hexdigest()


def _points(vals, noisy=(), commit=_sha):
    return [{"run_id": i + 1, "time_ns": T0 + i * DAY, "commit": commit(i), "branch": "main",
             "value": v, "noisy": i in noisy,
             "noise_reason": ("throttled (power_cap) in 3 of 20 samples" if i in noisy else None),
             "source": None} for i, v in enumerate(vals)]


def _change(kind, index, before, after, regression, commit=None, n_after=30):
    """A change point as gp_history_changes() makes it; a trend's before and after are its
    fitted line's ends, without deviations"""
    rel = (after - before) / before
    trend = kind == "trend"
    return {"kind": kind, "index": index, "run_id": index + 1, "commit": commit,
            "time_ns": T0 + index * DAY,
            "before": {"mean": before, "sd": None if trend else before * 0.003, "n": 0 if trend else 30},
            "after": {"mean": after, "sd": None if trend else after * 0.003, "n": n_after}, "rel_change": rel,
            "magnitude": abs(rel), "pvalue": 1e-9, "steppiness": 0.9 if kind == "step" else None,
            "regression": regression}


def _series(metric, testbed, unit, better, pts, changes, noise=0.003, unstable=False):
    clean = [p for p in pts if not p["noisy"]]
    last = pts[-1] if pts else {}
    return {"metric": metric, "testbed": testbed, "unit": unit, "better": better,
            "count": len(pts), "clean": len(clean), "noisy": len(pts) - len(clean),
            "noise": noise, "threshold": 0.02, "unstable": unstable,
            "last": {k: last.get(k) for k in ("run_id", "time_ns", "commit", "value")},
            "changes": changes, "points": pts}


def cases():
    """{name: series list}: what a database rarely gives but the page must draw."""
    import random
    rnd = random.Random(7)
    n = 600
    step = [1e6 * (1.03 if i >= 300 else 1.0) * (1 + rnd.gauss(0, 0.003)) for i in range(n)]
    noisy = {5, 299, 301, 599}
    for k in noisy:
        step[k] *= 1.4  # a throttled run, off the clean points' scale
    big = _series("step_time.mean", "host=a;gpu=NVIDIA H100 80GB HBM3 x8;driver=550.54.15;cuda=12.4",
                  "ns", "lower", _points(step, noisy),
                  [_change("step", 300, 1e6, 1.03e6, True, _sha(300))])
    creep = [4e9 * (1 + 0.001 * max(0, i - 40)) * (0.97 if i >= 60 else 1) for i in range(120)]
    trend = _series("memory.peak_bytes", "csv", "bytes", "lower", _points(creep),
                    [_change("step", 60, 4.08e9, 3.96e9, False), _change("trend", 60, 3.96e9, 4.19e9, True, n_after=60)])
    evil = _series("kernel/" + EVIL + "/total_ns", "host=\"><img src=x onerror=alert(2)>&amp;", "ms",
                   "lower", _points([3.0, 3.1, 2.9, 3.0, 2.2, 2.1, 2.2],
                                    commit=lambda i: EVIL if i % 2 else "<!-- & ' \u2028"),
                   [_change("step", 4, 3.0, 2.17, False, EVIL)])
    one = _series("throughput.items_per_s", "csv", "/s", "higher", _points([1234.5]), [], noise=None)
    shaky = _series("gpu.busy_pct", "csv", "%", "higher",
                    _points([50 + rnd.gauss(0, 8) for _ in range(40)], commit=lambda i: None), [],
                    noise=0.16, unstable=True)
    nopts = _series("step_time.p95", "csv", "ns", "lower", [], [])
    nopts.update(count=3, clean=3)
    del nopts["points"]
    return {"none": [], "one": [one], "all": [trend, big, evil, one, shaky], "nopoints": [nopts]}


def write(lib, series_path, out, title):
    """gp_report_history_html() of the library at @p lib on the JSON at @p series_path."""
    import ctypes
    g = ctypes.CDLL(lib)
    g.gp_value_parse.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    g.gp_report_history_html.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.POINTER(ctypes.c_size_t)]
    g.gp_value_free.argtypes = [ctypes.c_void_p]
    g.gp_free.argtypes = [ctypes.c_void_p]
    g.gp_last_error.restype = ctypes.c_char_p
    text = open(series_path, "rb").read()
    v, html, n = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_size_t()
    if g.gp_value_parse(text, len(text), ctypes.byref(v), None):
        raise SystemExit("%s: %s" % (series_path, g.gp_last_error().decode()))
    rc = g.gp_report_history_html(v, title.encode(), ctypes.byref(html), ctypes.byref(n))
    g.gp_value_free(v)
    if rc:
        raise SystemExit("gp_report_history_html: %d %s" % (rc, g.gp_last_error().decode()))
    with open(out, "wb") as f:
        f.write(ctypes.string_at(html, n.value))
    g.gp_free(html)


def main(argv):
    if len(argv) == 3 and argv[1] == "cases":
        for name, lst in cases().items():
            with open(os.path.join(argv[2], name + ".json"), "w", encoding="utf-8") as f:
                json.dump(lst, f, ensure_ascii=False)
        return 0
    if len(argv) == 6 and argv[1] == "write":
        write(argv[2], argv[3], argv[4], argv[5])
        return 0
    if len(argv) < 2 or len(argv) > 4:
        sys.stderr.write(__doc__)
        return 2
    changes = None
    if len(argv) >= 3 and argv[2]:
        with open(argv[2], encoding="utf-8") as f:
            changes = json.load(f)
    n = check(argv[1], changes, argv[3] if len(argv) == 4 else None)
    print("%d series checked" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
