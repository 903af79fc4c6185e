#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""findings_advice.py - every finding's advice fits the device, and names only commands
and options that exist.

Usage: findings_advice.py GPUPROF SHARED_TRACES_DIR DOCS_FINDINGS_MD

For every device (a built-in set: V100, A100, H100, MI250, MI300X, a GPU of unknown make;
plus the deviceProperties of every trace under SHARED_TRACES_DIR, when there), synthetic
traces that make every rule fire are analysed with that device's deviceProperties, and
every real shared trace is analysed as it is. Each finding is then checked:

- fit: NVIDIA advice uses no ROCm words and, before sm_80, no bfloat16 autocast, TF32 or
  FP8 (fp16 with GradScaler instead); AMD advice uses ROCm's words (Matrix Cores, HIP graphs,
  hipBLASLt, compute units, rocprof-compute) and none of NVIDIA's; advice for a GPU of unknown
  make names both vendors' terms or neither; a suggested larger batch states the device's
  memory when the trace has it;
- commands: every `gpuprof CMD ...` in a title or a suggestion names a command that
  `gpuprof help` lists as available, and each of its --options is in `gpuprof CMD -h`;
  an --option outside such a span fails too. The table is read from the binary, so a command
  that lands later (aggregate) may be suggested again without changing this test;
- numbers: no finding with impact_pct under 1 %; "1 copy", never "1 copies";
- evidence adds up to what the title says: sync-in-step's parts (sync_ns + item_ns +
  dtoh_copy_call_ns - parts_overlap_ns) are host_blocked_ns; no "inside the step" or "step
  time" without ProfilerStep; launch-bound's launch-call criterion is met by the typical
  calls (the outliers left out), never by one slow call alone; findings that explain the same
  idle time (gpu-idle with launch-bound, gpu-idle with sync-in-step) name each other; a
  queue time summed over streams says so.

Every rule id of docs/analyses/findings.md must fire at least once, so a new rule is checked.
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

GPUPROF, SHARED, DOCS = sys.argv[1], sys.argv[2], sys.argv[3]
bad = []

# ---- the command table, from the binary ----


