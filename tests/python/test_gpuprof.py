# SPDX-License-Identifier: MIT
"""Tests of the Python module (python/gpuprof), run by CTest as
``python3 -m unittest`` (test python.gpuprof). Standard library only: torch
is not needed (annotate_modules is tested with a fake module tree that has
the three methods it uses).

- where libgpuprof.so is found: $GPUPROF_LIBRARY (only it), the package
  directory, its parent, the system's library path (each in a fresh
  interpreter, with a copy of the package);
- without the library: the module imports, every call is a no-op, and
  available() says why;
- with a recorder (tests/fake/libfake-annotate.so, which counts): range as a
  context manager (also when the body raises) and as a decorator, frame,
  counter, annotate_modules and its depth and remove();
- past the limit of sites (GPUPROF_ANNOTATE_MAX_SITES): new names go by
  value (ranges, frames, counters, modules), known ones keep their sites, the
  dicts and libgpuprof's registry stay at the limit, one RuntimeWarning;
- under `gpuprof run --no-cuda`: a script's ranges, call sites, marks and
  counters are in the report.

CTest sets GPUPROF (the CLI), GP_LIBGPUPROF (the library), GP_FAKE_NVML_DIR
(the fakes) and GP_SANITIZED in a sanitizer build, where python3 cannot load
the instrumented library (those tests skip). Run by hand from a build
directory ``build``: the defaults below find everything there.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
PYDIR = os.path.join(SRC, "python")
BUILD = os.environ.get("GP_BUILD_DIR", os.path.join(SRC, "build"))
LIB = os.environ.get("GP_LIBGPUPROF", os.path.join(BUILD, "libgpuprof.so"))
GPUPROF = os.environ.get("GPUPROF", os.path.join(BUILD, "gpuprof"))
FAKE = os.path.join(os.environ.get("GP_FAKE_NVML_DIR", os.path.join(BUILD, "tests", "fake")),
                    "libfake-annotate.so")
SANITIZED = os.environ.get("GP_SANITIZED") == "1"

sys.path.insert(0, PYDIR)
sys.dont_write_bytecode = True


def need_lib(test):
    """Skips a test that loads libgpuprof.so into python3."""
    if SANITIZED:
        return unittest.skip("sanitizer build: python3 cannot load the instrumented library")(test)
    if not os.path.isfile(LIB):
        return unittest.skip("no %s" % LIB)(test)
    return test


def clean_env(**kw):
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPUPROF_LIBRARY", "GPUPROF_ANNOTATE_LIBRARY", "LD_LIBRARY_PATH",
                        "LD_PRELOAD", "GPUPROF_RUN_LIBRARY", "GPUPROF_CAPTURE_DIR",
                        "PKG_CONFIG_PATH")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update({k: v for k, v in kw.items() if v is not None})
    return env


def py(code, env, cwd=None, path=PYDIR):
    """Runs code in a fresh python3 with `path` first on sys.path; returns its JSON line."""
    prog = "import sys; sys.path.insert(0, %r)\n" % path + textwrap.dedent(code)
    p = subprocess.run([sys.executable, "-c", prog], env=env, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("python3 failed (%d): %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout.strip().splitlines()[-1])


WHERE = """
import gpuprof, gpuprof._lib as L, json
a = gpuprof.available()
print(json.dumps({"ok": bool(a), "path": a.path, "reason": a.reason,
                  "file": gpuprof.__file__}))
"""

# the fake module tree: what annotate_modules uses of an nn.Module
FAKE_MODULES = """
class Handle:
    def __init__(self, lst, fn):
        self.lst, self.fn = lst, fn
    def remove(self):
        if self.fn in self.lst:
            self.lst.remove(self.fn)

