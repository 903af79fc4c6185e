#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# aggregate reads each rank report pruned (util/json-prune.h: only the keys it needs are built,
# the kernels, cpu_ops, timeline... are validated and skipped): on real reports the pruned read
# gives the very records the whole parse gives. Generated jobs (8 ranks modern, the older
# Kineto format, without Seq, with a desynchronisation, gzip'd traces) and the real two-rank
# pair of ../shared/traces when present are analysed one report per rank, then unit.json_prune's
# differential check (whole vs pruned tree, rank by rank) runs over them, and aggregate reads
# every job, also gzip'd reports and reports over 256 KiB (their "schema" past the sniffed prefix). Skips (77) without the unit test binary or python3.
. "$(dirname "$0")/lib.sh"
need python3
B="${GP_BUILD_DIR:-$(dirname "$GPUPROF")}"
prune="$B/tests/test_json_prune"
[ -x "$prune" ] || { echo "skip: no $prune"; exit 77; }
gen="$GP_SRC_DIR/bench/gen-ranks.py"

# job NAME ARGS...: the reports of a generated job in $TMP/NAME/reports, checked
job() {
	local name=$1 f
	shift
	mkdir -p "$TMP/$name/reports"
	python3 "$gen" "$@" --out "$TMP/$name/traces" >/dev/null || fail "gen-ranks.py $* failed"
	for f in "$TMP/$name"/traces/*; do
		expect_rc 0 analyze --json -o "$TMP/$name/reports/${f##*/}.json" "$f"
	done
	differential "$name"
}

# differential NAME: whole and pruned read of every report of NAME agree; aggregate reads them
differential() {
	GP_PRUNE_REPORTS="$TMP/$1/reports" "$prune" >"$TMP/$1/prune.log" 2>&1 ||
		{ cat "$TMP/$1/prune.log" >&2; fail "$1: the pruned read differs from the whole parse"; }
	grep -q "OK.*test_reports_dir" "$TMP/$1/prune.log" || fail "$1: test_reports_dir did not run"
	expect_rc 0 aggregate --json "$TMP/$1/reports"
	cp "$OUT" "$TMP/$1/agg.json"
}

job modern --ranks 8 --hosts 2 --straggler 5 --host-offset-us node-1=1234.5
job old --ranks 8 --hosts 2 --old-format --straggler 3
job noseq --ranks 8 --hosts 2 --no-seq --desync 6:2:24
job desync --ranks 8 --hosts 2 --desync 3:42 --gzip

# reports over 256 KiB, whose "schema" (after "ranks") lies past what the sniffer reads: read
job long --ranks 2 --steps 60 --events-per-step 400
[ "$(find "$TMP/long/reports" -size +256k | wc -l)" = 2 ] || fail "the long reports are not over 256 KiB"
python3 -c 'import json, sys; assert [r["rank"] for r in json.load(open(sys.argv[1]))["ranks"]] == [0, 1]' \
	"$TMP/long/agg.json" || fail "the long reports give other ranks"

# aggregate sniffs a gpuprof document no further than its first keys, then reads it whole: a
# trace whose first keys look like a report's ("gpuprof_version", "ranks") is still a trace
mkdir -p "$TMP/mixed"
cp "$TMP/modern/reports"/*.json "$TMP/mixed/"
f=$(cd "$TMP/modern/traces" && ls | head -n 1)
rm "$TMP/mixed/$f.json"
python3 - "$TMP/modern/traces/$f" "$TMP/mixed/$f" <<'PY' || fail "cannot write the odd trace"
import json, sys
out = {"gpuprof_version": "0", "ranks": [{"pad": "x" * 8000}]}
out.update(json.load(open(sys.argv[1])))
json.dump(out, open(sys.argv[2], "w"))
PY
expect_rc 0 aggregate --json "$TMP/mixed"
python3 -c 'import json, sys; assert len(json.load(open(sys.argv[1]))["ranks"]) == 8' "$OUT" ||
	fail "a trace with a report's first keys is not read as a trace"

# gzip'd reports: the same document as the plain ones
mkdir -p "$TMP/gz"
cp -r "$TMP/modern/reports" "$TMP/gz/reports"
gzip "$TMP/gz/reports"/*.json
for f in "$TMP/gz/reports"/*.gz; do mv "$f" "${f%.gz}"; done
expect_rc 0 aggregate --json "$TMP/gz/reports"
sed 's|/gz/reports/|/modern/reports/|g' "$OUT" | cmp -s - "$TMP/modern/agg.json" ||
	fail "gzip'd reports give another aggregate"

src="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/hta"
if [ -f "$src/trace_filter_sampled_rank-1.json.gz" ]; then
	mkdir -p "$TMP/real/reports"
	for r in 0 1; do
		expect_rc 0 analyze --json -o "$TMP/real/reports/rank-$r.json" \
			"$src/trace_filter_sampled_rank-$r.json.gz"
	done
	differential real
else
	echo "note: no ../shared/traces: the real pair not checked"
fi
echo ok
