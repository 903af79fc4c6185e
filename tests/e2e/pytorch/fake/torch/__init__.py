# SPDX-License-Identifier: MIT
"""A stand-in for torch, for tests/e2e/t0341: just what gpuprof's startup hook uses
(torch.nn.modules.module's global forward hooks, torch.autograd.profiler.emit_nvtx,
torch.version), recording how it was called. FAKE_TORCH_CUDA: torch.version.cuda (empty:
None, a CPU build); FAKE_TORCH_OLD=1: register_module_forward_hook without always_call."""
import os
import types

__version__ = "9.9.9+fake"
version = types.SimpleNamespace(cuda=os.environ.get("FAKE_TORCH_CUDA") or None, hip=None)
calls = {"pre": [], "post": [], "always_call": None, "emit_nvtx": [], "entered": 0}


class Module:
    """Calls the global hooks around forward, as nn.Module.__call__ does."""

    def __call__(self, *args):
        for h in calls["pre"]:
            h(self, args)
        try:
            out = self.forward(*args)
        except Exception:
            if calls["always_call"]:
                for h in calls["post"]:
                    h(self, args, None)
            raise
        for h in calls["post"]:
            h(self, args, out)
        return out


def _pre(hook):
    calls["pre"].append(hook)


if os.environ.get("FAKE_TORCH_OLD") == "1":
    def _post(hook):
        calls["post"].append(hook)
else:
    def _post(hook, *, always_call=False):
        calls["post"].append(hook)
        calls["always_call"] = always_call


class _EmitNvtx:
    def __init__(self, enabled=True, record_shapes=False):
        calls["emit_nvtx"].append(record_shapes)

    def __enter__(self):
        calls["entered"] += 1
        return self

    def __exit__(self, *a):
        return False


nn = types.SimpleNamespace(Module=Module, modules=types.SimpleNamespace(
    module=types.SimpleNamespace(register_module_forward_pre_hook=_pre,
                                 register_module_forward_hook=_post)))
autograd = types.SimpleNamespace(profiler=types.SimpleNamespace(emit_nvtx=_EmitNvtx))
