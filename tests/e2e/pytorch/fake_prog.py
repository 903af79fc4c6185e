# SPDX-License-Identifier: MIT
"""The program of t0341 over the stand-in torch (pytorch/fake): imports torch twice, calls
modules (one raises), and prints what the startup hook set up."""
import sys

import torch
import torch as again  # noqa: F401 - a second import: the hook acts once

c = torch.calls


class Conv(torch.nn.Module):
    def forward(self, x):
        return x + 1


class Bad(torch.nn.Module):
    def forward(self, x):
        raise ValueError(x)


a, b = Conv(), Conv()
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 2):
    b(a(1))
try:
    Bad()(0)
except ValueError:
    pass
print("pre %d post %d always_call %s emit_nvtx %s entered %d loaded %s" % (
    len(c["pre"]), len(c["post"]), c["always_call"], c["emit_nvtx"], c["entered"],
    "_gpuprof_run" in sys.modules))
