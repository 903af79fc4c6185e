# SPDX-License-Identifier: MIT
"""gpuprof: annotate Python code for the gpuprof profiler.

Ranges, frame marks and counters, recorded when the program runs under
``gpuprof run`` (and free otherwise)::

    import gpuprof

    with gpuprof.range("decode"):
        ...

    @gpuprof.range("step")
    def step(batch):
        ...

    gpuprof.frame()                    # a frame mark named "frame"
    gpuprof.counter("queue_depth", 12)
    hooks = gpuprof.annotate_modules(model)   # one range per nn.Module call

The calls go through ctypes to libgpuprof.so (found as ``_lib`` says:
``$GPUPROF_LIBRARY``, then under ``gpuprof run`` the library of that build
(``$GPUPROF_RUN_LIBRARY``), then beside the package, the system's library
path and pkg-config's libdir), whose annotation table ``gpuprof run``
connects to its recorder (``GPUPROF_ANNOTATE_LIBRARY``). When the library
cannot be loaded, or nothing records, every call is a no-op in Python;
``available()`` and ``recording()`` tell which. Under ``gpuprof run`` the
first call also says on standard error why nothing is recorded. No dependency, no build step; PyTorch is only
used through the model object given to ``annotate_modules``. See
docs/python.md.

Names are registered once per call site (name, file, line) and kept for the
life of the process, up to a limit (libgpuprof's GPUPROF_ANNOTATE_MAX_SITES,
65,536 by default). Past it, new names are passed by value at each call: every
event keeps its name, but has no source location, and nothing grows with the
number of distinct names (``range("step %d" % i)`` over millions of steps). A
RuntimeWarning says so, once.
"""
import functools
import sys
import threading
import warnings

from . import _lib

__version__ = "0.1.0"
__all__ = ["range", "frame", "counter", "annotate_modules", "available", "recording",
           "Availability", "ModuleHooks", "bench", "summarize"]

class Availability:
    """What ``available()`` returns: true when libgpuprof.so is loaded; ``path`` is what was
    loaded, ``reason`` why not (None when loaded)."""

    __slots__ = ("ok", "path", "reason")

    def __init__(self, ok, path, reason):
        self.ok, self.path, self.reason = ok, path, reason

    def __bool__(self):
        return self.ok

    def __str__(self):
        return "libgpuprof loaded from %s" % self.path if self.ok else self.reason

    def __repr__(self):
        return "Availability(ok=%r, path=%r, reason=%r)" % (self.ok, self.path, self.reason)


def available():
    """Whether libgpuprof.so could be loaded (an ``Availability``: falsy with the reason)."""
    lib = _lib.load()
    return Availability(lib is not None, _lib.path(), _lib.reason())


# ---- the calls: bound once, pure-Python no-ops when nothing records ----

_bind_lock = threading.Lock()
_b = {"done": False, "rec": False, "site": None, "push": None, "pop": None, "frame": None,
      "counter": None, "push_name": None, "frame_name": None, "counter_name": None,
      "max_sites": 0}


def _bound():
    if _b["done"]:
        return _b
    with _bind_lock:
        if not _b["done"]:
            lib = _lib.load()
            if lib is not None:
                _b.update(site=lib.gp_annotate_site, push=lib.gp_annotate_push,
                          pop=lib.gp_annotate_pop, frame=lib.gp_annotate_frame_site,
                          counter=lib.gp_annotate_counter_site,
                          max_sites=_lib.max_sites(lib))
                # names by value: absent from a libgpuprof older than this package (None:
                # past the limit, new names then record nothing, as before)
                _b.update(push_name=getattr(lib, "gp_annotate_push_name", None),
                          frame_name=getattr(lib, "gp_annotate_frame_name", None),
                          counter_name=getattr(lib, "gp_annotate_counter_name", None))
                # runs libgpuprof's one-time init: a recorder is attached now or never
                _b["rec"] = bool(lib.gp_annotate_attached())
            if not _b["rec"] and _lib.under_run():
                _say_not_recording(lib)
            _b["done"] = True
    return _b


