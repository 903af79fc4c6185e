#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0110-analyze-text.sh - what a person reads in `gpuprof analyze`'s text, on
# the real traces of ../shared/traces (skipped without them) and on a capture
# of the CUDA driver simulator (skipped without the tracer):
# - kernel names that differ stay apart (resnet50's vectorized_elementwise_kernel
#   with AddFunctor and with threshold_kernel read as one row before), every
#   table's names are distinct at widths 100 (all rows) and 80; --wide prints them whole;
# - a capture's mangled names are shown demangled, the JSON keeps them mangled;
#   with no demangler (GP_DEMANGLE_LIBRARY empty) they stay as they are;
# - compare's kernel diff keeps names apart the same way;
# - the header: no "- (sm -, - SMs, -)" for a device the trace does not
#   describe, "none: no ProfilerStep" instead of "steps 0", a compat line that
#   names the step --compat hta leaves out; an incomplete step's mark is
#   not cut, one step has no line of statistics ("std -"), no communication
#   no "comm/comp -", no launch no "delay p50 -", a timeline of one sample
#   reads "1 sample" and has no "host CPU busy mean -  max -";
# - $COLUMNS wins over the terminal's width (in a pseudo-terminal of 150
#   columns); tables of numbers need 94 columns, prose wraps at 60.
. "$(dirname "$0")/lib.sh"
need python3
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
[ -d "$T/kineto" ] || { echo "skip: no ../shared/traces"; exit 77; }
RESNET="$T/kineto/resnet50_num_workers_0_worker0.pt.trace.json.gz"
unset COLUMNS

# names of each table (the text after the last two-space gap of a row) are distinct
names_apart() {
	python3 - "$1" <<'EOF' || fail "two rows of one table read alike in $1"
import sys, collections
sec, seen, bad = None, collections.Counter(), []
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if line and not line.startswith(" "):
        sec = line
    elif sec and sec.startswith(("Top ", "Memory operations", "User annotations", "GPU annotations")) \
            and "  " in line.strip() and not line.strip().startswith(("Time %", "Self %", "…")):
        seen[(sec, line.rstrip().split("  ")[-1].strip())] += 1
bad = [k for k, v in seen.items() if v > 1]
if bad:
    print(bad)
    sys.exit(1)
EOF
}

# --- the two rows of the issue, and every table of resnet50, at 100 and 80 columns
COLUMNS=100 run analyze "$RESNET"
[ "$RC" -eq 0 ] || fail "analyze resnet50"
out_has "AddFunctor"
out_has "threshold_kernel"
names_apart "$OUT"
no_width_over 100 "$OUT"
COLUMNS=100 run analyze --top 0 "$RESNET"
names_apart "$OUT"
COLUMNS=80 run analyze "$RESNET"
names_apart "$OUT"
# at 80 columns every table but Steps (94) fits: the kernel table leaves Med, Min and Max out
python3 - "$OUT" <<'EOF' || fail "a table wider than 80 columns at COLUMNS=80"
import sys
sec = None
for l in open(sys.argv[1], encoding="utf-8").read().splitlines():
    if l and not l.startswith(" "):
        sec = l
    assert len(l) <= 80 or l.startswith("== rank") or (sec or "").startswith("Steps"), l
EOF
out_has " Time %    Total Instances      Avg   StdDev  Name"
for f in "$T"/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz \
	"$T"/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz; do
	COLUMNS=100 run analyze "$f"
	[ "$RC" -eq 0 ] || fail "analyze $f"
	names_apart "$OUT"
done

# --- compare's kernel diff: split_embedding_..._cta_per_row_1<float, float, float, 5ul> added and
# <..., 2ul> removed read as two names, not as one name both added and removed
CT="$T/hta/trace_diff_control_control.json.gz"
if [ -e "$CT" ]; then
	run compare --top 0 "$CT" "$T/hta/trace_diff_test_test.json.gz"
	[ "$RC" -eq 3 ] || fail "compare control test: exit $RC"
	python3 - "$OUT" <<'EOF' || fail "two rows of compare's kernel diff read alike"
import sys, collections
rows, at = collections.Counter(), None
for line in open(sys.argv[1], encoding="utf-8").read().splitlines():
    if line.startswith("  status") and line.endswith(" name"):
        at = len(line) - 4
    elif at and line.startswith("  ") and len(line) > at:
        rows[line[at:]] += 1
    else:
        at = None
bad = [k for k, v in rows.items() if v > 1]
assert not bad, bad
assert rows, "no kernel diff"
EOF
	out_has "5ul>"
fi

# --- --wide: names whole (without "void "), even at 60 columns
COLUMNS=60 run analyze --wide "$RESNET"
out_has "  at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)"
grep -q "…" "$OUT" && grep "…" "$OUT" | grep -qv "… [0-9]* more" && fail "--wide still cuts a name"

