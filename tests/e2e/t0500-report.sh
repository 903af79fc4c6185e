#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0500-report.sh - `gpuprof report` without a browser: the page of a trace,
# of analyze, bench and compare JSON; its data is the document `analyze --json`
# (bench, compare) wrote, number for number; the default output beside the
# input, -o -, determinism; the static checks of reportpage.py (a CSP with no
# fetch, only the page's two scripts, nothing that loads a resource); hostile
# names from a trace and a file name stay text in every context; the script
# builds no HTML from strings; errors. t0501 opens the pages in Chromium.
. "$(dirname "$0")/lib.sh"
need python3
RP="$GP_SRC_DIR/tests/e2e/reportpage.py"
need_gen_trace
cd "$TMP" || exit 1

static_ok() {
	NCHECK=$((NCHECK + 1))
	python3 "$RP" static "$1" >static.txt || fail "static checks of $1: $(cat static.txt)"
}

"$GEN" --steps 6 -o ex.json 2>/dev/null || fail "gen_trace"

# --- a trace: default output beside it, the message, the data is analyze's report
expect_rc 0 report ex.json
[ -s ex.report.html ] || fail "no ex.report.html beside ex.json"
err_has "gpuprof: wrote 'ex.report.html' ("
static_ok ex.report.html
"$GPUPROF" analyze --json ex.json >analyze.json || fail "analyze --json"
python3 "$RP" data ex.report.html page.json || fail "no page data"
NCHECK=$((NCHECK + 1))
python3 - <<'EOF' || fail "page model of a trace (above)"
import json
p = json.load(open("page.json"))
a = json.load(open("analyze.json"))
assert p["schema"] == "gpuprof.page/1" and p["kind"] == "analyze", p["kind"]
assert p["doc"] == a, "the page's document is not analyze --json's"
assert p["title"] == "ex.json" and p["inputs"] == ["ex.json"], (p["title"], p["inputs"])
assert p["perfetto"]["files"] == ["ex.json"], p["perfetto"]
assert p["perfetto"]["command"] == "gpuprof export ex.json -o trace.chrome.json"
assert p["env"]["source_version"] == a["gpuprof_version"]
r = a["ranks"][0]
assert r["timeline"]["bins"] == 200 and r["timeline"]["streams"], "no timeline in the report"
EOF

# deterministic, and -o - writes the same bytes to stdout; -q says nothing
expect_rc 0 report -q -o - ex.json
out_empty_err=$(cat "$ERR")
[ -z "$out_empty_err" ] || fail "-q wrote to stderr: $out_empty_err"
cmp -s "$OUT" ex.report.html || fail "-o - differs from the file"
expect_rc 0 report -q -o again.html ex.json
cmp -s again.html ex.report.html || fail "two reports of one trace differ"

# --- analyze JSON, --top, --title, --rank
expect_rc 0 report -q --top 3 --title "My run" -o a.html analyze.json
static_ok a.html
python3 "$RP" data a.html a.json
NCHECK=$((NCHECK + 1))
python3 - <<'EOF' || fail "page model of an analyze report (above)"
import json
p = json.load(open("a.json"))
assert p["kind"] == "analyze" and p["title"] == "My run"
r = p["doc"]["ranks"][0]
assert len(r["kernels"]) == 3 and r["kernels_omitted"]["rows"] > 0, len(r["kernels"])
# the trace it came from is what Perfetto opens
assert p["perfetto"]["command"].endswith("ex.json -o trace.chrome.json"), p["perfetto"]
EOF
expect_rc 0 report -q --rank 0 -o r0.html analyze.json
expect_rc 1 report -q --rank 5 -o r5.html analyze.json
err_has "no rank 5"
[ ! -e r5.html ] || fail "a page was written for a rank that is not there"

# --- bench and compare results
"$GPUPROF" bench --json --runs 5 -- true >b1.json 2>/dev/null || fail "bench"
"$GPUPROF" bench --json --runs 5 -- true >b2.json 2>/dev/null || fail "bench 2"
"$GPUPROF" compare --json b1.json b2.json >cmp.json
[ $? -le 3 ] || fail "compare"
for k in b1 cmp; do
	expect_rc 0 report -q -o $k.html $k.json
	static_ok $k.html
	python3 "$RP" data $k.html $k.page.json
done
NCHECK=$((NCHECK + 1))
python3 - <<'EOF' || fail "bench and compare pages (above)"
import json
b = json.load(open("b1.page.json"))
assert b["kind"] == "bench" and b["doc"] == json.load(open("b1.json"))
assert b["perfetto"] is None and b["env"]["command"] == "true", b["env"]
c = json.load(open("cmp.page.json"))
assert c["kind"] == "compare" and c["doc"] == json.load(open("cmp.json"))
assert c["env"]["command"] == "gpuprof compare b1.json b2.json", c["env"]["command"]
EOF

