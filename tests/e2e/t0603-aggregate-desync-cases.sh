#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0603-aggregate-desync-cases.sh - `gpuprof aggregate` on hand-made reports of the
# desynchronisations a review asked about, and two bad inputs: metadata that differs in dtype
# only (metadata, the dtypes named); a process group with a member absent from all its
# collectives (missing, that member); a rank that ran an extra collective (metadata at its seq,
# its last collective unmatched); point-to-point operations between two ranks of a group (no
# desync); an extra collective with the same metadata on one host (a warning: the entries cannot
# pair); one report holding a rank twice, and a world size of 2^62
# (the missing ranks as ranges, at once).
. "$(dirname "$0")/lib.sh"
need python3

cat >"$TMP/mk.py" <<'PY'
import json, os, sys
T = 1700000000000000000
def rank(r, ents, pgs, world=3):
    return {"rank": r, "host": "node-%d" % r,
            "overview": {"start_ns": T, "span_ns": 10**9,
                         "distributed": {"rank": r, "world_size": world, "backend": "nccl"}},
            "step_stats": {"count": 2, "mean_ns": 2e7, "median_ns": 2e7, "p95_ns": 2e7}, "findings": [],
            "collectives": {"seq_source": "trace", "process_groups": pgs, "ledger": ents}}
def ent(pg, seq, st, dtype="Float", b=4096, name="allreduce"):
    return {"pg": pg, "seq": seq, "name": name, "dtype": dtype, "bytes": b, "group_size": 3,
            "step": 1, "start_ns": T + st, "end_ns": T + st + 1000}
def doc(*rs):
    return {"schema": "gpuprof.analyze/1", "ranks": list(rs)}
case, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
def w(n, d):
    json.dump(d, open(os.path.join(out, n), "w"))
pg = [{"name": "0", "desc": "default_pg", "ranks": [0, 1, 2], "size": 3},
      {"name": "1", "desc": "sub", "ranks": [0, 1, 2], "size": 3}]
for r in range(3):
    es = [ent("0", k, k * 10**6, dtype="Int" if case == "dtype" and r == 2 and k == 3 else "Float")
          for k in range(6)]
    if case == "absent" and r < 2:
        es += [ent("1", k, k * 10**6 + 500000) for k in range(4)]
    if case == "p2p" and r < 2:  # ranks 0 and 1 exchange; rank 2 takes no part
        es += [ent("0", 100 + k, k * 10**6 + 500000, name="sendrecv") for k in range(3)]
    if case == "extra" and r == 1:
        es = es[:2] + [ent("0", 2, 2 * 10**6 - 300000, b=8)] + [ent("0", k + 1, k * 10**6) for k in range(2, 6)]
    w("r%d.json" % r, doc(rank(r, es, pg if case == "absent" else pg[:1])))
if case == "same-meta":  # one host: rank 1 runs an extra all-reduce, like the others', at 2.5 ms
    for r in range(3):
        t = [k * 10**6 + r * 1000 for k in range(8)]
        if r == 1:
            t = sorted(t[:7] + [2500000])
        w("r%d.json" % r, doc(rank(r, [dict(ent("0", k, x), end_ns=T + x + 100000)
                                        for k, x in enumerate(t)], pg[:1])))
        d = json.load(open(os.path.join(out, "r%d.json" % r)))
        d["ranks"][0]["host"] = "node-0"
        w("r%d.json" % r, d)
if case == "dup":
    w("r0.json", doc(rank(0, [], pg[:1]), rank(0, [], pg[:1])))
if case == "world":
    w("r0.json", doc(rank(0, [], pg[:1], world=2**62), rank(7, [], pg[:1], world=2**62)))
    os.remove(os.path.join(out, "r1.json")); os.remove(os.path.join(out, "r2.json"))
PY

desync() { # CASE: the desync as "kind rank pg seq", then the unmatched count
	python3 "$TMP/mk.py" "$1" "$TMP/$1"
	expect_rc 0 aggregate --json -o "$TMP/$1.json" "$TMP/$1"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); x = d["desync"]
print(x["kind"], x["rank"], x["pg"], x["seq"], d["unmatched"]); print(x["detail"])' "$TMP/$1.json" >"$TMP/$1.txt"
}
desync dtype
grep -qx "metadata 2 0 3 0" "$TMP/dtype.txt" || fail "dtype only: $(cat "$TMP/dtype.txt")"
grep -q "as allreduce Int 4.0 KiB over 3 ranks; the other ranks as allreduce Float" "$TMP/dtype.txt" ||
	fail "the dtypes are named: $(cat "$TMP/dtype.txt")"
desync absent
grep -qx "missing 2 1 0 0" "$TMP/absent.txt" || fail "a member absent from its group: $(cat "$TMP/absent.txt")"
desync extra
grep -qx "metadata 1 0 2 1" "$TMP/extra.txt" || fail "an extra collective: $(cat "$TMP/extra.txt")"

# point-to-point between two of the group's three ranks: no desync, no unmatched
python3 "$TMP/mk.py" p2p "$TMP/p2p"
expect_rc 0 aggregate --json -o "$TMP/p2p.json" "$TMP/p2p"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["desync"] is None and d["unmatched"] == 0, (d["desync"], d["unmatched"])
assert [c["count"] for c in d["collectives"] if c["p2p"]] == [3], d["collectives"]' "$TMP/p2p.json" ||
	fail "a p2p operation two ranks of three ran is no desynchronisation"

# an extra collective with the same metadata: no desync can see it, but the entries numbered 3
# do not overlap in time (one host: one clock), so a warning says they cannot be one collective
python3 "$TMP/mk.py" same-meta "$TMP/same-meta"
expect_rc 0 aggregate --json -o "$TMP/same-meta.json" "$TMP/same-meta"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
w = [x for x in d.get("warnings", []) if "are not one collective" in x]
assert w and "collective 3 of process group" in w[0], d.get("warnings")' "$TMP/same-meta.json" ||
	fail "an extra collective with the same metadata is not noticed"

python3 "$TMP/mk.py" dup "$TMP/dup"
expect_rc 1 aggregate "$TMP/dup/r0.json"
err_has "r0.json' (the same file: given twice, or a report holding the rank twice"
python3 "$TMP/mk.py" world "$TMP/world"
expect_rc 0 aggregate --json "$TMP/world"
grep -q "4611686018427387902 ranks are missing: 1-6, 8-4611686018427387903" "$OUT" ||
	fail "the missing ranks of a world of 2^62, as ranges"
done_ok
