#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t0021-abi-symbols.sh - libgpuprof's ABI is what src/lib/libgpuprof.map says: the symbols
# the built libgpuprof.so exports are exactly the map's, each in its release's version node,
# every one declared GP_API in include/gpuprof/*.h and named gp_ (never gp__), and the
# soname is libgpuprof.so.0. A public function added to a header without the map, a symbol
# dropped from the library or the map, or an internal one exported fails here.
. "$(dirname "$0")/lib.sh"
need nm objdump python3

B="${GP_BUILD_DIR:-$GP_SRC_DIR/build}"
LIB="$B/libgpuprof.so"
[ -e "$LIB" ] || { echo "skip: no $LIB"; exit 77; }

NCHECK=$((NCHECK + 1))
objdump -p "$LIB" >"$TMP/dyn" || fail "objdump -p $LIB"
grep -qE '^ *SONAME +libgpuprof\.so\.0$' "$TMP/dyn" || fail "soname: $(grep SONAME "$TMP/dyn")"

NCHECK=$((NCHECK + 1))
nm -D --defined-only "$LIB" >"$TMP/nm" || fail "nm -D $LIB"
python3 - "$GP_SRC_DIR" "$TMP/nm" "${GP_SANITIZED:-0}" <<'EOF' || fail "exported symbols differ from libgpuprof.map"
import glob, os, re, sys
src, nm_file, sanitized = sys.argv[1], sys.argv[2], sys.argv[3] == "1"

def uncomment(s):
    return re.sub(r"/\*.*?\*/", " ", s, flags=re.S)

# the map: NODE { global: a; b; local: *; } [PARENT];
text = uncomment(open(os.path.join(src, "src/lib/libgpuprof.map")).read())
text = re.sub(r"#[^\n]*", " ", text)
mapped = {}  # symbol -> node
for m in re.finditer(r"([A-Za-z_][\w.]*)\s*\{(.*?)\}\s*[\w.]*\s*;", text, re.S):
    node, body = m.group(1), m.group(2)
    scope = None
    for tok in re.findall(r"[\w.*]+:?|;", body):
        if tok in ("global:", "local:"):
            scope = tok
        elif tok != ";" and scope == "global:":
            if tok in mapped:
                sys.exit("map: %s is in %s and in %s" % (tok, mapped[tok], node))
            mapped[tok] = node
nodes = set(mapped.values())
if not mapped:
    sys.exit("map: no exported symbol found")

# the library: NAME@@NODE (default version) for every defined global
exported, bad = {}, []
for line in open(nm_file):
    f = line.split()
    if len(f) < 3:
        continue
    name, _, ver = f[2].partition("@")
    ver = ver.lstrip("@")
    if f[1] == "A" and name in nodes:
        continue  # the version nodes themselves
    if not name.startswith("gp") and sanitized:
        continue  # what a sanitizer runtime adds
    exported[name] = ver

# the headers: every GP_API declaration
declared = set()
for h in glob.glob(os.path.join(src, "include/gpuprof/*.h")):
    s = uncomment(open(h).read())
    for m in re.finditer(r"^[ \t]*GP_API\b[^;{]*?\b([A-Za-z_]\w*)\s*\(", s, re.M):
        declared.add(m.group(1))

errs = []
for n in sorted(set(exported) - set(mapped)):
    errs.append("exported but not in libgpuprof.map: %s" % n)
for n in sorted(set(mapped) - set(exported)):
    errs.append("in libgpuprof.map but not exported (removed, or not GP_API): %s" % n)
for n in sorted(set(exported) & set(mapped)):
    if exported[n] != mapped[n]:
        errs.append("%s: version %r in the library, node %s in the map" % (n, exported[n], mapped[n]))
for n in sorted(declared - set(mapped)):
    errs.append("declared GP_API in include/gpuprof but not in libgpuprof.map: %s" % n)
for n in sorted(set(mapped) - declared):
    errs.append("in libgpuprof.map but declared GP_API in no public header: %s" % n)
for n in sorted(set(exported) | set(mapped)):
    if not n.startswith("gp_") or n.startswith("gp__"):
        errs.append("not a public name (gp_, never gp__): %s" % n)
if errs:
    print("\n".join(errs), file=sys.stderr)
    sys.exit(1)
print("%d symbols in %d nodes" % (len(mapped), len(nodes)))
EOF
done_ok
