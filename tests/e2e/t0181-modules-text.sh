#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Modules block of analyze's text on the shared traces recorded with modules: the class
# table, the repeated classes in words, the tree with sibling calls of a class folded; within
# the width at 60, 80 and 100 columns; the whole tree with --top 0; nothing without modules.
. "$(dirname "$0")/lib.sh"
need python3
TR="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces/tracelens"
Q="$TR/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
[ -f "$Q" ] || { echo "skip: no ../shared/traces"; exit 77; }
expect_rc 0 analyze --json "$Q"
[ "$(json_get "$OUT" 'd["ranks"][0]["modules"] is not None')" = True ] ||
	{ echo "skip: this build keeps no nn.Module calls"; exit 77; }

for w in 60 80 100; do
	NCHECK=$((NCHECK + 1))
	COLUMNS=$w "$GPUPROF" analyze "$Q" >"$OUT" 2>"$ERR" || fail "analyze at $w columns"
	sed -n '/^Modules/,/^Findings/p' "$OUT" >"$TMP/mod"
	cp "$TMP/mod" "$OUT"
	no_width_over "$w" "$TMP/mod"
	out_has "Modules (nn.Module calls, 1 step)"
	out_has "Qwen2DecoderLayer"
	[ "$w" -lt 100 ] || out_has "Qwen2DecoderLayer 31.67 ms (24 calls), per call avg 1.320 ms, std"
	out_has "    Qwen2DecoderLayer ×24"
	out_has "      Qwen2Attention ×24"
	out_has "  Qwen2Model_0"
	if [ "$w" -ge 80 ]; then out_has "Mean ± σ"; else grep -q "Mean ± σ" "$OUT" && fail "mean ± σ at $w"; fi
done

# the class table has --top rows; --top 0 every class and the whole folded tree
expect_rc 0 analyze --top 3 "$Q"
out_has "… 6 more classes"
expect_rc 0 analyze --top 0 "$Q"
grep -q "more classes" "$OUT" && fail "rows left out with --top 0"
out_has "Qwen2RotaryEmbedding"

# the text follows the JSON it is drawn from: the GPU time of the decoder layers
expect_rc 0 analyze --json "$Q"
[ "$(json_get "$OUT" '[c["gpu_time_ns"] for c in d["ranks"][0]["modules"]["classes"] if c["name"] == "Qwen2DecoderLayer"][0]')" = 31674178 ] ||
	fail "Qwen2DecoderLayer GPU time"

# without module information: no block, no hint
expect_rc 0 analyze "$TR/torch_compile_triton_trace.json.gz"
grep -q "^Modules" "$OUT" && fail "a Modules block without modules"
done_ok
