#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The memory-leak finding: a generated training loop whose every step keeps 4 MiB made by
# aten::cat gets it, naming aten::cat and the growth per step; the same loop without the leak,
# and every real trace of ../shared/traces, get none.
. "$(dirname "$0")/lib.sh"
need_gen_trace
need python3

"$GEN" --steps 6 --layers 2 --leak 4194304 -o "$TMP/leak.json" 2>/dev/null || fail "gen_trace"
"$GEN" --steps 6 --layers 2 -o "$TMP/steady.json" 2>/dev/null || fail "gen_trace"

expect_rc 0 analyze --json "$TMP/leak.json" -o "$TMP/leak.out.json"
f='[f for f in d["ranks"][0]["findings"] if f["id"] == "memory-leak"]'
[ "$(json_get "$TMP/leak.out.json" "len($f)")" = 1 ] || fail "no memory-leak finding on the leak"
[ "$(json_get "$TMP/leak.out.json" "$f[0]['evidence']['op']")" = "aten::cat" ] ||
	fail "the finding does not name aten::cat"
[ "$(json_get "$TMP/leak.out.json" "$f[0]['evidence']['growth_per_step_bytes']")" = 4194304 ] ||
	fail "growth per step is not 4 MiB"
[ "$(json_get "$TMP/leak.out.json" "$f[0]['evidence']['device']")" = 0 ] || fail "not GPU 0"
json_get "$TMP/leak.out.json" "$f[0]['title']" | grep -q "4.0 MiB a step" || fail "title"
[ "$(json_get "$TMP/leak.out.json" "d['ranks'][0]['memory']['devices'][0]['unfreed']['rows'][0]['op']")" = aten::cat ] ||
	fail "aten::cat is not the first unfreed row"
expect_rc 0 analyze "$TMP/leak.json"
out_has "LEAK: grows by 4.0 MiB a step over 6 steps; aten::cat keeps"

expect_rc 0 analyze --json "$TMP/steady.json" -o "$TMP/steady.out.json"
[ "$(json_get "$TMP/steady.out.json" "len($f)")" = 0 ] || fail "memory-leak on a steady loop"
[ "$(json_get "$TMP/steady.out.json" "d['ranks'][0]['memory']['devices'][0]['unfreed']['bytes']")" = 0 ] ||
	fail "a steady loop leaves memory unfreed"

# the real traces: none (those without memory events have no memory section)
if [ -d "$GP_SHARED_DIR/traces" ]; then
	n=0
	while IFS= read -r t; do
		expect_rc 0 analyze --json "$t" -o "$TMP/real.json"
		[ "$(json_get "$TMP/real.json" "sum(1 for r in d['ranks'] for f in r['findings'] if 'leak' in f['id'])")" = 0 ] ||
			fail "a leak finding on $t"
		n=$((n + 1))
	done < <(find "$GP_SHARED_DIR/traces" -name '*.json.gz' -size -60M | sort)
	[ $n -gt 0 ] || fail "no real trace read"
fi
done_ok
