# SPDX-License-Identifier: MIT
"""A small model for the --pytorch tests (CPU): prints its output's checksum and exits 3.

A Sequential of two Blocks (Linear + ReLU, the Linear called through a child) and a
transformer-ish Attention block, run ITERS times (argv[1], default 3) with no grad. Each
forward of each module instance is one range named "nn.Module: <Class>_<k>" under
`gpuprof run --pytorch modules`."""
import sys

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


class Attention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        w = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        return self.norm(x + w @ v)


torch.manual_seed(0)
model = nn.Sequential(Block(16), Block(16), Attention(16), nn.Linear(16, 4))
x = torch.randn(2, 8, 16)
iters = int(sys.argv[1]) if len(sys.argv) > 1 else 3
with torch.no_grad():
    for _ in range(iters):
        y = model(x)
print("model ok %d %.4f" % (iters, float(y.sum())))
sys.exit(3)
