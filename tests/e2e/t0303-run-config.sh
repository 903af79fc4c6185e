#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0303-run-config.sh - gpuprof run --config FILE: a YAML mapping of the
# options, overridden by the command line (tags merged), recorded in
# run.json; bad keys, types, values and YAML are usage errors naming the
# file and line.
. "$(dirname "$0")/lib.sh"
need python3

export GPUPROF_INJECT_LIBRARY=/nonexistent/libgpuprof-inject.so
export GPUPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
cd "$TMP" || exit 1

"$GPUPROF" run --config /dev/null --quiet -o probe -- true 2>"$ERR"
if [ $? -eq 2 ] && grep -q "built without libyaml" "$ERR"; then
	echo "skip: gpuprof built without libyaml"
	exit 77
fi

cat >cfg.yaml <<'EOF'
# gpuprof run options
output: cfgrun
sample-ms: 50
capture-range: nvtx:train
delay: 0.5
schedule: {wait: 1, warmup: 2, active: 3, repeat: 4}
iter-range: step
tag: {team: ml, who: cfg}
quiet: true
EOF
expect_rc 0 run --config cfg.yaml --sample-ms 30 --tag who=cli -- \
	sh -c 'printf "%s|%s|%s" "$GPUPROF_CAPTURE_RANGE" "$GPUPROF_CAPTURE_SCHEDULE" "$GPUPROF_TAGS"'
[ ! -s "$ERR" ] || fail "quiet: true from the file was not applied"
[ "$(cat "$OUT")" = "nvtx:train|wait=1,warmup=2,active=3,repeat=4|team=ml
who=cli" ] || fail "environment from the config: $(cat "$OUT")"
python3 - "$TMP" <<'EOF' || fail "run.json with a config file"
import json, os, sys
tmp = sys.argv[1]
d = json.load(open("cfgrun/run.json"))
o = d["options"]
assert o["sample_ms"] == 30 and o["capture_range"] == "nvtx:train"
assert o["delay_ns"] == 500000000 and o["iter_range"] == "step" and o["quiet"] is True
assert o["schedule"] == "wait=1,warmup=2,active=3,repeat=4"
assert o["output"] == os.path.join(tmp, "cfgrun")
assert o["config"] == os.path.join(tmp, "cfg.yaml")
assert o["from_config"] == ["capture_range", "delay_ns", "iter_range", "output", "quiet",
                            "schedule", "tags"], o["from_config"]
assert d["tags"] == {"team": "ml", "who": "cli"}
assert d["sampler"]["interval_ms"] == 30
EOF

# the other spellings: tags as a list, the schedule as a string, flags as yes/no
cat >cfg2.yaml <<'EOF'
tag: ["a=1", "b=x=y"]
schedule: "active=2,repeat=0"
iter-range: "iter"
no-cuda: yes
force: false
duration: 2
EOF
expect_rc 0 run --config cfg2.yaml --quiet -o cfg2run -- true
python3 - <<'EOF' || fail "run.json with cfg2.yaml"
import json
d = json.load(open("cfg2run/run.json"))
assert d["tags"] == {"a": "1", "b": "x=y"}
o = d["options"]
assert o["schedule"] == "wait=0,warmup=0,active=2,repeat=0" and o["no_cuda"] is True
assert o["duration_ns"] == 2000000000 and o["force"] is False
assert o["from_config"] == ["duration_ns", "force", "iter_range", "no_cuda", "schedule", "tags"]
EOF

# an empty file sets nothing
: >empty.yaml
expect_rc 0 run --config empty.yaml --quiet -o emptyrun -- true
[ "$(json_get emptyrun/run.json 'd["options"]["from_config"]')" = "[]" ] || fail "empty config"

# --- errors: exit 2, one line naming the file and the line, CMD not run
bad() { # bad LINE-TEXT EXPECTED-MESSAGE YAML...
	local want=$1
	shift
	printf '%s\n' "$@" >bad.yaml
	expect_rc 2 run --config bad.yaml -o badrun -- touch ran
	err_one_line
	err_has "$want"
	[ -e ran ] && fail "CMD ran despite a bad config"
	[ -e badrun ] && fail "a directory was created despite a bad config"
}
bad "'bad.yaml' line 3: unknown key 'sample_ms'" "# comment" "quiet: true" "sample_ms: 5"
bad "'bad.yaml' line 1: unknown key 'o' (the output directory is 'output')" "o: x"
bad "'bad.yaml' line 2: 'sample-ms' expects a number, not a quoted string" "quiet: true" 'sample-ms: "50"'
bad "'bad.yaml' line 1: 'sample-ms' expects a number, not a list" "sample-ms: [1]"
bad "'bad.yaml' line 1: option '--sample-ms' expects 1 to 60000 ms" "sample-ms: 70000"
bad "'bad.yaml' line 1: 'quiet' expects true or false, not maybe" "quiet: maybe"
bad "'bad.yaml' line 1: 'capture-range' expects a string, not a mapping" "capture-range: {a: 1}"
bad "'bad.yaml' line 1: option '--capture-range' expects 'nvtx:NAME'" "capture-range: bogus"
bad "'bad.yaml' line 2: 'delay' given twice" "delay: 1" "delay: 2"
bad "'bad.yaml' line 1: option '--tag': key 'a b' may only have" "tag: {a b: 1}"
bad "'bad.yaml' line 1: 'tag' expects a mapping or a list" "tag:"
bad "'bad.yaml' line 1: option '--schedule': unknown key 'bogus'" "schedule: {bogus: 1}"
bad "'bad.yaml' line 1: expected a mapping of options" "- sample-ms: 5"
bad "'bad.yaml' line 2: " "quiet: true" "  sample-ms: [1"
bad "'bad.yaml': more than one YAML document" "quiet: true" "---" "quiet: false"
bad "option '--schedule' needs '--iter-range NAME'" "schedule: active=1"
# the file is checked even where the command line overrides it
printf 'sample-ms: lots\n' >bad.yaml
expect_rc 2 run --config bad.yaml --sample-ms 10 -o badrun -- true
err_has "'bad.yaml' line 1:"
expect_rc 2 run --config nonexistent.yaml -- true
err_has "cannot read config file 'nonexistent.yaml'"
err_one_line
head -c 1100000 /dev/zero | tr '\0' '#' >big.yaml
expect_rc 2 run --config big.yaml -- true
err_has "larger than"

echo "ok: $NCHECK gpuprof runs"
