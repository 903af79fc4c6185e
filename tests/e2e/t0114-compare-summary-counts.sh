#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0114-compare-summary-counts.sh - compare's first line counts what its
# table shows: every "inconclusive" row, the totals with one value a side
# (no test) included. One-step traces of two GPUs read "inconclusive: 1
# metric could not be decided" above 7 inconclusive rows. Real traces of
# ../shared/traces; skipped without them.
. "$(dirname "$0")/lib.sh"
need python3
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
[ -d "$T/tracelens" ] || { echo "skip: no ../shared/traces"; exit 77; }

check() {
	expect_rc "$1" compare --json "$2" "$3"
	NCHECK=$((NCHECK + 1))
	python3 - "$OUT" <<'PY' || fail "the summary does not count the table's rows (above)"
import json, re, sys
d = json.load(open(sys.argv[1]))
ms = [m for g in d["groups"] for m in g["metrics"]]
tested = sum(1 for m in ms if m["verdict"] == "inconclusive" and m["n_base"] is not None)
single = sum(1 for m in ms if m["verdict"] == "inconclusive" and m["n_base"] is None)
s = d["summary"]
if d["verdict"] == "inconclusive" and tested:
    assert re.match(r"inconclusive: %d metrics? could not" % tested, s), s
if single and d["verdict"] in ("inconclusive", "same") and tested + single > 0:
    assert re.search(r"\b%d totals? with one value a side changed" % single, s), (single, s)
print(s)
PY
}
check 0 "$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" \
	"$T/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
check 0 "$T/hta/trace_filter_sampled_rank-0.json.gz" "$T/hta/trace_filter_sampled_rank-1.json.gz"
expect_rc 0 compare "$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" \
	"$T/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
NCHECK=$((NCHECK + 1))
head -n 1 "$OUT" | grep -q "; 6 totals with one value a side changed by 5% or more (no test)$" ||
	fail "the text's first line: $(head -n 1 "$OUT")"
done_ok