def _say_not_recording(lib):
    """Under ``gpuprof run`` a program expects its annotations in the capture: when they
    cannot be, say why on standard error (once; not a warning that filters could hide)."""
    try:
        sys.stderr.write("gpuprof: running under `gpuprof run`, but this program's ranges, "
                         "marks and counters are not recorded: %s\n"
                         % _lib.why_not_recording(lib))
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # no usable stderr: nothing more to do


def recording():
    """Whether a recorder is attached (under ``gpuprof run``): the calls record."""
    return _bound()["rec"]


def _enc(s):
    return None if s is None else str(s).encode("utf-8", "replace")


_sites = {}  # (name, file, line) -> site: a range made again at the same place reuses its site
_full = [False]  # libgpuprof made no more sites: new names go by value
_warned = [False]


def _by_value_warning():
    if _warned[0]:
        return
    _warned[0] = True
    what = ("recorded by value, each event with its name but without a source location"
            if _b["push_name"] else "not recorded (libgpuprof predates names by value)")
    warnings.warn(
        "gpuprof: the limit of %d annotation call sites (GPUPROF_ANNOTATE_MAX_SITES) is "
        "reached: later new names are %s (see docs/python.md)" % (_b["max_sites"], what),
        RuntimeWarning, stacklevel=5)


def _make_site(name, file, line, func):
    """A site of libgpuprof (an address that lives as long as the process), or None: nothing
    records, or the sites reached their limit (the caller then passes the name by value).
    Only sites are kept, so this dict is bounded by the limit too."""
    b = _bound()
    if not b["rec"]:
        return None
    key = (name, file, line)
    s = _sites.get(key)
    if s is None:
        if _full[0] or len(_sites) >= b["max_sites"]:
            _full[0] = True
            _by_value_warning()
            return None
        s = b["site"](_enc(name), _enc(file), int(line or 0), _enc(func))
        if not s:  # the limit (or out of memory): no site from now on
            _full[0] = True
            _by_value_warning()
            return None
        _sites[key] = s
    return s


def _caller(depth):
    try:
        f = sys._getframe(depth + 1)
        return f.f_code.co_filename, f.f_lineno, f.f_code.co_name
    except (AttributeError, ValueError):
        return None, 0, None


class range:  # noqa: A001 - the name users write: gpuprof.range
    """A named range: a context manager (``with gpuprof.range("decode"):``) and a decorator
    (``@gpuprof.range("step")``, ``@gpuprof.range()`` or ``@gpuprof.range``, which name the
    range after the function's qualified name). Ranges nest per thread. The call site (the
    file and line where the range object is made) is registered once, on first use."""

    __slots__ = ("name", "_file", "_line", "_func", "_site", "_made", "_val")

    def __new__(cls, name=None):
        if callable(name) and not isinstance(name, str):  # @gpuprof.range without ()
            self = object.__new__(cls)
            self._setup(None, 2)
            return self(name)
        return object.__new__(cls)

    def __init__(self, name=None):
        self._setup(name, 2)

    def _setup(self, name, depth):
        if name is not None and not isinstance(name, str):
            raise TypeError("gpuprof.range: the name must be a string, not %r" % (name,))
        self.name = name
        self._file, self._line, self._func = _caller(depth)
        self._site = None
        self._made = False
        self._val = None

    def _get(self):
        if not self._made:
            if self.name is None:
                raise TypeError("gpuprof.range() without a name is a decorator only")
            self._site = _make_site(self.name, self._file, self._line, self._func)
            if not self._site and _b["rec"] and _b["push_name"]:
                self._val = _enc(self.name)  # past the limit: by value
            self._made = True
        return self._site

    def __enter__(self):
        site = self._site if self._made else self._get()
        if site:
            _b["push"](site)
        elif self._val is not None:
            _b["push_name"](self._val, len(self._val))
        return self

    def __exit__(self, et, ev, tb):
        if self._site or self._val is not None:
            _b["pop"]()
        return False

    def __call__(self, fn):
        rng = self
        if self.name is None:
            rng = object.__new__(range)
            rng.name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "function")
            rng._file, rng._line, rng._func = self._file, self._line, self._func
            rng._site, rng._made, rng._val = None, False, None

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with rng:
                return fn(*args, **kwargs)

        return wrapper

    def __repr__(self):
        return "gpuprof.range(%r)" % (self.name,)


