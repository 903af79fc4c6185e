#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0766-history-page-cases.sh - the history page (gp_report_history_html(), called through
# ctypes) of hand-made series lists that a database rarely gives, opened in headless Chromium
# (historypage.py, history-dom.js): no series (the page says so), one series of one point, a
# list with 600 points, noisy points off the clean points' scale, a step regression, a trend
# and an improvement, markup in the metric, testbed, commits and title, an unstable series,
# and a series made without points. Each draws with no console error and no request; every
# chart's line passes through exactly its clean points, noisy points are drawn apart, each
# change point is marked at its index in its direction's colour, and hovering over a point
# shows its commit, run, value and noise reason. t0765 does the same through `gpuprof
# history report`. Skips (77) where Chromium cannot start or in a sanitizer build (python3
# cannot load its library).
. "$(dirname "$0")/lib.sh"
need_python_binding
need_chromium
E="$GP_SRC_DIR/tests/e2e"
LIB="$B/libgpuprof.so"
[ -e "$LIB" ] || { echo "skip: no $LIB"; exit 77; }
cd "$TMP" || exit 1

python3 "$E/historypage.py" cases . || fail "historypage.py cases"
for k in none one all nopoints; do
	NCHECK=$((NCHECK + 1))
	python3 "$E/historypage.py" write "$LIB" $k.json $k.html "cases <$k> & \"q\"" ||
		fail "the page of $k"
	python3 "$E/historypage.py" $k.html "" "$ART/t0766-$k.png" >check.txt 2>&1 ||
		fail "the page of $k in Chromium: $(cat check.txt)"
done
# the title is text: in the title element and the heading, escaped
NCHECK=$((NCHECK + 1))
grep -q '<title>gpuprof report: cases &lt;all&gt; &amp; &quot;q&quot;</title>' all.html ||
	fail "the title is not escaped"
done_ok
