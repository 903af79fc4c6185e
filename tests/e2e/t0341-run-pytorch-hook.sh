#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0341-run-pytorch-hook.sh - the startup hook of `gpuprof run --pytorch` without PyTorch:
# - the option: a bad LIST is a usage error (exit 2, one line), on the command line and in
#   --config; the normalised LIST is in run.json (options.pytorch, from_config) and the child's
#   environment (GPUPROF_PYTORCH, PYTHONPATH with the hook first and the user's after it);
# - a program that never imports torch runs exactly as without the option (output, standard
#   error, exit status) and never loads gpuprof's package;
# - a sitecustomize of the user's on PYTHONPATH still runs (and the distribution's, as
#   without gpuprof);
# - over a stand-in torch (pytorch/fake): modules get ranges named "nn.Module: Conv_0", ...
#   (also when a forward raises, with always_call), `shapes` enters emit_nvtx with
#   record_shapes, `ops` without, a CPU build says so once, torch imported twice is hooked
#   once, and an old torch without always_call still gets its hooks.
. "$(dirname "$0")/lib.sh"
use_tracer
need_python_binding
export PYTHONDONTWRITEBYTECODE=1
P="$GP_SRC_DIR/tests/e2e/pytorch"
FAKE="$P/fake"

# --- usage errors
for bad in bogus "modules," "" "modules,,ops" "Modules"; do
	expect_rc 2 run --pytorch "$bad" -o "$TMP/bad" -- true
	err_one_line
	err_has "--pytorch"
	[ ! -e "$TMP/bad" ] || fail "'--pytorch $bad' created the directory"
done
expect_rc 2 run --pytorch -- true
if "$GPUPROF" run --config /dev/null -o "$TMP/cfgprobe" -- true 2>/dev/null; then
	printf 'pytorch: [modules]\n' >"$TMP/list.yaml"
	expect_rc 2 run --config "$TMP/list.yaml" -o "$TMP/bad" -- true
	err_has "'pytorch' expects a string"
	printf 'pytorch: bogus\n' >"$TMP/bogus.yaml"
	expect_rc 2 run --config "$TMP/bogus.yaml" -o "$TMP/bad" -- true
	err_has "line 1"
	printf 'pytorch: shapes,modules\nsample-ms: 0\nquiet: true\n' >"$TMP/ok.yaml"
	expect_rc 0 run --config "$TMP/ok.yaml" -o "$TMP/cfg" -- true
	[ "$(json_get "$TMP/cfg/run.json" 'd["options"]["pytorch"]')" = modules,ops,shapes ] ||
		fail "config: options.pytorch"
	[ "$(json_get "$TMP/cfg/run.json" '"pytorch" in d["options"]["from_config"]')" = True ] ||
		fail "config: from_config"
fi

# --- a program without torch: the same with and without --pytorch
cat >"$TMP/plain.py" <<'PYEOF'
import sys
print("plain", sorted(m for m in sys.modules if "gpuprof" in m))
sys.stderr.write("to stderr\n")
sys.exit(4)
PYEOF
NCHECK=$((NCHECK + 1))
"$GPUPROF" run --quiet --sample-ms 0 -o "$TMP/p0" -- python3 "$TMP/plain.py" >"$TMP/p0.out" 2>"$TMP/p0.err"
rc0=$?
"$GPUPROF" run --quiet --sample-ms 0 --pytorch modules,ops,shapes -o "$TMP/p1" -- \
	python3 "$TMP/plain.py" >"$TMP/p1.out" 2>"$TMP/p1.err"
rc1=$?
[ "$rc0" -eq 4 ] && [ "$rc1" -eq 4 ] || fail "plain: exit $rc0 and $rc1, expected 4"
cmp -s "$TMP/p0.out" "$TMP/p1.out" || fail "plain: stdout differs: $(cat "$TMP/p1.out")"
cmp -s "$TMP/p0.err" "$TMP/p1.err" || fail "plain: stderr differs: $(cat "$TMP/p1.err")"
[ "$(cat "$TMP/p1.out")" = "plain []" ] || fail "plain: gpuprof's package loaded: $(cat "$TMP/p1.out")"
python3 - "$TMP/p1/run.json" "$B" <<'PYEOF' || fail "plain: run.json"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["options"]["pytorch"] == "modules,ops,shapes", d["options"]
env = d["environment"]
assert env["GPUPROF_PYTORCH"] == "modules,ops,shapes", env
hook = os.path.realpath(os.path.join(sys.argv[2], "python/gpuprof/_startup"))
assert env["PYTHONPATH"] == hook, env["PYTHONPATH"]
assert os.path.isfile(os.path.join(hook, "sitecustomize.py")), hook
PYEOF
[ "$(json_get "$TMP/p0/run.json" 'd["options"]["pytorch"]')" = None ] || fail "p0: options.pytorch"
[ "$(json_get "$TMP/p0/run.json" '"PYTHONPATH" in d["environment"]')" = False ] ||
	fail "p0: PYTHONPATH set without --pytorch"