_named = {}  # frame and counter names -> sites (only sites: bounded as _sites is)


def _named_site(name):
    s = _named.get(name)
    if s is None:
        s = _make_site(name, None, 0, None)
        if s:
            _named[name] = s
    return s


def frame(name=None):
    """A frame mark (an instant named ``name``, "frame" by default). ``gpuprof run
    --schedule ... --iter-range NAME`` can delimit iterations with them."""
    if not _bound()["rec"]:
        return
    name = "frame" if name is None else str(name)
    s = _named_site(name)
    if s:
        _b["frame"](s)
    elif _b["frame_name"]:
        v = _enc(name)
        _b["frame_name"](v, len(v))


def counter(name, value):
    """A sample ``value`` (a number) of the counter ``name``; `gpuprof analyze` lists count,
    min, max, mean and last per counter."""
    if not _bound()["rec"]:
        return
    name = str(name)
    s = _named_site(name)
    if s:
        _b["counter"](s, float(value))
    elif _b["counter_name"]:
        v = _enc(name)
        _b["counter_name"](v, len(v), float(value))


# ---- PyTorch modules ----

class ModuleHooks:
    """The hooks ``annotate_modules`` registered; ``remove()`` takes them all away (also at
    the end of a ``with`` block). ``len()`` is the number of modules annotated."""

    def __init__(self, handles, nmodules):
        self._handles = handles
        self._n = nmodules

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles = []
        self._n = 0

    def __len__(self):
        return self._n

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        self.remove()
        return False


def _module_site(name, mod):
    fwd = getattr(type(mod), "forward", None)
    code = getattr(fwd, "__code__", None)
    file, line = (code.co_filename, code.co_firstlineno) if code else (None, 0)
    return _make_site(name, file, line, type(mod).__name__ + ".forward")


def annotate_modules(model, prefix="", depth=None):
    """Registers a forward pre-hook (push) and a forward hook (pop) on ``model`` and each of
    its submodules (``model.named_modules()``), so that every module call is a range named
    ``PREFIX + "qualified.name (Class)"`` (the root: ``PREFIX + "<root> (Class)"``) at the file and
    line of its class's ``forward``: a layer-by-layer breakdown, with the GPU time of each
    layer projected in the report. ``depth`` limits the nesting (0: the root only, 1: its
    children too, None: all). Nothing is registered when nothing records (not under
    ``gpuprof run``). Returns a ``ModuleHooks``; torch is never imported here."""
    if depth is not None and depth < 0:
        raise ValueError("annotate_modules: depth must be >= 0 or None")
    handles, n = [], 0
    if not recording():
        return ModuleHooks(handles, 0)
    push, pop, push_name = _b["push"], _b["pop"], _b["push_name"]
    for qual, mod in model.named_modules():
        d = qual.count(".") + 1 if qual else 0
        if depth is not None and d > depth:
            continue
        cls = type(mod).__name__
        # the root too is "PATH (Class)", so that analyze tells every module range apart
        name = prefix + "%s (%s)" % (qual or "<root>", cls)
        site = _module_site(name, mod)
        if site:
            def pre(module, args, _s=site):
                push(_s)
        elif push_name:  # past the limit of sites: by value
            def pre(module, args, _v=_enc(name)):
                push_name(_v, len(_v))
        else:
            continue

        def post(module, args, output):
            pop()

        handles.append(mod.register_forward_pre_hook(pre))
        try:  # PyTorch >= 2.0: also when forward raises, so that pushes and pops pair
            handles.append(mod.register_forward_hook(post, always_call=True))
        except TypeError:
            handles.append(mod.register_forward_hook(post))
        n += 1
    return ModuleHooks(handles, n)


# gpuprof.bench(): iteration statistics with the CLI's numbers (python/gpuprof/bench.py)
from .bench import bench, summarize  # noqa: E402