class Module:
    def __init__(self, **children):
        self.children = children
        self.pre, self.post = [], []
    def named_modules(self, prefix=""):
        yield prefix, self
        for n, c in self.children.items():
            yield from c.named_modules(prefix + "." + n if prefix else n)
    def register_forward_pre_hook(self, fn):
        self.pre.append(fn)
        return Handle(self.pre, fn)
    def register_forward_hook(self, fn, always_call=False):
        self.post.append(fn)
        return Handle(self.post, fn)
    def forward(self, x):
        for c in self.children.values():
            x = c(x)
        return x
    def __call__(self, x):
        for h in list(self.pre):
            h(self, (x,))
        out = self.forward(x)
        for h in list(self.post):
            h(self, (x,), out)
        return out

class Linear(Module):
    def forward(self, x):
        return x + 1

class ReLU(Module):
    def forward(self, x):
        return max(x, 0)

class Sequential(Module):
    pass

def model():
    return Sequential(**{"0": Linear(), "1": ReLU(), "2": Sequential(inner=Linear())})
"""


class Discovery(unittest.TestCase):
    """Where libgpuprof.so is looked for, each case in a fresh interpreter."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpuprof-py-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def pkg_copy(self, name):
        """A copy of the package under tmp/name/site/gpuprof; returns the site directory."""
        site = os.path.join(self.tmp, name, "site")
        shutil.copytree(os.path.join(PYDIR, "gpuprof"), os.path.join(site, "gpuprof"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
        return site

    @need_lib
    def test_env_variable(self):
        r = py(WHERE, clean_env(GPUPROF_LIBRARY=LIB))
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["path"], LIB)
        self.assertIsNone(r["reason"])

    def test_env_variable_only(self):
        # a library beside the package is not used when GPUPROF_LIBRARY names another
        site = self.pkg_copy("envonly")
        if os.path.isfile(LIB) and not SANITIZED:
            shutil.copy(LIB, os.path.join(site, "gpuprof", "libgpuprof.so"))
        r = py(WHERE, clean_env(GPUPROF_LIBRARY="/nonexistent/libgpuprof.so"), path=site)
        self.assertFalse(r["ok"], r)
        self.assertIsNone(r["path"])
        self.assertIn("/nonexistent/libgpuprof.so (GPUPROF_LIBRARY)", r["reason"])

    @need_lib
    def test_package_directory_first(self):
        site = self.pkg_copy("pkgdir")
        shutil.copy(LIB, os.path.join(site, "gpuprof", "libgpuprof.so"))
        shutil.copy(LIB, os.path.join(site, "libgpuprof.so"))
        r = py(WHERE, clean_env(), path=site)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["path"], os.path.join(site, "gpuprof", "libgpuprof.so"))
        self.assertTrue(r["file"].startswith(site), r)

    @need_lib
    def test_parent_directory(self):
        site = self.pkg_copy("parent")
        shutil.copy(LIB, os.path.join(site, "libgpuprof.so.0"))
        r = py(WHERE, clean_env(), path=site)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["path"], os.path.join(site, "libgpuprof.so.0"))

    @need_lib
    def test_system_path(self):
        site = self.pkg_copy("system")
        libdir = os.path.join(self.tmp, "system", "lib")
        os.makedirs(libdir)
        shutil.copy(LIB, os.path.join(libdir, "libgpuprof.so.0"))
        r = py(WHERE, clean_env(LD_LIBRARY_PATH=libdir), path=site)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["path"], "libgpuprof.so.0")

    @need_lib
    def test_run_library(self):
        # gpuprof run's GPUPROF_RUN_LIBRARY comes before the package directory, after
        # GPUPROF_LIBRARY
        site = self.pkg_copy("run")
        shutil.copy(LIB, os.path.join(site, "gpuprof", "libgpuprof.so"))
        r = py(WHERE, clean_env(GPUPROF_RUN_LIBRARY=LIB), path=site)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["path"], LIB)
        r = py(WHERE, clean_env(GPUPROF_RUN_LIBRARY="/nonexistent/libgpuprof.so.0"), path=site)
        self.assertTrue(r["ok"], r)
        self.assertEqual(r["path"], os.path.join(site, "gpuprof", "libgpuprof.so"))
        r = py(WHERE, clean_env(GPUPROF_LIBRARY="/nonexistent/libgpuprof.so",
                                GPUPROF_RUN_LIBRARY=LIB), path=site)
        self.assertFalse(r["ok"], r)

    @need_lib
    def test_pkg_config_libdir(self):
        # an installed libgpuprof the loader does not search: pkg-config's libdir
        if shutil.which("pkg-config") is None:
            self.skipTest("no pkg-config")
        site = self.pkg_copy("pc")
        libdir = os.path.join(self.tmp, "pc", "prefix", "lib")
        pcdir = os.path.join(libdir, "pkgconfig")
        os.makedirs(pcdir)
        shutil.copy(LIB, os.path.join(libdir, "libgpuprof.so.0"))
        with open(os.path.join(pcdir, "gpuprof.pc"), "w") as f:
            f.write("prefix=%s\nlibdir=${prefix}/lib\nName: gpuprof\nDescription: x\n"
                    "Version: 0.1.0\nLibs: -L${libdir} -lgpuprof\n"
                    % os.path.dirname(libdir))
        r = py(WHERE, clean_env(LD_LIBRARY_PATH=os.path.join(self.tmp, "empty"),
                                PKG_CONFIG_PATH=pcdir), path=site)
        self.assertTrue(r["ok"], r)
        if r["path"] in ("libgpuprof.so", "libgpuprof.so.0"):
            self.skipTest("a libgpuprof.so is installed on this system")
        self.assertEqual(r["path"], os.path.join(libdir, "libgpuprof.so.0"))

    def test_nothing_found(self):
        site = self.pkg_copy("none")
        r = py(WHERE, clean_env(LD_LIBRARY_PATH=os.path.join(self.tmp, "empty")), path=site)
        if r["ok"]:
            self.skipTest("a libgpuprof.so is installed on this system: %s" % r["path"])
        self.assertIn("libgpuprof.so not loaded", r["reason"])
        self.assertIn("the system's library path", r["reason"])