# --- the user's sitecustomize still runs, after the hook; PYTHONPATH keeps the user's part
mkdir -p "$TMP/user"
cat >"$TMP/user/sitecustomize.py" <<'PYEOF'
import sys
print("user sitecustomize ran", __name__)
PYEOF
printf 'import sitecustomize, sys\nprint("imported", sitecustomize.__file__)\n' >"$TMP/who.py"
for opt in "" "--pytorch modules"; do
	NCHECK=$((NCHECK + 1))
	rm -rf "$TMP/u"
	PYTHONPATH="$TMP/user" "$GPUPROF" run --quiet --sample-ms 0 $opt -o "$TMP/u" -- \
		python3 "$TMP/who.py" >"$TMP/u.out" 2>"$TMP/u.err" || fail "user ($opt): $(cat "$TMP/u.err")"
	[ "$(cat "$TMP/u.out")" = "user sitecustomize ran sitecustomize
imported $TMP/user/sitecustomize.py" ] || fail "user ($opt): $(cat "$TMP/u.out")"
done
[ "$(json_get "$TMP/u/run.json" 'd["environment"]["PYTHONPATH"].split(":")[1:]')" = "['$TMP/user']" ] ||
	fail "user: PYTHONPATH $(json_get "$TMP/u/run.json" 'd["environment"]["PYTHONPATH"]')"
# a sitecustomize that fails is reported by Python as without gpuprof, and the hook still works
printf 'raise RuntimeError("user site broken")\n' >"$TMP/user/sitecustomize.py"
NCHECK=$((NCHECK + 1))
PYTHONPATH="$TMP/user:$FAKE" "$GPUPROF" run --quiet --sample-ms 0 --pytorch modules -o "$TMP/ub" -- \
	python3 "$P/fake_prog.py" >"$TMP/ub.out" 2>"$TMP/ub.err"
grep -q "user site broken" "$TMP/ub.err" || fail "broken user site: $(cat "$TMP/ub.err")"
grep -q "^pre 1 post 1 " "$TMP/ub.out" || fail "broken user site: hook: $(cat "$TMP/ub.out")"

# --- the stand-in torch
# fake NAME LIST [VAR=VALUE...]: fake_prog.py under --pytorch LIST into $TMP/NAME
fake() {
	local name=$1 list=$2
	shift 2
	NCHECK=$((NCHECK + 1))
	env PYTHONPATH="$FAKE" "$@" "$GPUPROF" run --quiet --sample-ms 0 --pytorch "$list" \
		-o "$TMP/$name" -- python3 "$P/fake_prog.py" 3 >"$TMP/$name.out" 2>"$TMP/$name.err" ||
		fail "$name: exited $?: $(cat "$TMP/$name.err")"
}
fake shapes modules,shapes FAKE_TORCH_CUDA=12.4
[ "$(cat "$TMP/shapes.out")" = "pre 1 post 1 always_call True emit_nvtx [True] entered 1 loaded True" ] ||
	fail "shapes: $(cat "$TMP/shapes.out")"
[ ! -s "$TMP/shapes.err" ] || fail "shapes: stderr: $(cat "$TMP/shapes.err")"
python3 "$P/capture_modules.py" "$TMP/shapes"/capture-*.gpcap >"$TMP/shapes.json"
python3 - "$TMP/shapes.json" <<'PYEOF' || fail "shapes: the module ranges"
import json, sys
d = json.load(open(sys.argv[1]))
rows = next(iter(d["threads"].values()))
names = [r[0] for r in rows]
assert names == ["nn.Module: Conv_0", "nn.Module: Conv_1"] * 3 + ["nn.Module: Bad_0"], names
assert d["unpaired"] == 0, d
PYEOF
fake ops ops FAKE_TORCH_CUDA=12.4
[ "$(cat "$TMP/ops.out")" = "pre 0 post 0 always_call None emit_nvtx [False] entered 1 loaded True" ] ||
	fail "ops: $(cat "$TMP/ops.out")"
fake cpu modules,ops FAKE_TORCH_CUDA=
[ "$(cat "$TMP/cpu.out")" = "pre 1 post 1 always_call True emit_nvtx [] entered 0 loaded True" ] ||
	fail "cpu: $(cat "$TMP/cpu.out")"
[ "$(cat "$TMP/cpu.err")" = "gpuprof: --pytorch: PyTorch 9.9.9+fake is built without CUDA: no op ranges" ] ||
	fail "cpu: stderr: $(cat "$TMP/cpu.err")"
fake old modules FAKE_TORCH_OLD=1
[ "$(cat "$TMP/old.out")" = "pre 1 post 1 always_call None emit_nvtx [] entered 0 loaded True" ] ||
	fail "old: $(cat "$TMP/old.out")"

done_ok
