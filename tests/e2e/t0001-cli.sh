#!/bin/bash
# SPDX-License-Identifier: MIT
# t0001-cli.sh - the command table, help, version and `analyze` on tiny traces.
. "$(dirname "$0")/lib.sh"
need python3

# -- the command table
expect_rc 2
out_has "analyze"
out_has "aggregate"
expect_rc 0 help
out_has "analyze"
out_has "version"
expect_rc 0 --help
out_has "usage: gpuprof"
expect_rc 2 no-such-command
err_has "'no-such-command' is not a gpuprof command"
expect_rc 2 --no-such-option
for c in bench compare report aggregate; do
	expect_rc 2 "$c"
	expect_rc 0 help "$c"
	out_has "gpuprof-$c"
	expect_rc 0 "$c" -h
	out_has "usage: gpuprof $c"
done

expect_rc 0 help top
out_has "gpuprof-top"
expect_rc 0 help run
out_has "gpuprof-run"
expect_rc 2 run
err_has "no command given"
expect_rc 0 top -h
out_has "--listen"

# -- help and -h
expect_rc 0 help analyze
out_has "--salvage"
out_has "docs/report-schema.md"
expect_rc 0 analyze -h
out_has "usage: gpuprof analyze"
expect_rc 0 analyze --help
out_has "--compat"
expect_rc 2 help no-such-command
expect_rc 0 help help
expect_rc 0 help version
expect_rc 2 analyze
err_has "no trace given"
expect_rc 2 analyze --top x "$DATA/tiny.json"
err_has "--top"
expect_rc 2 analyze --compat bogus "$DATA/tiny.json"
expect_rc 2 analyze --bogus "$DATA/tiny.json"

# -- version
expect_rc 0 version
out_has "gpuprof "
expect_rc 0 --version
out_has "gpuprof "
expect_rc 0 version --build-options
out_has "gzip:"
out_has "injected tracer:"
out_has "cuda toolkit headers:"
out_has "nvml:"
out_has "sanitizers:"
out_has "build type:"
expect_rc 2 version --bogus

# -- analyze, human
expect_rc 0 analyze "$DATA/tiny.json"
out_has "== rank 0"
out_has "GPU time"
out_has "Top GPU kernels"
out_has "ampere_sgemm_128x64_nn"
out_has "ProfilerStep#1"
out_has "Findings"
out_has "µs"
no_width_over 100 "$OUT"
expect_rc 0 analyze "$DATA/cpu-only.json"
out_has "No GPU activity"
expect_rc 0 analyze -q --top 1 --compat hta --threads 1 -- "$DATA/tiny.json"

# -- analyze --json
expect_rc 0 analyze --json "$DATA/tiny.json" "$DATA/cpu-only.json"
json_ok "$OUT"
cp "$OUT" "$TMP/stdout.json"
[ "$(json_get "$OUT" 'd["schema"]')" = "gpuprof.analyze/1" ] || fail "schema"
[ "$(json_get "$OUT" 'len(d["ranks"])')" = 2 ] || fail "two ranks"
[ "$(json_get "$OUT" 'd["ranks"][0]["gpu"]["window_ns"]')" = 184000 ] || fail "window_ns"
[ "$(json_get "$OUT" 'd["ranks"][0]["kernels"][0]["name"]')" = ampere_sgemm_128x64_nn ] ||
	fail "top kernel"
ids=$(json_get "$OUT" '" ".join(f["id"] for f in d["ranks"][0]["findings"])')
for id in fp32-gemm-no-tc gpu-idle dataloader sync-in-step pageable-copies; do
	case " $ids " in *" $id "*) ;; *) fail "finding '$id' missing from: $ids" ;; esac
done
[ "$(json_get "$OUT" 'd["ranks"][1]["findings"][0]["id"]')" = no-gpu ] || fail "no-gpu"
expect_rc 0 analyze --json --rank 0 "$DATA/tiny.json"
json_ok "$OUT"

# -- -o writes atomically and leaves no temp file
mkdir "$TMP/o"
expect_rc 0 analyze --json -o "$TMP/o/report.json" "$DATA/tiny.json" "$DATA/cpu-only.json"
out_empty
cmp -s "$TMP/o/report.json" "$TMP/stdout.json" || fail "-o output differs from stdout"
expect_rc 0 analyze -o "$TMP/o/report.txt" "$DATA/tiny.json"
grep -qF "Top GPU kernels" "$TMP/o/report.txt" || fail "human -o"
[ "$(ls -A "$TMP/o" | wc -l)" -eq 2 ] || fail "stray files: $(ls -A "$TMP/o")"
expect_rc 1 analyze --json -o "$TMP/no-such-dir/report.json" "$DATA/tiny.json"
err_one_line

# -- output errors: a full disk fails loudly, a closed pipe quietly
if [ -w /dev/full ]; then
	"$GPUPROF" analyze --json "$DATA/tiny.json" >/dev/full 2>"$ERR"
	[ $? -eq 1 ] || fail "writing to /dev/full did not fail"
	err_has "cannot write to standard output"
fi
"$GPUPROF" analyze -q --json --top 0 "$DATA/tiny.json" "$DATA/tiny.json" "$DATA/tiny.json" \
	2>"$ERR" | head -c 1 >/dev/null
[ ! -s "$ERR" ] || fail "a closed pipe printed: $(cat "$ERR")"

done_ok
