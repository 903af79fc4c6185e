#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 22's acceptance on generated ranks (bench/gen-ranks.py and its ground truth): `gpuprof
# aggregate` names the known straggler first and recovers every host's clock offset within 10 us
# (exact collective ends, and ends 0..3 us apart over 4 hosts), its busbw is the formula's, and a
# generated desynchronisation is reported at the first divergent collective (missing; renumbered;
# without Seq). Each rank is analysed on its own as its node would; the traces are also given to
# aggregate directly. Skips (77) while this build has no aggregate command or no ledger.
. "$(dirname "$0")/lib.sh"
need python3
gen="$GP_SRC_DIR/bench/gen-ranks.py"

run aggregate --json "$TMP/no-such-dir"
if grep -q "not available" "$ERR"; then
	echo "skip: this gpuprof has no aggregate command"
	exit 77
fi

# gen_case NAME ARGS...: ranks in $TMP/NAME/traces, truth in $TMP/NAME/truth.json, one report per
# rank in $TMP/NAME/reports, the aggregate of the reports in $TMP/NAME/agg.json
gen_case() {
	local name=$1 f
	shift
	mkdir -p "$TMP/$name/reports"
	python3 "$gen" "$@" --out "$TMP/$name/traces" >"$TMP/$name/truth.json" || fail "gen-ranks.py $* failed"
	for f in "$TMP/$name"/traces/*; do
		expect_rc 0 analyze --json -o "$TMP/$name/reports/${f##*/}.report.json" "$f"
	done
	if [ ! -s "$TMP/.ledger-checked" ]; then
		grep -q '"ledger"' "$TMP/$name"/reports/*.report.json ||
			{ echo "skip: analyze writes no collectives ledger"; exit 77; }
		echo yes >"$TMP/.ledger-checked"
	fi
	expect_rc 0 aggregate --json "$TMP/$name/reports"
	cp "$OUT" "$TMP/$name/agg.json"
}

# check NAME: aggregate's answer against the truth
check() {
	python3 - "$TMP/$1/agg.json" "$TMP/$1/truth.json" <<'PY' || fail "aggregate of '$1' disagrees with the truth"
import json, sys
agg, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert agg["schema"] == "gpuprof.aggregate/1"
assert [r["rank"] for r in agg["ranks"]] == list(range(truth["ranks"])), [r["rank"] for r in agg["ranks"]]
# clocks: within 10 us of the truth (add clock_offset_ns to a rank's times to get node-0's clock);
# not after a renumbered desync, whose later collectives pair wrongly (aggregate says so)
ds = truth["desync"]
for r in agg["ranks"] if not (ds and ds["renumbered"]) else []:
    want = truth["clock_offset_ns"]["node-%d" % (r["rank"] // truth["gpus_per_host"])]
    assert abs(r["clock_offset_ns"] - want) <= 10000, ("clock offset", r["rank"], r["clock_offset_ns"], want)
s = truth["straggler"]
if s:
    first = agg["stragglers"][0]
    assert first["rank"] == s["rank"], ("straggler", first, s)
    assert first["significant"] is True and first["last_count"] == s["last_count"], (first, s)
    assert abs(first["blame_ns"] - s["blame_ns"]) <= 10000 * s["last_count"], (first["blame_ns"], s["blame_ns"])
# per process group and collective: count, bytes, transfer; busbw = bytes / transfer * factor
# (after a renumbered desync the matching itself differs from the truth's collectives)
got = {(c["pg"], c["name"]): c for c in agg["collectives"]}
for t in truth["collective_totals"] if not (ds and ds["renumbered"]) else []:
    c = got[(t["pg"], t["name"])]
    n = t["group_size"]
    f = 2 * (n - 1) / n if t["name"] == "allreduce" else (n - 1) / n
    assert c["count"] == t["count"] and c["bytes"] == t["bytes"], (c, t)
    assert abs(c["transfer_ns"] - t["transfer_ns"]) <= 10000 * t["count"], (c, t)
    assert abs(c["factor"] - f) < 1e-9 and c["cross_host"] == t["cross_host"], (c, t)
    assert abs(c["busbw_gbps"] - c["bytes"] / c["transfer_ns"] * f) <= 1e-6 * c["busbw_gbps"], c
    assert abs(c["algbw_gbps"] * f - c["busbw_gbps"]) <= 1e-6 * c["busbw_gbps"], c
# desynchronisation: the first divergent collective, or none
want = truth["desync"] and truth["desync"]["report"]
if want:
    ds = agg["desync"]
    assert ds and (ds["rank"], ds["pg"], ds["seq"], ds["kind"]) == (
        truth["desync"]["rank"], truth["desync"]["pg"], want["seq"], want["kind"]), (ds, truth["desync"])
    assert ds["collective"] == truth["desync"]["collective"] and ds["expected"] == truth["desync"]["expected"], ds
else:
    assert agg["desync"] is None, agg["desync"]
print("ok:", sys.argv[1])
PY
}

gen_case strag --ranks 8 --hosts 2 --straggler 5 --straggler-ms 5 --host-offset-us node-1=1234.5
check strag
# the traces themselves: the same answer
expect_rc 0 aggregate --json "$TMP/strag/traces"
cp "$OUT" "$TMP/strag/agg.json"
check strag

gen_case data --ranks 8 --hosts 2 --straggler 2 --straggler-cause data_loading --host-offset-us 1=-777.25
check data
gen_case jitter --ranks 16 --hosts 4 --straggler 9 --end-jitter-us 3 --seed 5
check jitter
gen_case missing --ranks 8 --hosts 2 --desync 3:42
check missing
gen_case renumber --ranks 8 --hosts 2 --desync 3:42 --desync-renumber
check renumber
gen_case noseq --ranks 8 --hosts 2 --desync 6:2:24 --no-seq
check noseq
echo ok