NOOP = """
import gpuprof, json
calls = []
with gpuprof.range("decode") as r:
    calls.append("with")

@gpuprof.range("step")
def step(x):
    return x * 2

@gpuprof.range()
def unnamed():
    return "u"

@gpuprof.range
def bare():
    return "b"

try:
    with gpuprof.range("raises"):
        raise KeyError("k")
except KeyError:
    calls.append("raised")
gpuprof.frame()
gpuprof.frame("named")
gpuprof.counter("queue", 3)
m = model()
h = gpuprof.annotate_modules(m)
print(json.dumps({"ok": bool(gpuprof.available()), "rec": gpuprof.recording(),
                  "step": step(21), "unnamed": unnamed(), "bare": bare(),
                  "names": [step.__name__, unnamed.__name__, bare.__name__],
                  "calls": calls, "hooks": len(h), "pre": len(m.pre),
                  "out": m(1), "repr": repr(r)}))
"""


class NoRecorder(unittest.TestCase):
    """Without a library, or with one but nothing recording: every call is a no-op."""

    def check(self, r):
        self.assertFalse(r["rec"])
        self.assertEqual(r["step"], 42)
        self.assertEqual(r["unnamed"], "u")
        self.assertEqual(r["bare"], "b")
        self.assertEqual(r["names"], ["step", "unnamed", "bare"])
        self.assertEqual(r["calls"], ["with", "raised"])
        self.assertEqual((r["hooks"], r["pre"]), (0, 0))  # nothing registered
        self.assertEqual(r["out"], 3)
        self.assertEqual(r["repr"], "gpuprof.range('decode')")

    def test_without_library(self):
        r = py(FAKE_MODULES + NOOP, clean_env(GPUPROF_LIBRARY="/nonexistent/libgpuprof.so"))
        self.assertFalse(r["ok"])
        self.check(r)

    @need_lib
    def test_library_without_recorder(self):
        r = py(FAKE_MODULES + NOOP, clean_env(GPUPROF_LIBRARY=LIB))
        self.assertTrue(r["ok"])
        self.check(r)

    def test_bad_arguments(self):
        import gpuprof
        with self.assertRaises(TypeError):
            gpuprof.range(3)
        with self.assertRaises(ValueError):
            gpuprof.annotate_modules(object(), depth=-1)