# --- hostile names: a trace and a file name that try every context
NAME='x<b>&"q'"'"'<img src=y>.json'
python3 "$RP" hostile-trace "$NAME" || fail "hostile trace"
expect_rc 0 report -q -o evil.html "$NAME"
static_ok evil.html
NCHECK=$((NCHECK + 1))
python3 - "$RP" "$NAME" <<'EOF' || fail "hostile names (above)"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("rp", sys.argv[1])
rp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rp)
text = open("evil.html", encoding="utf-8").read()
for k, v in rp.HOSTILE.items():
    # in the data, escaped: never raw where a parser could see markup
    assert v not in text, "%s appears raw in the page" % k
# the file name: in the title, the h1 and its attribute, escaped
assert "<title>gpuprof report: x&lt;b&gt;&amp;&quot;q&#39;&lt;img src=y&gt;.json</title>" in text
assert 'title="x&lt;b&gt;&amp;&quot;q&#39;&lt;img src=y&gt;.json"' in text
assert text.count("<title>") == 1 and text.count("</title>") == 1
d = rp.page_data(text)
r = d["doc"]["ranks"][0]
assert r["kernels"][0]["name"] == rp.HOSTILE["kernel"], r["kernels"][0]["name"]
assert rp.HOSTILE["op"] in [o["name"] for o in r["cpu_ops"]]
assert d["env"]["gpus"] == ["0: <b>GPU</b>"], d["env"]["gpus"]
EOF

# --- the header in the GPU's own terms: a ROCm trace's HIP version is no CUDA version, an AMD
# GPU has compute units and a gfx ISA, not SMs and sm_XY (the shared traces, where present)
T="${GP_SHARED_DIR:-}/traces"
if [ -d "$T/tracelens" ] && [ -d "$T/hta" ]; then
	NCHECK=$((NCHECK + 1))
	expect_rc 0 report -q -o mi300.html "$T/tracelens/mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
	expect_rc 0 report -q -o mi250.html "$T/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz"
	expect_rc 0 report -q -o h100.html "$T/tracelens/h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
	python3 - "$GP_SRC_DIR/tests/e2e" <<'EOF2' || fail "GPU terms in the header (above)"
import sys
sys.path.insert(0, sys.argv[1])
import reportpage as rp
env = lambda f: rp.page_data(open(f, encoding="utf-8").read())["env"]
e = env("mi300.html")
# hip_runtime_version 60443483: HIP_VERSION's encoding (10^7 major + 10^5 minor + patch)
assert e["hip_version"] == "6.4.43483" and e["cuda_version"] is None, e
page = open("mi300.html", encoding="utf-8").read()
assert "<dt>HIP</dt>" in page and "<dt>CUDA</dt>" not in page
# its kernels run on agent 2, deviceProperties lists its one model as 0: named all the same
assert any("MI300X" in g and "gfx9.4" in g and "304 CUs" in g for g in e["gpus"]), e["gpus"]
e = env("mi250.html")
assert e["gpus"] and all("CUs" in g and "gfx9.0" in g and "sm_" not in g for g in e["gpus"]), e["gpus"]
e = env("h100.html")
assert e["gpus"] == ["0: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)"], e["gpus"]
assert e["cuda_version"] == "12.4 (driver API 12.9)" and e["hip_version"] is None, e
EOF2
fi

# --- the script puts strings into the page as text only
NCHECK=$((NCHECK + 1))
if grep -nE 'innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function|setTimeout\(["'"'"']' \
	"$GP_SRC_DIR/src/lib/report/assets/report.js"; then
	fail "report.js builds markup or code from strings (above)"
fi

# --- errors: one message naming the file, exit 1; usage errors exit 2; nothing left behind
expect_rc 1 report -q -o x.html no-such-file.json
err_has "no-such-file.json"
printf '{"schema": "gpuprof.other/1", "x": 1}' >other.json
expect_rc 1 report -q -o x.html other.json
err_has "schema 'gpuprof.other/1' is not one that report reads"
printf '{"traceEvents": [ {"ph": "X", "name": "k", ' >cut.json
expect_rc 1 report -q -o x.html cut.json
err_has "cut.json"
expect_rc 1 report -q --salvage -o cut.html cut.json # nothing precedes the damage
err_has "no events to analyse"
printf '{"traceEvents": [ {"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}, {"ph": "X", "name": "k", ' >cut.json
expect_rc 0 report -q --salvage -o cut.html cut.json
expect_rc 1 report -q -o "$TMP/no-such-dir/x.html" ex.json
[ ! -e x.html ] || fail "a page was written on an error"
ls | grep -q '\.tmp' && fail "a temporary file was left behind: $(ls | grep '\.tmp')"
expect_rc 2 report
expect_rc 2 report ex.json analyze.json
err_has "several inputs: name the output with -o FILE"
expect_rc 2 report --no-such-option ex.json
expect_rc 2 report --top
done_ok
