#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
check-cycles.py - fails when the files of src/ call each other in a loop.

Reads the objects of a build (libgpuprof's object library, the gpuprof CLI and
libgpuprof-inject.so; not tests, fuzzers or benchmarks) with nm, and draws
the file graph: A -> B when A's object refers to a global symbol that B's
object defines (functions and data alike). Every strongly connected set of
files is a call cycle. A cycle of two files in one folder is allowed (a pair
of files that are one module); one that spans two folders or more than two
files is a missing seam (entry points and the helpers they share belong in
different files, the helpers calling nothing back; docs/internals/inject.md
shows the tracer's) and fails the test, listed with the symbols that make each
of its edges.

Usage: check-cycles.py OBJECT... (CTest passes the targets' object lists,
so objects left behind by renamed files are not read), or check-cycles.py
BUILD_DIR (every object of those targets found there, by hand). Exit 0: no
cycle but those allowed; 1: a cycle to fix; 77 (skipped): no nm, or no
objects (nothing built yet).
"""
import os
import shutil
import subprocess
import sys

# The targets read when given a build directory (tests/CMakeLists.txt names the same).
TARGETS = ("gpuprof_obj", "gpuprof", "gpuprof_inject")


DEFINED = set("TDBRCGSVW")  # global definitions (nm's upper-case letters)


def objects(args):
    """{source path relative to the project ("src/..."): object path}"""
    paths = []
    if len(args) == 1 and os.path.isdir(args[0]):
        for target in TARGETS:
            top = os.path.join(args[0], "CMakeFiles", target + ".dir")
            for d, _, files in os.walk(top):
                paths += [os.path.join(d, f) for f in sorted(files) if f.endswith(".c.o")]
    else:
        paths = args
    out = {}
    for obj in paths:
        # CMake's layout: CMakeFiles/<target>.dir/<source path>.o
        src = obj.replace(os.sep, "/").split(".dir/", 1)[-1][: -len(".o")]
        if src.startswith("src/") and os.path.isfile(obj):
            out.setdefault(src, obj)
    return out


def symbols(nm, obj):
    """(defined, referenced) global symbol names of one object"""
    res = subprocess.run([nm, obj], capture_output=True, text=True, check=True)
    defs, refs = set(), set()
    for line in res.stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in DEFINED:
            defs.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            refs.add(p[1])
    return defs, refs


def cycles(graph):
    """the strongly connected sets of more than one file (Tarjan, iterative), sorted"""
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    nm = shutil.which("nm")
    objs = objects(sys.argv[1:])
    if not nm or not objs:
        print("skipped: " + ("no nm" if not nm else "no objects of src/"))
        return 77
    definer, refs = {}, {}
    for src, obj in sorted(objs.items()):
        defs, refs[src] = symbols(nm, obj)
        for s in defs:
            definer.setdefault(s, src)
    edges = {}  # (a, b): symbols of b that a refers to
    for a, names in refs.items():
        for s in names:
            b = definer.get(s)
            if b and b != a:
                edges.setdefault((a, b), set()).add(s)
    graph = {src: set() for src in objs}
    for a, b in edges:
        graph[a].add(b)

    bad = 0
    found = cycles(graph)
    for comp in found:
        folders = {os.path.dirname(f) for f in comp}
        if len(folders) == 1 and len(comp) <= 2:
            verdict = "ok (two files of one folder)"
        else:
            verdict = "FAIL: spans %d folders, %d files" % (len(folders), len(comp))
            bad += 1
        print("cycle: %s\n  %s" % (" ".join(comp), verdict))
        if verdict.startswith("FAIL"):
            for a in comp:
                for b in comp:
                    if (a, b) in edges:
                        print("    %s -> %s: %s" % (a, b, " ".join(sorted(edges[(a, b)]))))
    print("%d files, %d cycles, %d to fix" % (len(objs), len(found), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