RECORDER = """
import ctypes, gpuprof, json

class Counts(ctypes.Structure):
    _fields_ = [("inits", ctypes.c_long), ("push", ctypes.c_long), ("pop", ctypes.c_long),
                ("frame", ctypes.c_long), ("counter", ctypes.c_long),
                ("counter_sum", ctypes.c_double), ("last_site", ctypes.c_void_p),
                ("depth", ctypes.c_int), ("max_depth", ctypes.c_int)]

class Site(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("file", ctypes.c_char_p),
                ("func", ctypes.c_char_p), ("line", ctypes.c_uint), ("size", ctypes.c_uint),
                ("tool", ctypes.c_ulonglong)]

out = {"rec": gpuprof.recording()}
fake = ctypes.CDLL(FAKE)  # already loaded by libgpuprof's init: the same instance
fake.fake_annotate_counts.restype = ctypes.POINTER(Counts)
c = fake.fake_annotate_counts().contents

def last():
    s = ctypes.cast(c.last_site, ctypes.POINTER(Site)).contents
    return [s.name.decode(), (s.file or b"").decode(), s.line, (s.func or b"").decode()]

with gpuprof.range("decode"):
    out["in_with"] = [c.push, c.depth]
    out["site"] = last()
out["after_with"] = [c.push, c.pop, c.depth]
r = gpuprof.range("again")
for i in range(3):
    with r:
        pass
out["again"] = [c.push, c.pop]
try:
    with gpuprof.range("raises"):
        raise RuntimeError("x")
except RuntimeError:
    pass
out["raises"] = [c.push, c.pop, c.depth]

@gpuprof.range("step")
def step(n):
    if n:
        return step(n - 1)
    return c.depth

out["nested_depth"] = step(2)
out["after_step"] = [c.push, c.pop, c.max_depth]
gpuprof.frame()
out["frame"] = [c.frame, last()[0]]
gpuprof.frame("render")
gpuprof.counter("queue", 3)
gpuprof.counter("queue", 4.5)
out["counter"] = [c.counter, c.counter_sum, last()[0], c.frame]

m = model()
h = gpuprof.annotate_modules(m, prefix="net/")
out["hooks"] = len(h)
p0, q0 = c.push, c.pop
m(0)
out["module_pushes"] = [c.push - p0, c.pop - q0, c.depth]
names = []
def spy(module, args):
    names.append(last()[0])
m2 = model()
h2 = gpuprof.annotate_modules(m2, depth=1)
out["hooks_depth1"] = len(h2)
for _, mod in m2.named_modules():
    mod.register_forward_pre_hook(spy)
m2(0)
out["names"] = names
h.remove()
h2.remove()
p1 = c.push
m(0)
m2(0)
out["after_remove"] = c.push - p1
out["pre_left"] = [len(mod.pre) for _, mod in m.named_modules()]
print(json.dumps(out))
"""


