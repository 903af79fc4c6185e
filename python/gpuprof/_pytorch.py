# SPDX-License-Identifier: MIT
"""The PyTorch side of ``gpuprof run --pytorch LIST`` (docs/python.md), called by the startup
hook (``_startup/sitecustomize.py``) once torch is imported. Not a public API.

- ``modules``: global forward hooks (``torch.nn.modules.module.register_module_forward_pre_hook``
  and ``register_module_forward_hook``, with ``always_call`` where PyTorch has it, so that a
  forward that raises still pops its range) put an annotation range around every
  ``nn.Module`` call, named as PyTorch's ``with_modules`` names its ``python_function`` events:
  ``"nn.Module: <Class>_<k>"``, k the instance's number among the instances of its class, in
  the order of their first call (from 0). The capture reader turns these ranges (domain
  ``gpuprof``, that prefix) into the trace's module calls (docs/capture-format.md).
- ``ops`` / ``shapes``: PyTorch's own NVTX op ranges, as ``nsys --pytorch`` turns them on:
  ``torch.autograd.profiler.emit_nvtx(record_shapes=...)`` entered for the rest of the process,
  on the thread that imported torch (PyTorch's profiler state is per thread; the autograd
  engine's threads inherit it). They need a PyTorch built with CUDA (its NVTX calls live in the
  CUDA part); otherwise this says so once on standard error and records the modules only.
"""
import functools
import sys
import threading
import weakref

from . import _b, _enc, _module_site, recording

_state = {"done": False, "nvtx": None, "handles": []}


def _say(text):
    try:
        sys.stderr.write("gpuprof: --pytorch: %s\n" % text)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


class _Names:
    """The range of each module instance: a push with its site (or its name by value), made
    at the instance's first call. Keyed by id(), dropped when the module is collected (so an
    id is never reused for another module while it is here)."""

    def __init__(self):
        self.push = {}  # id(module) -> a callable that pushes its range
        self.count = {}  # class -> instances numbered so far
        self.lock = threading.Lock()

    def _drop(self, key):
        self.push.pop(key, None)

    def make(self, module):
        with self.lock:
            key = id(module)
            p = self.push.get(key)
            if p is not None:
                return p
            cls = type(module)
            k = self.count.get(cls, 0)
            self.count[cls] = k + 1
            name = "nn.Module: %s_%d" % (cls.__name__, k)
            site = _module_site(name, module)
            if site:
                p = functools.partial(_b["push"], site)
            elif _b["push_name"]:  # past the limit of sites: by value
                v = _enc(name)
                p = functools.partial(_b["push_name"], v, len(v))
            else:
                p = _nothing
            self.push[key] = p
            try:
                weakref.finalize(module, self._drop, key).atexit = False
            except TypeError:
                pass  # not weak-referenceable: kept for the life of the process
            return p


def _nothing():
    pass


def _modules(torch):
    m = torch.nn.modules.module
    names = _Names()
    get, make, pop = names.push.get, names.make, _b["pop"]

    def pre(module, args):
        p = get(id(module))
        if p is None:
            p = make(module)
        p()

    def post(module, args, output):
        pop()

    _state["handles"].append(m.register_module_forward_pre_hook(pre))
    try:  # PyTorch >= 2.0: also when forward raises, so that pushes and pops pair
        _state["handles"].append(m.register_module_forward_hook(post, always_call=True))
    except TypeError:
        _state["handles"].append(m.register_module_forward_hook(post))


def _ops(torch, shapes):
    ver = getattr(torch, "__version__", "?")
    if not getattr(torch.version, "cuda", None):
        why = ("a ROCm build, whose op ranges are roctx ones that gpuprof does not record"
               if getattr(torch.version, "hip", None) else "built without CUDA")
        _say("PyTorch %s is %s: no op ranges%s" % (
            ver, why, " and no shapes" if shapes else ""))
        return
    prof = torch.autograd.profiler.emit_nvtx(record_shapes=shapes)
    prof.__enter__()
    _state["nvtx"] = prof  # entered for the life of the process


def install(what):
    """Installs what ``what`` (a list of "modules", "ops", "shapes") asks for; once."""
    if _state["done"]:
        return
    _state["done"] = True
    torch = sys.modules.get("torch")
    if torch is None:
        return
    if "modules" in what:
        if recording():
            _modules(torch)
        # else: the package said on standard error why nothing is recorded
    if "ops" in what or "shapes" in what:
        try:
            _ops(torch, "shapes" in what)
        except Exception as e:  # noqa: BLE001 - e.g. a profiler the program already runs
            _say("cannot turn on PyTorch's NVTX op ranges: %s: %s" % (type(e).__name__, e))
