# SPDX-License-Identifier: MIT
"""gpuprof's Python startup hook, for ``gpuprof run --pytorch LIST`` (docs/python.md).

``gpuprof run --pytorch`` puts this file's directory first on the ``PYTHONPATH`` of
the program it runs and says what to do in ``GPUPROF_PYTORCH`` ("modules", "ops",
"shapes", comma-separated). Python's ``site`` imports the first ``sitecustomize``
on its path at start-up: this one. It installs an import hook and runs the next
``sitecustomize`` on the path (the user's, the distribution's), so that one still
runs. Nothing else happens at start-up: a program that never imports torch pays
for one ``sys.meta_path`` entry that looks at the name of each top-level import.

When ``torch`` has been imported (the hook wraps the loader of the ``torch``
package, so it acts right after ``torch/__init__.py`` ran), it loads gpuprof's
Python package from beside this directory under a private name
(``_gpuprof_run``: a ``gpuprof`` the program imports itself is left alone) and
hands over to its ``_pytorch.install()``. Whatever goes wrong there is said once
on standard error and never stops the program.
"""
import os as _os
import sys as _sys

_ENV = "GPUPROF_PYTORCH"
_HERE = _os.path.dirname(_os.path.abspath(__file__))


def _say(text):
    try:
        _sys.stderr.write("gpuprof: --pytorch: %s\n" % text)
        _sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # no usable stderr


def _on_torch(what):
    """torch is imported: load gpuprof's package privately and install what was asked."""
    import importlib.util

    try:
        pkg = _os.path.dirname(_HERE)
        spec = importlib.util.spec_from_file_location(
            "_gpuprof_run", _os.path.join(pkg, "__init__.py"), submodule_search_locations=[pkg])
        mod = importlib.util.module_from_spec(spec)
        _sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        importlib.import_module("_gpuprof_run._pytorch").install(what)
    except Exception as e:  # noqa: BLE001 - the program must run on whatever happens here
        _say("the startup hook failed, nothing is recorded for PyTorch: %s: %s"
             % (type(e).__name__, e))


class _TorchFinder:
    """A meta-path finder that finds nothing itself: for ``torch`` it asks the finders after
    it and wraps the loader's ``exec_module``, to act once the package has run."""

    def __init__(self, what):
        self.what = what
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.busy:
            return None
        self.busy = True
        try:
            spec = None
            for f in list(_sys.meta_path):
                fs = getattr(f, "find_spec", None)
                if f is self or fs is None:
                    continue
                spec = fs(name, path, target)
                if spec is not None:
                    break
        finally:
            self.busy = False
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec
        try:
            _sys.meta_path.remove(self)
        except ValueError:
            pass
        what = self.what

        def exec_module(module):
            try:
                del loader.exec_module  # the loader's own again, for a reload
            except AttributeError:
                pass
            run(module)
            _on_torch(what)

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):
            pass  # a loader that takes no attribute: torch is imported without the hook
        return spec


def _install():
    what = [w for w in _os.environ.get(_ENV, "").split(",") if w]
    if not what:
        return
    if "torch" in _sys.modules:  # imported by a .pth file before this ran
        _on_torch(what)
    else:
        _sys.meta_path.insert(0, _TorchFinder(what))


def _chain():
    """Runs the next sitecustomize on sys.path (this one shadows it) as ``sitecustomize``."""
    import importlib.machinery
    import importlib.util

    path = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    _sys.modules["sitecustomize"] = mod
    spec.loader.exec_module(mod)  # its errors are its own, reported by site as without gpuprof


_install()
_chain()