@need_lib
class WithRecorder(unittest.TestCase):
    """The calls reach a recorder: tests/fake/libfake-annotate.so counts them."""

    def setUp(self):
        if not os.path.isfile(FAKE):
            self.skipTest("no %s" % FAKE)

    def test_calls_arrive(self):
        code = "FAKE = %r\n" % FAKE + FAKE_MODULES + RECORDER
        r = py(code, clean_env(GPUPROF_LIBRARY=LIB, GPUPROF_ANNOTATE_LIBRARY=FAKE))
        self.assertTrue(r["rec"])
        self.assertEqual(r["in_with"], [1, 1])
        name, file, line, func = r["site"]
        self.assertEqual((name, file, func), ("decode", "<string>", "<module>"))
        self.assertGreater(line, 0)
        self.assertEqual(r["after_with"], [1, 1, 0])
        self.assertEqual(r["again"], [4, 4])
        self.assertEqual(r["raises"], [5, 5, 0])  # popped although the body raised
        self.assertEqual(r["nested_depth"], 3)
        self.assertEqual(r["after_step"], [8, 8, 3])
        self.assertEqual(r["frame"], [1, "frame"])
        self.assertEqual(r["counter"], [2, 7.5, "queue", 2])
        # Sequential, 0, 1, 2, 2.inner: five modules, each call a push and a pop
        self.assertEqual(r["hooks"], 5)
        self.assertEqual(r["module_pushes"], [5, 5, 0])
        self.assertEqual(r["hooks_depth1"], 4)  # 2.inner is deeper
        self.assertEqual(r["names"][:4], ["<root> (Sequential)", "0 (Linear)", "1 (ReLU)",
                                          "2 (Sequential)"])
        self.assertEqual(r["after_remove"], 0)
        self.assertEqual(r["pre_left"], [0, 0, 0, 0, 0])

    def test_limit_of_sites(self):
        code = "FAKE = %r\n" % FAKE + FAKE_MODULES + LIMIT
        r = py(code, clean_env(GPUPROF_LIBRARY=LIB, GPUPROF_ANNOTATE_LIBRARY=FAKE,
                               GPUPROF_ANNOTATE_MAX_SITES="3"))
        self.assertTrue(r["rec"])
        # three sites, seven names by value, every range closed
        self.assertEqual(r["ranges"], [3, 7, 10, 0, "step 9"])
        self.assertEqual(r["again"], [4, 8, 1, "step 7"])
        # the frame and the counter are new names: by value
        self.assertEqual(r["named"], [0, 1, 0, 1, 2.5, "queue"])
        # five modules, all past the limit: pushed by value, and popped
        self.assertEqual(r["modules"], [5, 5, 5, 0])
        (cat, msg), = r["warnings"]
        self.assertEqual(cat, "RuntimeWarning")
        self.assertIn("limit of 3 annotation call sites", msg)
        self.assertIn("by value", msg)
        self.assertEqual(r["sizes"], [3, 0, 3, 3])


LIMIT = """
import ctypes, gpuprof, gpuprof._lib as L, json, warnings

class Counts(ctypes.Structure):
    _fields_ = [("inits", ctypes.c_long), ("push", ctypes.c_long), ("pop", ctypes.c_long),
                ("frame", ctypes.c_long), ("counter", ctypes.c_long),
                ("counter_sum", ctypes.c_double), ("last_site", ctypes.c_void_p),
                ("depth", ctypes.c_int), ("max_depth", ctypes.c_int),
                ("push_str", ctypes.c_long), ("frame_str", ctypes.c_long),
                ("counter_str", ctypes.c_long), ("last_name", ctypes.c_char * 64)]

out = {"rec": gpuprof.recording()}
fake = ctypes.CDLL(FAKE)
fake.fake_annotate_counts.restype = ctypes.POINTER(Counts)
c = fake.fake_annotate_counts().contents

def mk(name):  # every range made here: one file and line, the site's key is the name
    return gpuprof.range(name)

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    for i in range(10):  # the limit is 3: step 0, 1, 2 get sites
        with mk("step %d" % i):
            pass
    out["ranges"] = [c.push, c.push_str, c.pop, c.depth, c.last_name.decode()]
    with mk("step 1"):  # known: its site
        pass
    with mk("step 7"):  # by value again
        out["again"] = [c.push, c.push_str, c.depth, c.last_name.decode()]
    gpuprof.frame("tick")
    gpuprof.counter("queue", 2.5)
    out["named"] = [c.frame, c.frame_str, c.counter, c.counter_str, c.counter_sum,
                    c.last_name.decode()]
    m = model()
    h = gpuprof.annotate_modules(m, prefix="net/")
    p0, q0 = c.push_str, c.pop
    m(0)
    out["modules"] = [len(h), c.push_str - p0, c.pop - q0, c.depth]
    h.remove()
out["warnings"] = [(x.category.__name__, str(x.message)) for x in w]
out["sizes"] = [len(gpuprof._sites), len(gpuprof._named), L.site_count(L.load()),
                L.max_sites(L.load())]
print(json.dumps(out))
"""


