"""A loop in the style of research code, recorded for gfverify: BF25's section 5 setting.

Boursier and Flammarion (JMLR 2025) train a one-hidden-layer ReLU network with hidden
biases on three points of the line, from a small balanced initialisation, with full-batch
``torch.optim.SGD`` on ``nn.MSELoss`` in float32 (their repository
``eboursier/early_alignment``; its defaults: lam = 1e-3, lr = 1e-3). This script is our
own loop with those settings (the data of their section 5, their Eq. (3) initialisation:
w_j ~ N(0, lam^2/m I), a_j = +-||(w_j, b_j)||) and its own ``nn.Module``; the recorder
finds the module's two layers by structure. The gfverify lines are the import, the
``Recorder`` and the ``save``:

    python examples/own_run/bf25_loop.py --out bf25.npz [--float64] [--steps 20000]
"""

import argparse

import torch
import torch.nn as nn

from numerics.recorder import Recorder  # gfverify (1 of 3)

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument("--float64", action="store_true")
parser.add_argument("--steps", type=int, default=20000)
parser.add_argument("--width", type=int, default=200)
args = parser.parse_args()
dtype = torch.float64 if args.float64 else torch.float32
lam, lr, m = 1e-3, 1e-3, args.width


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(1, m, bias=True)
        self.outer = nn.Linear(m, 1, bias=False)
        self.act = nn.ReLU()
        with torch.no_grad():  # balanced: |a_j| = ||(w_j, b_j)||
            self.inner.weight.normal_(0.0, lam / m**0.5)
            self.inner.bias.normal_(0.0, lam / m**0.5)
            norms = (self.inner.weight[:, 0] ** 2 + self.inner.bias**2).sqrt()
            signs = 2 * torch.bernoulli(0.5 * torch.ones(m)) - 1
            self.outer.weight.copy_((signs * norms)[None])

    def forward(self, x):
        return self.outer(self.act(self.inner(x)))


torch.manual_seed(0)
x = torch.tensor([[-0.75], [-0.5], [0.125]], dtype=dtype)
y = torch.tensor([[1.1], [0.1], [0.8]], dtype=dtype)
net = TwoLayer().to(dtype)
optimizer = torch.optim.SGD(net.parameters(), lr=lr)
loss_func = nn.MSELoss()
rec = Recorder(net, x, y, optimizer=optimizer, loss_scale=2, init_scale=lam,  # (2 of 3)
               note="examples/own_run/bf25_loop.py")
save_at, k = set(), 0
while k < args.steps:  # about 100 saves, denser early (as the authors' k^1.1 schedule)
    save_at.add(k)
    k = max(k + 1, int(k * 1.06))
save_at.add(args.steps)
for step in range(args.steps + 1):
    loss = loss_func(net(x), y)
    if step in save_at:
        rec.save(step, loss)  # gfverify (3 of 3): before the update
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
rec.write(args.out)
print(f"recorded {len(rec.steps)} states of {args.steps} steps in {str(dtype)[6:]} to "
      f"{args.out}; loss {rec.losses[0]:.4g} -> {rec.losses[-1]:.4g} ({rec.convention})")