# --- the header
run analyze "$T"/hta/trace_filter_sampled_rank-0.json.gz
grep -qF -- "- (sm -" "$OUT" && fail "unknown device fields shown as '-'"
out_has "devices   0: not described by the trace (no deviceProperties)"
run analyze "$T"/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz
grep -q '^steps     0' "$OUT" && fail "'steps 0' for a trace without ProfilerStep"
out_has "steps     none: no ProfilerStep in this trace"
out_has "devices   0: NVIDIA A100-PG509-200 (sm_80, 108 SMs, 39.4 GiB)"
grep -q '^compat' "$OUT" && fail "a compat line without --compat hta"
# AMD in AMD's terms; a ROCm trace's devices numbered by agent (2), deviceProperties by index (0)
run analyze "$T"/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz
out_has "devices   2: AMD Radeon Graphics (gfx9.0, 104 CUs, 64.0 GiB)"
run analyze "$T"/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
out_has "devices   2: AMD Instinct MI300X VF (gfx9.4, 304 CUs, 191.5 GiB): the trace's only model, listed under another id"
run analyze --json "$T"/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
[ "$(json_get "$OUT" 'd["ranks"][0]["overview"]["devices"][0]["name"], d["ranks"][0]["overview"]["devices"][0]["vendor"], d["ranks"][0]["overview"]["devices"][0]["properties_by_id"]')" = \
	"('AMD Instinct MI300X VF', 'amd', False)" ] || fail "overview.devices of a ROCm trace"
run analyze --compat hta "$T"/hta/nccl_parser_config_nccl_data.json.gz
out_has "compat    HTA's definitions (--compat hta): the last step (ProfilerStep#6)"
out_has "times rounded to whole µs"
run analyze --compat hta --json "$T"/hta/nccl_parser_config_nccl_data.json.gz
[ "$(json_get "$OUT" 'd["ranks"][0]["overview"]["compat_hta"]')" = \
	"{'dropped_step': 'ProfilerStep#6', 'rounded_to_us': True}" ] || fail "overview.compat_hta"

# --- unknown or empty shown as data elsewhere: an incomplete step's mark, one step, no communication
run analyze "$T"/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz
out_has "steps     2 (1 incomplete)   9.288 ms"
out_has "  ProfilerStep#2*     "
out_has "  * incomplete: the trace ends inside the step; not in the statistics"
grep -q "(i…" "$OUT" && fail "the incomplete mark is cut"
grep -q "std -" "$OUT" && fail "'std -' for one step"
grep -q "^  comm/comp  *-" "$OUT" && fail "'comm/comp -' without communication"
run analyze --compat hta "$T"/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz
out_has "  launches none counted: --compat hta counts cudaLaunchKernel"
grep -q "delay p50 -" "$OUT" && fail "launch delays of no launch shown as '-'"
grep -q "launch call: 0 (-)" "$OUT" && fail "short kernels of no launch shown as '0 (-)'"

# --- a metrics timeline of one sample: "1 sample", no "host CPU busy mean - max -" (the CPU share
# needs two reads), no "no ranks in this report" above its Metrics
"$GPUPROF" top --record "$TMP/m1.jsonl" --count 1 --no-gpu >/dev/null 2>&1 || fail "top --record"
run analyze "$TMP/m1.jsonl"
[ "$(head -n 1 "$OUT")" = "Metrics (1 sample, every 100 ms)" ] || fail "the first line of a timeline's text"
grep -q "mean -" "$OUT" && fail "'mean -  max -' for a series with no value"

# --- $COLUMNS wins over the terminal's width; the narrowest width wraps prose at 60
if command -v script >/dev/null 2>&1; then
	NCHECK=$((NCHECK + 1))
	script -qec "stty cols 150 rows 50; COLUMNS=100 '$GPUPROF' analyze '$RESNET'" /dev/null \
		>"$TMP/tty.txt" 2>&1 || fail "analyze in a pseudo-terminal"
	tr -d '\r' <"$TMP/tty.txt" >"$TMP/tty2.txt"
	no_width_over 100 "$TMP/tty2.txt"
fi
COLUMNS=40 run analyze "$RESNET"
python3 - "$OUT" <<'EOF' || fail "at COLUMNS=40: findings wider than 60 or tables wider than 94"
import sys
sec = None
for l in open(sys.argv[1], encoding="utf-8").read().splitlines():
    if l and not l.startswith(" "):
        sec = l
    if l.startswith("== rank"):
        continue
    assert len(l) <= (60 if sec == "Findings" else 94), l
EOF

# --- a capture: names demangled in the text, mangled in the JSON
B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
SIM="$B/tests/inject/driver_sim"
FAKE="$B/tests/fake/libfake-cupti.so"
if [ -e "$B/libgpuprof-inject.so" ] && [ -e "$SIM" ] && [ -e "$FAKE" ]; then
	use_tracer
	expect_rc 0 run --quiet --no-report --sample-ms 0 -o "$TMP/cap" -- "$SIM" "$B/libgpuprof-inject.so" "$FAKE" 3 exit
	run analyze "$TMP/cap"
	out_has "  kernelA(float*)"
	out_has "  kernelB(float*)"
	grep -q "_Z7kernel" "$OUT" && fail "a mangled name in the text"
	run analyze --json "$TMP/cap"
	out_has '"name": "_Z7kernelAPf"'
	GP_DEMANGLE_LIBRARY= run analyze "$TMP/cap"
	out_has "  _Z7kernelAPf"
else
	echo "note: no tracer or simulator: the capture checks are skipped"
fi
done_ok
