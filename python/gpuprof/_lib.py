# SPDX-License-Identifier: MIT
"""Finding and loading libgpuprof.so (ctypes), for the gpuprof package.

Search order (docs/python.md):

1. ``$GPUPROF_LIBRARY``: when set and not empty, the only candidate (a path,
   or a name the dynamic loader looks up);
2. ``$GPUPROF_RUN_LIBRARY``: under ``gpuprof run``, the libgpuprof.so.0 of
   the same build as that gpuprof (it sets the variable for its command), so
   the annotations reach that build's recorder;
3. beside the package: ``libgpuprof.so`` (then ``libgpuprof.so.0``) in the
   package's directory, then in its parent directory;
4. the system's library path: the dynamic loader's ``libgpuprof.so.0`` and
   ``libgpuprof.so`` (``LD_LIBRARY_PATH``, ``ldconfig``'s cache);
5. an installed libgpuprof that the loader does not search: ``libgpuprof.so.0``
   in pkg-config's ``libdir`` of ``gpuprof`` (``PKG_CONFIG_PATH``), then what
   ``ctypes.util.find_library("gpuprof")`` finds.

Loading never raises: when no candidate loads, or the library lacks an entry
point, ``load()`` returns None and ``reason()`` says why, and the package's
calls are no-ops. Standard library only; nothing is compiled.
"""
import ctypes
import ctypes.util
import os
import subprocess
import threading

ENV = "GPUPROF_LIBRARY"
RUN_ENV = "GPUPROF_RUN_LIBRARY"  # set by `gpuprof run`: its own build's libgpuprof
RECORDER_ENV = "GPUPROF_ANNOTATE_LIBRARY"  # set by `gpuprof run`: its recorder
CAPTURE_ENV = "GPUPROF_CAPTURE_DIR"  # set by `gpuprof run` for every command it runs
NAMES = ("libgpuprof.so", "libgpuprof.so.0")
SONAME = "libgpuprof.so.0"

_lock = threading.Lock()
_state = {"done": False, "lib": None, "path": None, "reason": "not loaded yet"}


def _pkg_config_libdir():
    """pkg-config's libdir of gpuprof, or None (no pkg-config, no gpuprof.pc)."""
    try:
        p = subprocess.run(["pkg-config", "--variable=libdir", "gpuprof"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    d = p.stdout.strip()
    return d if p.returncode == 0 and d else None


def candidates():
    """The (path or name, where it came from) pairs to try, in order (a generator: the last
    ones run pkg-config and ldconfig, so they are asked only when reached)."""
    env = os.environ.get(ENV, "")
    if env:
        yield env, ENV
        return
    run = os.environ.get(RUN_ENV, "")
    if run:
        yield run, RUN_ENV + " (gpuprof run)"
    pkg = os.path.dirname(os.path.abspath(__file__))
    for d, what in ((pkg, "the package directory"), (os.path.dirname(pkg), "beside the package")):
        for n in NAMES:
            p = os.path.join(d, n)
            if os.path.isfile(p):
                yield p, what
    for n in reversed(NAMES):
        yield n, "the system's library path"
    libdir = _pkg_config_libdir()
    if libdir:
        yield os.path.join(libdir, SONAME), "pkg-config's libdir"
    found = ctypes.util.find_library("gpuprof")
    if found and found not in NAMES:
        yield found, "ctypes.util.find_library"


def _bind(lib):
    """Declares the prototypes; raises AttributeError when an entry point is missing."""
    vp, cp = ctypes.c_void_p, ctypes.c_char_p
    protos = {
        "gp_annotate_site": (vp, [cp, cp, ctypes.c_int, cp]),
        "gp_annotate_push": (None, [vp]),
        "gp_annotate_pop": (None, []),
        "gp_annotate_frame_site": (None, [vp]),
        "gp_annotate_counter_site": (None, [vp, ctypes.c_double]),
        "gp_annotate_attached": (ctypes.c_int, []),
        "gp_version": (cp, []),
    }
    for name, (res, args) in protos.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    # names by value and the limit of sites: optional (a libgpuprof older than the package
    # lacks them; the package then keeps its old behaviour)
    sz = ctypes.c_size_t
    optional = {
        "gp_annotate_push_name": (None, [cp, sz]),
        "gp_annotate_frame_name": (None, [cp, sz]),
        "gp_annotate_counter_name": (None, [cp, sz, ctypes.c_double]),
        "gp_annotate_site_count": (ctypes.c_uint64, [ctypes.POINTER(ctypes.c_uint64)]),
    }
    for name, (res, args) in optional.items():
        f = getattr(lib, name, None)
        if f is not None:
            f.restype = res
            f.argtypes = args


OLD_MAX_SITES = 1 << 20  # what a libgpuprof without gp_annotate_site_count keeps at most


def max_sites(lib):
    """The most sites ``lib`` makes (GPUPROF_ANNOTATE_MAX_SITES, read by the library)."""
    f = getattr(lib, "gp_annotate_site_count", None)
    if f is None:
        return OLD_MAX_SITES
    limit = ctypes.c_uint64(0)
    f(ctypes.byref(limit))
    return int(limit.value)


def site_count(lib):
    """The number of sites ``lib`` made so far, or None when it cannot tell."""
    f = getattr(lib, "gp_annotate_site_count", None)
    return None if f is None else int(f(None))


def load():
    """The loaded library (a ctypes.CDLL), or None; tried once per process."""
    if _state["done"]:
        return _state["lib"]
    with _lock:
        if _state["done"]:
            return _state["lib"]
        errors = []
        for cand, where in candidates():
            try:
                lib = ctypes.CDLL(cand)
            except OSError as e:
                errors.append("%s (%s): %s" % (cand, where, e))
                continue
            try:
                _bind(lib)
            except AttributeError as e:
                errors.append("%s (%s): not a usable libgpuprof: %s" % (cand, where, e))
                continue
            _state.update(lib=lib, path=cand, reason=None)
            break
        else:
            if not errors:
                errors.append("no candidate")
            _state["reason"] = "libgpuprof.so not loaded: " + "; ".join(errors)
        _state["done"] = True
        return _state["lib"]


def under_run():
    """Whether this process was started by ``gpuprof run`` (or a program it started)."""
    return bool(os.environ.get(CAPTURE_ENV))


def why_not_recording(lib):
    """Why, under ``gpuprof run``, annotations made through ``lib`` (None: not loaded) are
    not recorded: one line for a person."""
    if lib is None:
        return reason()
    rec = os.environ.get(RECORDER_ENV, "")
    if not rec:
        return ("gpuprof run found no recorder (libgpuprof-inject.so) to attach: see its "
                "note on standard error, or set GPUPROF_INJECT_LIBRARY")
    try:
        r = ctypes.CDLL(rec)
    except OSError as e:
        return "the recorder %s (%s) cannot be loaded: %s" % (rec, RECORDER_ENV, e)
    if getattr(r, "gpuprof_annotate_init_v1", None) is None:
        return "%s (%s) is not a gpuprof recorder: no gpuprof_annotate_init_v1" % (
            rec, RECORDER_ENV)
    return ("the recorder %s refused the annotation table of %s (a libgpuprof from another "
            "build? set GPUPROF_LIBRARY to the one of your gpuprof)" % (rec, path()))


def path():
    """What was loaded (the candidate as given), or None."""
    load()
    return _state["path"]


def reason():
    """Why no library is loaded, or None when one is."""
    load()
    return _state["reason"]


def _reset_for_tests():
    """Forgets the outcome so that the next load() searches again (tests only)."""
    with _lock:
        _state.update(done=False, lib=None, path=None, reason="not loaded yet")
