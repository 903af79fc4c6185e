#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0112-compare-why-names.sh - the kernel names compare's "why" sentences give
# are fitted as the tables' are (names.c, over all rows of the kernel diff):
# no "void ", "…" not "...", and two names alike stay apart. trace_diff's
# new split_embedding kernel (5ul) read "void
# split_embedding_backward_codegen_rowwise_adagrad_unweig...", which is also
# the start of the removed one (2ul). Real traces of ../shared/traces;
# skipped without them.
. "$(dirname "$0")/lib.sh"
need python3
T="${GP_SHARED_DIR:-$GP_SRC_DIR/../shared}/traces"
[ -d "$T/hta" ] || { echo "skip: no ../shared/traces"; exit 77; }
BASE="$T/hta/trace_diff_control_control.json.gz"
NEW="$T/hta/trace_diff_test_test.json.gz"

expect_rc 3 compare "$BASE" "$NEW"
out_has "kernels account for"
sed -n '/^why:/,/^warnings:/p' "$OUT" >"$TMP/why"
NCHECK=$((NCHECK + 1))
grep -qF "cta_per_row_1<float, float, float, 5ul> is new" "$TMP/why" ||
	fail "the new split_embedding kernel is not told apart in the why: $(cat "$TMP/why")"
NCHECK=$((NCHECK + 1))
grep -qE 'void |\.\.\.' "$TMP/why" && fail "'void ' or '...' in the why: $(cat "$TMP/why")"
expect_rc 3 compare --json "$BASE" "$NEW"
NCHECK=$((NCHECK + 1))
python3 - "$OUT" <<'PY' || fail "the JSON explanation's text (above)"
import json, sys
d = json.load(open(sys.argv[1]))
texts = [e["text"] for g in d.get("groups", d.get("ranks", [])) for e in g.get("explanations", [])]
texts = texts or [e["text"] for e in d.get("explanations", [])]
top = [t for t in texts if "kernels account for" in t]
assert top, texts
assert "void " not in top[0] and "..." not in top[0], top[0]
# the JSON keeps the whole names in the evidence
PY
done_ok
