# SPDX-License-Identifier: MIT
"""Finding and loading libgpuprof.so (ctypes), for the gpuprof package.

Search order (docs/python.md):

1. ``$GPUPROF_LIBRARY``: when set and not empty, the only candidate (a path,
   or a name the dynamic loader looks up);
2. beside the package: ``libgpuprof.so`` (then ``libgpuprof.so.0``) in the
   package's directory, then in its parent directory;
3. the system's library path: the dynamic loader's ``libgpuprof.so.0`` and
   ``libgpuprof.so`` (``LD_LIBRARY_PATH``, ``ldconfig``'s cache), and what
   ``ctypes.util.find_library("gpuprof")`` finds.

Loading never raises: when no candidate loads, or the library lacks an entry
point, ``load()`` returns None and ``reason()`` says why, and the package's
calls are no-ops. Standard library only; nothing is compiled.
"""
import ctypes
import ctypes.util
import os
import threading

ENV = "GPUPROF_LIBRARY"
NAMES = ("libgpuprof.so", "libgpuprof.so.0")

_lock = threading.Lock()
_state = {"done": False, "lib": None, "path": None, "reason": "not loaded yet"}


def candidates():
    """The (path or name, where it came from) pairs to try, in order (a generator: the last,
    ctypes.util.find_library, may run ldconfig, so it is asked only when reached)."""
    env = os.environ.get(ENV, "")
    if env:
        yield env, ENV
        return
    pkg = os.path.dirname(os.path.abspath(__file__))
    for d, what in ((pkg, "the package directory"), (os.path.dirname(pkg), "beside the package")):
        for n in NAMES:
            p = os.path.join(d, n)
            if os.path.isfile(p):
                yield p, what
    for n in reversed(NAMES):
        yield n, "the system's library path"
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
