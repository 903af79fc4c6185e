#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0769-history-report-memory.sh - `history report` of a whole database is made series by
# series: 300 series of 500 points (a page of ~25 MB) take less memory than three times the
# page plus 100 MB (holding every series' tree at once took ~1.5 MB a series, ~450 MB here),
# and the page holds every series, in order, as `history show --json '*'` gives them. The
# memory bound is not checked under a sanitizer (its allocator keeps freed memory a while).
. "$(dirname "$0")/lib.sh"
need python3
need_history_sqlite

python3 - "$TMP/h.csv" <<'PY'
import random, sys
rng = random.Random(3)
n = 300
with open(sys.argv[1], "w") as f:
    f.write("time,commit," + ",".join("kernel/k%03d/total_ns" % i for i in range(n)) + "\n")
    for r in range(500):
        f.write("%d,c%04d," % (1700000000 + r * 3600, r) + ",".join(
            "%.1f" % (1e6 * (1 + 0.003 * rng.gauss(0, 1)) * (1.05 if r > 400 and i % 3 == 0 else 1))
            for i in range(n)) + "\n")
PY
expect_rc 0 history import --db "$TMP/h.sqlite" --csv "$TMP/h.csv" --testbed pool
expect_rc 0 history show --json --db "$TMP/h.sqlite" '*'
mv "$OUT" "$TMP/show.json"
NCHECK=$((NCHECK + 1))
python3 - "$GPUPROF" "$TMP" "${GP_SANITIZED:-0}" <<'PY' || fail "the page (above)"
import html, json, os, re, resource, subprocess, sys
gp, tmp, sanitized = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
page = os.path.join(tmp, "p.html")
r = subprocess.run([gp, "history", "report", "--db", os.path.join(tmp, "h.sqlite"), "-o", page],
                   capture_output=True, text=True)
assert r.returncode == 0, r.stderr
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
size = os.path.getsize(page)
text = open(page, encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="gp-data">(.*?)</script>', text, re.S)
assert m, "no data in the page"
data = json.loads(m.group(1))
want = json.load(open(os.path.join(tmp, "show.json")))
assert len(data["doc"]["series"]) == 300, len(data["doc"]["series"])
assert data["doc"]["series"] == want, "the page's series differ from show --json's"
print("report: page %.1f MB, peak RSS %.1f MB" % (size / 1e6, rss / 1e6))
if not sanitized:
    assert rss < 3 * size + 100e6, "peak RSS %.0f MB for a page of %.0f MB" % (rss / 1e6, size / 1e6)
PY
done_ok