SCRIPT = """\
import sys
sys.path.insert(0, sys.argv[1])
import gpuprof
{fake}

@gpuprof.range("train_step")
def train_step(i):
    with gpuprof.range("forward"):
        sum(range(1000))
    gpuprof.counter("loss", 1.0 / (i + 1))

for i in range(4):
    train_step(i)
    gpuprof.frame()
m = model()
with gpuprof.annotate_modules(m, prefix="m/"):
    m(1)
    m(2)
print("recording", gpuprof.recording())
sys.exit(3)
"""


@need_lib
class UnderGpuprofRun(unittest.TestCase):
    """A script run by `gpuprof run --no-cuda`: what it annotated is in the report."""

    def test_report(self):
        if not os.access(GPUPROF, os.X_OK):
            self.skipTest("no gpuprof CLI at %s" % GPUPROF)
        tmp = tempfile.mkdtemp(prefix="gpuprof-pyrun-")
        try:
            script = os.path.join(tmp, "train.py")
            with open(script, "w") as f:
                f.write(SCRIPT.replace("{fake}", FAKE_MODULES))
            run = os.path.join(tmp, "run")
            env = clean_env(GPUPROF_LIBRARY=LIB, GPUPROF_NVML_LIBRARY="/nonexistent/nvml.so")
            p = subprocess.run([GPUPROF, "run", "--quiet", "--no-cuda", "--sample-ms", "0",
                                "-o", run, "--", sys.executable, script, PYDIR],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=120)
            self.assertEqual(p.returncode, 3, p.stderr)  # the script's exit code
            self.assertEqual(p.stdout.strip(), "recording True")
            a = subprocess.run([GPUPROF, "analyze", "--json", run], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=120)
            self.assertEqual(a.returncode, 0, a.stderr)
            r = json.loads(a.stdout)["ranks"][0]
            rg = {x["name"]: x for x in r["ranges"]}
            self.assertEqual({k: v["count"] for k, v in rg.items()}, {
                "train_step": 4, "forward": 4,
                "m/<root> (Sequential)": 2, "m/0 (Linear)": 2, "m/1 (ReLU)": 2,
                "m/2 (Sequential)": 2, "m/2.inner (Linear)": 2})
            # the module ranges make the modules section (docs/analyses/modules.md)
            mod = r["modules"]
            self.assertEqual(mod["source"], "annotations")
            self.assertEqual({x["name"]: x["count"] for x in mod["classes"]},
                             {"Sequential": 4, "Linear": 4, "ReLU": 2})
            (root,) = mod["tree"]
            self.assertEqual((root["name"], root["class"], root["calls"]),
                             ("m/<root>", "Sequential", 2))
            self.assertEqual([x["name"] for x in root["children"]], ["m/0", "m/1", "m/2"])
            self.assertEqual([x["name"] for x in root["children"][2]["children"]],
                             ["m/2.inner"])
            self.assertTrue(all(v["domain"] == "gpuprof" for v in rg.values()))
            with open(script) as f:
                lines = f.read().split("\n")
            want = next(i + 1 for i, l in enumerate(lines) if 'range("forward")' in l)
            self.assertEqual(rg["forward"]["source"], "%s:%d" % (script, want))
            want = next(i + 1 for i, l in enumerate(lines) if 'range("train_step")' in l)
            self.assertEqual(rg["train_step"]["source"], "%s:%d" % (script, want))
            # a module's range: the line of its class's forward
            want = next(i + 1 for i, l in enumerate(lines) if "def forward(self, x):" in l
                        and "return x + 1" in lines[i + 1])
            self.assertEqual(rg["m/0 (Linear)"]["source"], "%s:%d" % (script, want))
            (c,) = r["counters"]
            self.assertEqual((c["name"], c["count"], c["min"], c["max"], c["last"]),
                             ("loss", 4, 0.25, 1, 0.25))
            self.assertAlmostEqual(c["mean"], (1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, places=5)
            self.assertEqual(r["overview"]["capture"]["marks"],
                             [{"count": 4, "domain": "gpuprof", "name": "frame"}])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


LOUD = "gpuprof: running under `gpuprof run`, but this program's ranges, marks and counters " \
       "are not recorded: "


@need_lib
class UnderGpuprofRunFound(unittest.TestCase):
    """Under `gpuprof run`, the package finds the library of the same build by itself
    (GPUPROF_RUN_LIBRARY), or says on standard error why nothing is recorded."""

    def run_script(self, code, **env):
        if not os.access(GPUPROF, os.X_OK):
            self.skipTest("no gpuprof CLI at %s" % GPUPROF)
        tmp = tempfile.mkdtemp(prefix="gpuprof-pyrun-")
        self.addCleanup(shutil.rmtree, tmp, True)
        # a copy of the package with no library beside it, found through sys.path
        site = os.path.join(tmp, "site")
        shutil.copytree(os.path.join(PYDIR, "gpuprof"), os.path.join(site, "gpuprof"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
        script = os.path.join(tmp, "s.py")
        with open(script, "w") as f:
            f.write("import sys\nsys.path.insert(0, %r)\n" % site + textwrap.dedent(code))
        run = os.path.join(tmp, "run")
        e = clean_env(GPUPROF_NVML_LIBRARY="/nonexistent/nvml.so",
                      LD_LIBRARY_PATH=os.path.join(tmp, "empty"), **env)
        p = subprocess.run([GPUPROF, "run", "--quiet", "--no-cuda", "--sample-ms", "0",
                            "-o", run, "--", sys.executable, script],
                           env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        return p, run

    CODE = """
    import gpuprof
    for i in range(3):
        with gpuprof.range("found"):
            pass
    print("recording", gpuprof.recording(), gpuprof.available().path)
    """

    def test_finds_its_build(self):
        p, run = self.run_script(self.CODE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn(LOUD, p.stderr)
        rec, path = p.stdout.split()[1:]
        self.assertEqual(rec, "True", p.stdout)
        self.assertEqual(os.path.realpath(path), os.path.realpath(LIB))
        a = subprocess.run([GPUPROF, "analyze", "--json", run], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(a.returncode, 0, a.stderr)
        rg = {x["name"]: x for x in json.loads(a.stdout)["ranks"][0]["ranges"]}
        self.assertEqual(rg["found"]["count"], 3)

    def test_says_why_no_library(self):
        p, _ = self.run_script(self.CODE, GPUPROF_LIBRARY="/nonexistent/libgpuprof.so")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split()[1], "False")
        self.assertEqual(p.stderr.count(LOUD), 1, p.stderr)
        self.assertIn("/nonexistent/libgpuprof.so (GPUPROF_LIBRARY)", p.stderr)

    def test_says_why_no_recorder(self):
        p, _ = self.run_script(self.CODE, GPUPROF_INJECT_LIBRARY="/nonexistent/inject.so",
                               GPUPROF_LIBRARY=LIB)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split()[1], "False")
        self.assertEqual(p.stderr.count(LOUD), 1, p.stderr)
        self.assertIn("found no recorder", p.stderr)

    def test_says_why_recorder_refused(self):
        # a recorder that is not one: loaded by libgpuprof, but it has no init
        p, _ = self.run_script(self.CODE, GPUPROF_INJECT_LIBRARY=LIB, GPUPROF_LIBRARY=LIB)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr.count(LOUD), 1, p.stderr)
        self.assertIn("is not a gpuprof recorder", p.stderr)


if __name__ == "__main__":
    unittest.main()