def command_table():
    out = subprocess.run([GPUPROF, "help"], capture_output=True, text=True).stdout
    cmds = {}
    for line in out.splitlines():
        m = re.match(r"^ {2,}([a-z][a-z0-9-]*) {2,}(.*)$", line)
        if m:
            cmds[m.group(1)] = "not in this version" not in m.group(2)
    table = {}
    for c, available in cmds.items():
        opts = set()
        if available:
            h = subprocess.run([GPUPROF, c, "-h"], capture_output=True, text=True)
            for line in (h.stdout + h.stderr).splitlines():
                if re.match(r"^\s+-", line):
                    spec = re.split(r"\s{2,}", line.strip())[0]
                    opts.update(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", spec))
        table[c] = (available, opts)
    return table


TABLE = command_table()
if "analyze" not in TABLE or not TABLE["analyze"][1]:
    print("could not read the command table from 'gpuprof help'")
    sys.exit(1)


def check_commands(where, text):
    spans = re.findall(r"`([^`]*)`", text)
    for span in spans:
        words = span.split()
        if not words or words[0] != "gpuprof":
            continue
        if len(words) < 2 or words[1] not in TABLE:
            bad.append(f"{where}: `{span}` names no gpuprof command")
            continue
        available, opts = TABLE[words[1]]
        if not available:
            bad.append(f"{where}: `{span}`: 'gpuprof {words[1]}' is not available")
        for w in words[2:]:
            o = w.split("=")[0]
            if o.startswith("--") and o not in opts:
                bad.append(f"{where}: `{span}`: {o} is not an option of gpuprof {words[1]}")
    outside = re.sub(r"`[^`]*`", "", text)
    for m in re.finditer(r"(?<![\w-])--[a-z][a-z0-9-]*", outside):
        bad.append(f"{where}: option {m.group(0)} without its `gpuprof COMMAND`")
    for m in re.finditer(r"\bgpuprof ([a-z]+)", outside):
        if m.group(1) not in TABLE or not TABLE[m.group(1)][0]:
            bad.append(f"{where}: 'gpuprof {m.group(1)}' is not an available command")


# ---- what fits a device ----

NV_ONLY = [r"\bNVIDIA\b", r"\bCUDA graph", r"Tensor Core", r"\bTF32\b", r"allow_tf32", r"\bnsys\b", r"Nsight",
           r"\bncu\b", r"CUPTI", r"cuBLAS", r"cuDNN", r"\bsm_\d", r"\bSMs\b", r"NVLink",
           r"NVSwitch", r"Transformer Engine"]
AMD_ONLY = [r"\bAMD\b", r"\bHIP\b", r"\bHIP graph", r"ROCm", r"rocprof", r"Matrix Core", r"MFMA",
            r"hipBLAS", r"\bRCCL\b", r"\bLDS\b", r"compute units", r"Infinity Fabric"]
# wording that belongs to another item of issue 21 (the launch-bound rule is rewritten
# there): listed here so that this test passes meanwhile; remove an entry once its rule
# takes the device into account
KNOWN_UNFIT = set()


def hits(pats, text):
    return [p for p in pats if re.search(p, text)]


def check_fit(where, f, vendor, cc, mem):
    fid, text = f["id"], f["title"] + " | " + f["suggestion"]
    if vendor == "nvidia":
        wrong = hits(AMD_ONLY, text)
        if cc is not None and cc < 80:
            wrong += hits([r"torch\.bfloat16", r"allow_tf32", r"set_float32_matmul_precision",
                           r"\bFP8\b"], text)
        if cc is not None and cc < 89:
            wrong += hits([r"\bFP8\b"], text)
    elif vendor == "amd":
        wrong = [p for p in hits(NV_ONLY, text) if (fid, p) not in KNOWN_UNFIT]
    else:
        nv, amd = hits(NV_ONLY, text), hits(AMD_ONLY, text)
        wrong = [p for p in nv if not amd and (fid, p) not in KNOWN_UNFIT]
        wrong += [p for p in amd if not nv]
        wrong += hits([r"allow_tf32", r"\bFP8\b"], text)
    for p in wrong:
        bad.append(f"{where}: {fid} on a {vendor} GPU (cc {cc}) says /{p}/: {text}")
    if fid == "fp32-gemm-no-tc":
        need = []
        if vendor == "nvidia" and cc is not None:
            need = [r"Tensor Core", rf"sm_{cc}\b"]
            need += [r"torch\.float16", r"GradScaler"] if cc < 80 else [r"torch\.bfloat16"]
        elif vendor == "amd":
            need = [r"Matrix Core", r"torch\.bfloat16", r"hipBLASLt"]
        for p in need:
            if not re.search(p, text):
                bad.append(f"{where}: {fid} on a {vendor} GPU (cc {cc}) lacks /{p}/: {text}")
    if mem and "larger batch" in f["suggestion"]:
        gib = f"{mem / 2**30:.1f} GiB"
        if gib not in f["suggestion"]:
            bad.append(f"{where}: {fid} suggests a larger batch without the {gib} of the GPU")


PLURAL = re.compile(r"(?<![\d.,])1 ((?:[\w.()-]+ ){0,2}?)(copies|calls|launches|kernels|"
                    r"streams|steps|iterations|ranks|devices)\b")


def check_numbers(where, f):
    imp = f.get("impact_pct")
    if imp is not None and imp < 1.0:
        bad.append(f"{where}: {f['id']} listed with {imp:.4f} % at stake: {f['title']}")
    for t in (f["title"], f["suggestion"]):
        m = PLURAL.search(t)
        if m:
            bad.append(f"{where}: {f['id']}: '{m.group(0)}' in: {t}")


def check_evidence(where, r):
    fs = {f["id"]: f for f in r["findings"]}
    steps = r.get("steps") or []
    no_steps = bool(steps) and all(x.get("number") is None for x in steps)
    for fid, f in fs.items():
        e, t = f["evidence"], f["title"]
        if no_steps and ("inside the step" in t or "step time" in t):
            bad.append(f"{where}: {fid}: a trace without ProfilerStep: {t}")
        if fid == "sync-in-step":
            keys = ("sync_ns", "item_ns", "dtoh_copy_call_ns", "parts_overlap_ns")
            if any(k not in e for k in keys):
                bad.append(f"{where}: sync-in-step: evidence lacks the parts of host_blocked_ns")
                continue
            parts = e["sync_ns"] + e["item_ns"] + e["dtoh_copy_call_ns"] - e["parts_overlap_ns"]
            if parts != e["host_blocked_ns"] or e["parts_overlap_ns"] < 0:
                bad.append(f"{where}: sync-in-step: parts add up to {parts}, "
                           f"host_blocked_ns is {e['host_blocked_ns']}")
        if fid == "launch-bound":
            many_short = (e["kernel_med_ns"] is None or e["kernel_med_ns"] < 10000) and \
                e["kernels_shorter_than_launch_pct"] > 50
            if not many_short and e.get("typical_launch_calls_ns", -1) < e["gpu_busy_ns"]:
                bad.append(f"{where}: launch-bound from outlier launch calls "
                           f"(typical {e.get('typical_launch_calls_ns')} ns, all "
                           f"{e['launch_calls_ns']} ns, busy {e['gpu_busy_ns']} ns)")
        if fid == "queue-saturated" and e.get("streams_at_limit", 0) > 1 and "summed" not in t:
            bad.append(f"{where}: queue-saturated: a sum over streams, not said: {t}")
    pairs = [("gpu-idle", "launch-bound", None),
             ("gpu-idle", "sync-in-step", "sync_blocked_while_idle_ns")]
    for a, b, key in pairs:
        if a in fs and b in fs and (key is None or key in fs[a]["evidence"]):
            for x, y in ((a, b), (b, a)):
                if y not in fs[x]["suggestion"]:
                    bad.append(f"{where}: {x} and {y} explain the same idle time, but {x} "
                               f"does not name {y}")


# ---- devices ----

BUILTIN = [
    ("V100", {"id": 0, "name": "Tesla V100-SXM2-16GB", "totalGlobalMem": 16945512448,
              "computeMajor": 7, "computeMinor": 0, "warpSize": 32, "numSms": 80}, {}),
    ("A100", {"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42297524224,
              "computeMajor": 8, "computeMinor": 0, "warpSize": 32, "numSms": 108}, {}),
    ("H100", {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
              "computeMajor": 9, "computeMinor": 0, "warpSize": 32, "numSms": 132}, {}),
    ("MI250", {"id": 0, "name": "AMD Radeon Graphics", "totalGlobalMem": 68702699520,
               "computeMajor": 9, "computeMinor": 0, "warpSize": 64, "numSms": 104}, {}),
    ("MI300X", {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992,
                "computeMajor": 9, "computeMinor": 4, "warpSize": 64, "numSms": 304},
     {"hip_runtime_version": 60443483, "roctracer_version": 4.1}),
    ("unknown", {"id": 0, "name": "Example GPU", "computeMajor": 9, "computeMinor": 0}, {}),
]


def vendor_of(props, meta, text=""):
    name = (props or {}).get("name") or ""
    if re.search(r"\b(NVIDIA|Tesla|Quadro|GeForce|TITAN)\b", name, re.I):
        return "nvidia"
    if re.search(r"\b(AMD|Radeon|Instinct)\b", name, re.I) or (props or {}).get("warpSize") == 64:
        return "amd"
    if any(k in meta for k in ("hip_runtime_version", "roctracer_version")):
        return "amd"
    if any(k in meta for k in ("cuda_runtime_version", "cupti_version")):
        return "nvidia"
    if "hipLaunchKernel" in text:
        return "amd"
    if "cudaLaunchKernel" in text or "cuLaunchKernel" in text:
        return "nvidia"
    return None


def cc_of(props):
    if props and "computeMajor" in props:
        return props["computeMajor"] * 10 + props.get("computeMinor", 0)
    return None


def shared_traces():
    out = []
    for root, _, files in os.walk(SHARED):
        for n in sorted(files):
            if n.endswith(".json.gz") or (n.endswith(".json") and "reference" not in root):
                out.append(os.path.join(root, n))
    return sorted(out)


def read_trace_head(path):
    """deviceProperties, the vendor keys and the trace text, without parsing every event"""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    props = []
    i = text.find('"deviceProperties"')
    if i >= 0:
        j = text.index("[", i)
        props, _ = json.JSONDecoder().raw_decode(text, j)
    meta = {k: 1 for k in ("hip_runtime_version", "roctracer_version", "cuda_runtime_version",
                           "cupti_version") if f'"{k}"' in text}
    return props, meta, text


# ---- synthetic traces that make every rule fire ----


def ev(cat, name, pid, tid, ts, dur, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
            "args": args}


def gen(vendor, props, meta, scenario):
    api = {"nvidia": "cuda", "amd": "hip"}.get(vendor)
    gemm = {"nvidia": "volta_sgemm_128x64_nn", "amd": "Cijk_Alik_Bljk_SB_MT64x64x8_SN"}.get(
        vendor, "sgemm_128x64_nn")
    evs, corr = [], [0]

    def launch(ts, name, kts, kdur, stream=7, cat="kernel", ldur=20, **a):
        corr[0] += 1
        if api:
            call = {"kernel": "LaunchKernel", "gpu_memcpy": "MemcpyAsync"}[cat]
            evs.append(ev("cuda_runtime", api + call, 1, 1, ts, ldur, correlation=corr[0]))
        evs.append(ev(cat, name, 0, stream, kts, kdur, device=0, stream=stream,
                      correlation=corr[0], **a))

    if scenario == "cpu":
        for k in range(3):
            s = k * 10000
            evs.append(ev("user_annotation", f"ProfilerStep#{k}", 1, 1, s, 10000))
            evs.append(ev("cpu_op", "aten::mm", 1, 1, s + 100, 5000))
    elif scenario == "queue":
        evs.append(ev("user_annotation", "ProfilerStep#0", 1, 1, 0, 30000))
        for k in range(1100):
            launch(k, "elementwise_kernel", 10000 + 10 * k, 10, ldur=1,
                   **{"est. achieved occupancy %": 60})
    elif scenario == "modules":  # annotate_modules ranges: one Block call of four is slow
        evs.append(ev("user_annotation", "ProfilerStep#0", 1, 1, 0, 20000))
        evs.append(ev("user_annotation", "<root> (Net)", 1, 1, 500, 18000))
        for k in range(4):
            s = 1000 + 4000 * k
            evs.append(ev("user_annotation", f"blocks.{k} (Block)", 1, 1, s, 3000))
            launch(s + 100, gemm, s + 200, 2000 if k == 2 else 500)
    elif scenario == "roofline":
        # fp32 ops far from the roofline (with shapes): an unfused attention, a convolution
        evs.append(ev("user_annotation", "ProfilerStep#0", 1, 1, 0, 100000))
        ops = [("aten::bmm", [[64, 512, 64], [64, 64, 512]], ["float", "float"], None),
               ("aten::_softmax", [[64, 512, 512], [], []], ["float", "Scalar", "Scalar"],
                ["", "-1", "False"]),
               ("aten::convolution", [[32, 64, 56, 56], [64, 64, 1, 1], [], [], [], [], [], [],
                                      []],
                ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                 "ScalarList", "Scalar"],
                ["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"])]
        for k, (name, dims, types, conc) in enumerate(ops):
            a = {"External id": 10 + k, "Input Dims": dims, "Input type": types}
            if conc:
                a["Concrete Inputs"] = conc
            evs.append(ev("cpu_op", name, 1, 1, 100 + 1000 * k, 500, **a))
            corr[0] += 1
            if api:
                evs.append(ev("cuda_runtime", api + "LaunchKernel", 1, 1, 200 + 1000 * k, 20,
                              correlation=corr[0], **{"External id": 10 + k}))
            evs.append(ev("kernel", f"kernel_{k}", 0, 7, 5000 + 30000 * k, 25000, device=0,
                          stream=7, correlation=corr[0], **{"External id": 10 + k}))
    elif scenario == "leak":  # every step keeps 1 MiB made by aten::cat
        total = 1 << 30
        for k in range(4):
            s = k * 10000
            evs.append(ev("user_annotation", f"ProfilerStep#{k}", 1, 1, s, 10000))
            evs.append(ev("cpu_op", "aten::cat", 1, 1, s + 100, 1000))
            launch(s + 200, gemm, s + 300, 2000)
            for ts, b, addr in ((s + 150, 1 << 20, 0x7F0000000000 + k * 0x100000),
                                (s + 160, 4096, 0x7E0000000000),
                                (s + 900, -4096, 0x7E0000000000)):
                total += b
                evs.append({"ph": "i", "s": "t", "cat": "cpu_instant_event",
                            "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                            "args": {"Bytes": b, "Addr": addr, "Total Allocated": total,
                                     "Total Reserved": 2 << 30, "Device Id": 0,
                                     "Device Type": 1}})
    else:  # "host": the GPU waits for a host that loads data, syncs and launches small kernels
        occ = {"est. achieved occupancy %": 10}
        for k in range(3):
            s = k * 10000
            evs.append(ev("user_annotation", f"ProfilerStep#{k}", 1, 1, s, 10000))
            evs.append(ev("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                          1, 1, s, 2000))
            for i in range(30):
                launch(s + 2000 + i * 100, "elementwise_kernel", s + 2025 + i * 100, 5, **occ)
            launch(s + 5500, gemm, s + 5520, 1500, ldur=10, **occ)
            launch(s + 7100, "Memcpy HtoD (Pageable -> Device)", s + 7110, 500, cat="gpu_memcpy",
                   ldur=600, bytes=1 << 24)
            if api:
                evs.append(ev("cuda_runtime", api + "StreamSynchronize", 1, 1, s + 7800, 300))
            evs.append(ev("cpu_op", "aten::item", 1, 1, s + 8200, 100))
            launch(s + 8450, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", s + 8460, 1400,
                   stream=20, ldur=10, **occ)
    doc = {"schemaVersion": 1, "deviceProperties": [props] if props else [],
           "traceEvents": evs}
    doc.update(meta)
    return doc


def analyze(path):
    p = subprocess.run([GPUPROF, "analyze", "--json", "-q", path], capture_output=True,
                       text=True)
    if p.returncode != 0:
        bad.append(f"{path}: gpuprof analyze exited {p.returncode}: {p.stderr.strip()[:200]}")
        return []
    return json.loads(p.stdout)["ranks"]


def main():
    doc = open(DOCS).read()
    doc = doc[doc.index("\n## Rules"):]
    doc = doc[: doc.find("\n## ", 1)]
    rules = set(re.findall(r"^\| `([a-z0-9-]+)` \|", doc, re.M))
    fired = set()
    devices = list(BUILTIN)
    traces = shared_traces() if os.path.isdir(SHARED) else []
    seen = set()
    real = []
    for path in traces:
        props, meta, text = read_trace_head(path)
        vendor = vendor_of(props[0] if props else None, meta, text)
        real.append((path, props, vendor))
        for p in props[:1]:
            key = json.dumps(p, sort_keys=True)
            if key not in seen:
                seen.add(key)
                devices.append((os.path.basename(path), p, meta))
    nfind = 0
    with tempfile.TemporaryDirectory() as tmp:
        for label, props, meta in devices:
            vendor = vendor_of(props, meta)
            for scen in ("host", "queue", "cpu", "modules", "roofline", "leak"):
                path = os.path.join(tmp, f"{scen}.json")
                with open(path, "w") as fh:
                    json.dump(gen(vendor, props, meta, scen), fh)
                for r in analyze(path):
                    check_evidence(f"{label}/{scen}", r)
                    for f in r["findings"]:
                        where = f"{label}/{scen}"
                        fired.add(f["id"])
                        nfind += 1
                        check_fit(where, f, vendor, cc_of(props), props.get("totalGlobalMem"))
                        check_commands(f"{where}: {f['id']}", f["title"] + " " + f["suggestion"])
                        check_numbers(where, f)
    for path, props, vendor in real:
        p0 = props[0] if props else None
        for r in analyze(path):
            check_evidence(os.path.basename(path), r)
            for f in r["findings"]:
                where = os.path.basename(path)
                fired.add(f["id"])
                nfind += 1
                mem = p0.get("totalGlobalMem") if p0 and len({x.get("name") for x in props}) == 1 else None
                check_fit(where, f, vendor, cc_of(p0), mem)
                check_commands(f"{where}: {f['id']}", f["title"] + " " + f["suggestion"])
                check_numbers(where, f)
    for rid in sorted(rules - fired):
        bad.append(f"rule {rid} (docs/analyses/findings.md) never fired: add a scenario for it")
    if not rules:
        bad.append(f"no rule ids found in {DOCS}")
    if os.environ.get("GP_VERBOSE"):
        print("fired:", " ".join(sorted(fired)))
    print(f"{nfind} findings over {len(devices)} devices and {len(real)} shared traces")
    print("\n".join(bad) or "every finding fits its device and names only what exists")
    return 1 if bad else 0


sys.exit(main())
