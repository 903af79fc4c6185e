#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# profile_stages.sh [--gpuprof BIN] TRACE...: where `gpuprof analyze --json` spends its time,
# stage by stage (issue 26's profile): inflate, scan and parse, build (the model's tables),
# context (sorts and indexes), each analysis section, findings, write (JSON text), free.
#
# Each stage's cost is the inclusive instruction count of its entry point under callgrind
# (`--threads 1`, deterministic: no other process moves it), and its time that share of the
# process's measured CPU time on one thread (`perf stat -r 5 ... --threads 1`, task-clock),
# next to the wall time of a normal run on every CPU (`perf stat -r 5`). Needs valgrind and
# perf (Debian: valgrind, linux-perf); a build with symbols reads best (-DCMAKE_C_FLAGS=-g).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gp=${GPUPROF:-$here/../build/gpuprof}
while [ $# -gt 0 ]; do
	case $1 in
	--gpuprof) gp=$2; shift 2 ;;
	-h | --help) sed -n '2,11p' "$0"; exit 0 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: bench/profile_stages.sh [--gpuprof BIN] TRACE..." >&2; exit 2; }
for tool in valgrind callgrind_annotate perf; do
	command -v $tool >/dev/null || { echo "profile_stages.sh: $tool is missing" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/gp-prof.XXXXXX")
trap 'rm -rf "$work"' EXIT

# the mean task-clock (ms of CPU) and wall time (ms) of 5 runs of the command: "cpu wall"
stat5() {
	perf stat -r 5 "$@" 2>&1 >/dev/null |
		awk '/msec task-clock/ { c = $1 } /seconds time elapsed/ { w = $1 * 1000 }
		     END { printf "%.1f %.1f\n", c, w }'
}

for f in "$@"; do
	case $f in
	*.gz) bytes=$(gzip -dc "$f" | wc -c) ;;
	*) bytes=$(stat -L -c %s "$f") ;;
	esac
	read -r cpu1 _ < <(stat5 "$gp" analyze --json --threads 1 -q -o /dev/null "$f")
	read -r cpuN wallN < <(stat5 "$gp" analyze --json -q -o /dev/null "$f")
	valgrind --tool=callgrind --callgrind-out-file="$work/cg" \
		"$gp" analyze --json --threads 1 -q -o /dev/null "$f" >/dev/null 2>&1
	callgrind_annotate --inclusive=yes --threshold=100 "$work/cg" 2>/dev/null >"$work/ann"
	python3 - "$work/ann" "$f" "$bytes" "$cpu1" "$cpuN" "$wallN" <<'EOF'
import re, sys
ann, name, nbytes, cpu1, cpun, walln = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:7])
inc, total = {}, None
for line in open(ann, encoding="utf-8", errors="replace"):
    m = re.match(r"\s*([\d,]+) \([\s\d.]+%\)\s+(\S+?):(\S+) ", line)
    if m:
        fn = m.group(3)  # a recursive function's inner levels (NAME'2) are not its total
        inc.setdefault(fn, int(m.group(1).replace(",", "")))
    elif "PROGRAM TOTALS" in line:
        total = int(line.split()[0].replace(",", ""))
g = lambda fn: inc.get(fn, 0)
rows = [
    ("inflate", g("isal_inflate") + g("inflate")),
    ("scan + parse", g("gp__kineto_events") - g("gp__kineto_commit")),
    ("build (model)", g("gp__kineto_commit")),
    ("context (sorts)", g("gp__actx_init_with")),
]
for fn in sorted(k for k in inc if k.startswith("gp__an_") and k not in ("gp__an_findings", "gp__an_run_dirs")):
    rows.append(("  " + fn[len("gp__an_"):], g(fn)))
rows += [("findings", g("gp__an_findings")), ("write (JSON)", g("gp_value_to_json") + g("gp_value_write_json")),
         ("free", g("gp_value_free") + g("gp_trace_free"))]
rows.append(("other (start, exit, glue)", total - sum(r[1] for r in rows)))
mb = nbytes / 1e6
print("== %s: %.1f MB JSON; one thread %.1f ms CPU (%.0f MB/s); all CPUs %.1f ms wall, %.1f ms CPU (%.0f MB/s)"
      % (name, mb, cpu1, mb / cpu1 * 1e3, walln, cpun, mb / walln * 1e3))
print("%-28s %12s %7s %9s %9s" % ("stage", "instructions", "share", "ms (1 th)", "instr/B"))
for st, n in rows:
    print("%-28s %12s %6.1f%% %9.2f %9.2f" % (st, format(n, ","), 100 * n / total, cpu1 * n / total, n / nbytes))
print("%-28s %12s %6.1f%% %9.2f %9.2f" % ("total", format(total, ","), 100.0, cpu1, total / nbytes))
EOF
done
