#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0765-history-report.sh - `gpuprof history report`: the page of a database opened in
# headless Chromium (historypage.py, history-dom.js). The database: a generated CSV of 120
# runs (a 3 % step in step time, a 5 % drop in peak memory, flat series, a column name and a
# commit with markup) imported with `history import --csv`, a one-row CSV on another testbed
# (a series of one point), and run directories added with `history add` whose metrics
# timelines show throttling in two of them (noisy points). The page draws with no console
# error and no request; it holds the series `history changes --json` gives, with their
# points; every series has its chart, whose line passes through exactly its clean points;
# the change points are marked where `history changes --json` says; hovering over a point
# shows its commit; a database without series gives a page that says so. Skips (77) where
# Chromium cannot start or the build has no SQLite.
. "$(dirname "$0")/lib.sh"
need python3
need_gen_trace
need_chromium
need_history_sqlite
E="$GP_SRC_DIR/tests/e2e"
DB="$TMP/h.sqlite"
cd "$TMP" || exit 1

# --- the database
python3 - <<'EOF' || fail "the CSV files"
import hashlib, random
rnd = random.Random(3)
with open("runs.csv", "w") as f:
    f.write("time,commit,step_time_ns,throughput_per_s,memory_peak_bytes,kernel<b>&x_ns\n")
    for i in range(120):
        sha = hashlib.sha1(b"%d" % i).hexdigest() if i != 7 else "v1.0-<script>&"
        st = 1.2e6 * (1.03 if i >= 60 else 1) * (1 + rnd.gauss(0, 0.003))
        tp = 5000 * (1 + rnd.gauss(0, 0.003))
        mem = 8e9 * (0.95 if i >= 90 else 1) * (1 + rnd.gauss(0, 0.001))
        k = 3e5 * (1 + rnd.gauss(0, 0.002))
        f.write("2026-%02d-%02dT12:00:00Z,%s,%.0f,%.3f,%.0f,%.1f\n"
                % (1 + i // 28, 1 + i % 28, sha, st, tp, mem, k))
with open("one.csv", "w") as f:
    f.write("time,commit,fps\n2026-06-01,c0ffee1234567,61.5\n")
EOF
expect_rc 0 history import --db "$DB" --csv runs.csv --testbed ci-pool
expect_rc 0 history import --db "$DB" --csv one.csv --testbed "lab <one>"

# run directories: one trace, a metrics timeline each; "hot" ones throttled (sw_thermal)
"$GEN" --steps 3 --layers 2 -o t.json >/dev/null 2>&1 || fail "gen_trace"
. "$E/history-timeline.sh"
for i in 1 2 3 4 5 6; do
	reasons=0
	[ $i = 3 ] || [ $i = 5 ] && reasons=32
	history_timeline "r$i" t.json 1980 $reasons 1 || fail "timeline r$i"
	expect_rc 0 history add --db "$DB" --time $((1780000000 + i * 3600)) \
		--commit "$(printf '%040d' $i)" "r$i"
done
expect_rc 0 history add --db "$DB" --time 1780030000 --commit '<b>c&"x</b>' r1

# --- the page, and what history changes says of the same database
expect_rc 0 history changes --db "$DB" --json
cp "$OUT" changes.json
expect_rc 0 history report --db "$DB" -o page.html
[ -s page.html ] || fail "no page.html"
NCHECK=$((NCHECK + 1))
python3 "$E/historypage.py" page.html changes.json "$ART/t0765-history.png" >check.txt 2>&1 ||
	fail "the page in Chromium: $(cat check.txt)"
NCHECK=$((NCHECK + 1))
python3 - "$E" <<'EOF' || fail "the page's data (above)"
import json, sys
sys.path.insert(0, sys.argv[1])
import reportpage
series = reportpage.page_data(open("page.html", encoding="utf-8").read())["doc"]["series"]
changes = json.load(open("changes.json"))
# the series history changes gives, in its order, each with its points
assert [dict((k, v) for k, v in s.items() if k != "points") for s in series] == changes
by = {(s["metric"], s["testbed"]): s for s in series}
assert [c["index"] for c in by[("step_time_ns", "ci-pool")]["changes"]] == [60], by[("step_time_ns", "ci-pool")]["changes"]
mem = by[("memory_peak_bytes", "ci-pool")]["changes"]
assert [c["index"] for c in mem] == [90] and mem[0]["regression"] is False, mem
assert len(by[("fps", "lab <one>")]["points"]) == 1
assert ("kernel<b>&x_ns", "ci-pool") in by
# the run directories' series: 7 points, two of them noisy (throttled)
st = [s for s in series if s["metric"] == "step_time.mean"]
assert len(st) == 1 and st[0]["count"] == 7 and st[0]["noisy"] == 2, st
noisy = [p for p in st[0]["points"] if p["noisy"]]
assert all("sw_thermal" in p["noise_reason"] for p in noisy), noisy
assert st[0]["points"][-1]["commit"] == '<b>c&"x</b>'
EOF

# --- a database without series (made by an import of no row): a page that says so
printf 'time,commit,m\n' >"$TMP/none.csv"
expect_rc 0 history import --db "$TMP/empty.sqlite" --csv "$TMP/none.csv"
expect_rc 0 history list --db "$TMP/empty.sqlite"
expect_rc 0 history report --db "$TMP/empty.sqlite" -o none.html
NCHECK=$((NCHECK + 1))
python3 "$E/historypage.py" none.html >check.txt 2>&1 || fail "the empty page: $(cat check.txt)"
done_ok
