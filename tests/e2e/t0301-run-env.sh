#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0301-run-env.sh - the environment contract of gpuprof run with the
# injected tracer: what CMD sees (injection paths, GPUPROF_CAPTURE_*, tags),
# --no-cuda, where the injector is looked for, and the refusal to run under
# another tool's injection. Any existing file stands in for a built injector.
. "$(dirname "$0")/lib.sh"
need python3

export GPUPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH GPUPROF_INJECT_LIBRARY
cd "$TMP" || exit 1
touch fake-inject.so
cat >env.py <<'EOF'
import json, os, sys
keep = ("GPUPROF_", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")
env = {k: v for k, v in os.environ.items()
       if k.startswith(keep) and k != "GPUPROF_NVML_LIBRARY"}
json.dump(env, open(sys.argv[1], "w"), sort_keys=True)
EOF

# --- an injector, every capture option, tags
# (a GPUPROF_ANNOTATE_LIBRARY of the user's is replaced, like every variable of the contract)
GPUPROF_ANNOTATE_LIBRARY=/some/other/recorder.so \
GPUPROF_INJECT_LIBRARY=fake-inject.so expect_rc 0 run --quiet -o runs/all \
	--capture-range nvtx:train --delay 1.5 --duration .25 \
	--schedule active=3,wait=1 --iter-range step \
	--tag b=2 --tag a=1 --tag a=3 --tag 'team.x_y-z=with space=and=equals' \
	-- python3 env.py env-all.json
python3 - "$TMP" "$GPUPROF" <<'EOF' || fail "environment of CMD"
import json, os, sys
tmp = sys.argv[1]
env = json.load(open("env-all.json"))
run = json.load(open("runs/all/run.json"))
inj = os.path.join(tmp, "fake-inject.so")
want = {
    "GPUPROF_INJECT_LIBRARY": "fake-inject.so",
    "NVTX_INJECTION64_PATH": inj,
    "CUDA_INJECTION64_PATH": inj,
    "GPUPROF_ANNOTATE_LIBRARY": inj,
    "GPUPROF_CAPTURE_DIR": os.path.join(tmp, "runs/all"),
    "GPUPROF_RUN_START_NS": str(run["start_monotonic_ns"]),
    "GPUPROF_CAPTURE_RANGE": "nvtx:train",
    "GPUPROF_CAPTURE_DELAY_NS": "1500000000",
    "GPUPROF_CAPTURE_DURATION_NS": "250000000",
    "GPUPROF_CAPTURE_SCHEDULE": "wait=1,warmup=0,active=3,repeat=0",
    "GPUPROF_CAPTURE_ITER_RANGE": "step",
    "GPUPROF_TAGS": "a=3\nb=2\nteam.x_y-z=with space=and=equals",
}
# the libgpuprof of this build, beside the binary, for the Python binding
lib = os.path.join(os.path.dirname(os.path.realpath(sys.argv[2])), "libgpuprof.so.0")
if os.path.exists(lib):
    want["GPUPROF_RUN_LIBRARY"] = lib
assert env == want, (env, want)
assert os.path.isabs(env["GPUPROF_CAPTURE_DIR"])
# run.json lists exactly what was set
set_ = dict(want)
del set_["GPUPROF_INJECT_LIBRARY"]
assert run["environment"] == set_, run["environment"]
assert run["injector"] == {"path": inj, "reason": None, "cuda": True, "nvtx": True}
assert run["tags"] == {"a": "3", "b": "2", "team.x_y-z": "with space=and=equals"}
o = run["options"]
assert o["capture_range"] == "nvtx:train" and o["delay_ns"] == 1500000000
assert o["duration_ns"] == 250000000 and o["iter_range"] == "step"
assert o["schedule"] == "wait=1,warmup=0,active=3,repeat=0"
EOF

# --- --no-cuda: NVTX only
GPUPROF_INJECT_LIBRARY="$TMP/fake-inject.so" expect_rc 0 run --quiet --no-cuda -o runs/nocuda \
	--capture-range nvtx:x -- python3 env.py env-nocuda.json
python3 - <<'EOF' || fail "--no-cuda"
import json
env = json.load(open("env-nocuda.json"))
assert "CUDA_INJECTION64_PATH" not in env, env
assert env["NVTX_INJECTION64_PATH"].endswith("/fake-inject.so")
assert env["GPUPROF_ANNOTATE_LIBRARY"] == env["NVTX_INJECTION64_PATH"], env
run = json.load(open("runs/nocuda/run.json"))
assert run["injector"]["cuda"] is False and run["injector"]["nvtx"] is True
assert run["options"]["no_cuda"] is True
EOF
# an empty inherited variable is not another tool: left as it is with --no-cuda
CUDA_INJECTION64_PATH= GPUPROF_INJECT_LIBRARY="$TMP/fake-inject.so" \
	expect_rc 0 run --quiet --no-cuda -o runs/nocuda-empty -- python3 env.py env-empty.json
[ "$(json_get env-empty.json 'd.get("CUDA_INJECTION64_PATH")')" = "" ] || fail "empty variable"
# and replaced when CUDA capture is on
CUDA_INJECTION64_PATH= GPUPROF_INJECT_LIBRARY="$TMP/fake-inject.so" \
	expect_rc 0 run --quiet -o runs/cuda-empty -- python3 env.py env-empty2.json
[ "$(json_get env-empty2.json 'd["CUDA_INJECTION64_PATH"]')" = "$TMP/fake-inject.so" ] ||
	fail "empty CUDA_INJECTION64_PATH not replaced"

# --- no injector: runs anyway, says so once, nothing injected; stale variables dropped
GPUPROF_INJECT_LIBRARY=/nonexistent/libgpuprof-inject.so GPUPROF_CAPTURE_RANGE=stale \
	GPUPROF_TAGS=stale=1 GPUPROF_CAPTURE_SCHEDULE=stale \
	expect_rc 0 run -o runs/none -- python3 env.py env-none.json
[ "$(grep -c 'CUDA and NVTX capture are not available in this build' "$ERR")" -eq 1 ] ||
	fail "the note about the missing injector is not said once"
python3 - "$TMP" <<'EOF' || fail "no injector"
import json, os, sys
env = json.load(open("env-none.json"))
env.pop("GPUPROF_INJECT_LIBRARY")
assert sorted(env) == ["GPUPROF_CAPTURE_DIR", "GPUPROF_RUN_START_NS"], env
run = json.load(open("runs/none/run.json"))
assert run["injector"]["path"] is None
assert "/nonexistent/libgpuprof-inject.so" in run["injector"]["reason"]
assert run["injector"]["cuda"] is False and run["injector"]["nvtx"] is False
EOF
GPUPROF_INJECT_LIBRARY=/nonexistent/x.so expect_rc 0 run --quiet -o runs/none-quiet -- true
[ ! -s "$ERR" ] || fail "--quiet still printed the note"

# --- the injector next to the binary, then in ../lib/gpuprof/
mkdir -p inst/bin inst/lib/gpuprof side
cp "$GPUPROF" inst/bin/gpuprof
touch inst/lib/gpuprof/libgpuprof-inject.so
inst/bin/gpuprof run --quiet -o runs/inst -- python3 env.py env-inst.json 2>"$ERR" ||
	fail "installed layout run failed"
[ "$(json_get env-inst.json 'd["NVTX_INJECTION64_PATH"]')" = "$TMP/inst/lib/gpuprof/libgpuprof-inject.so" ] ||
	fail "injector in ../lib/gpuprof not found"
cp "$GPUPROF" side/gpuprof
touch side/libgpuprof-inject.so
side/gpuprof run --quiet -o runs/side -- python3 env.py env-side.json 2>"$ERR" ||
	fail "side-by-side run failed"
[ "$(json_get env-side.json 'd["CUDA_INJECTION64_PATH"]')" = "$TMP/side/libgpuprof-inject.so" ] ||
	fail "injector next to the binary not found"

# --- another tool's injection: refused before anything runs
NSYS=/opt/nvidia/nsight-systems/2024.2.1/target-linux-x64/libToolsInjection64.so
CUDA_INJECTION64_PATH=$NSYS expect_rc 2 run -o runs/refused -- touch ran
err_one_line
err_has "CUDA_INJECTION64_PATH is already set to '$NSYS'"
err_has "nsys"
NVTX_INJECTION64_PATH=/usr/lib/libgpuprof-inject.so expect_rc 2 run -o runs/refused -- touch ran
err_has "NVTX_INJECTION64_PATH is already set to '/usr/lib/libgpuprof-inject.so'"
err_has "gpuprof run"
NVTX_INJECTION64_PATH=/some/lib.so expect_rc 2 run -o runs/refused -- touch ran
err_has "another CUDA tool"
[ -e ran ] && fail "CMD ran despite the refusal"
[ -e runs/refused ] && fail "a directory was created despite the refusal"

echo "ok: $NCHECK gpuprof runs"
