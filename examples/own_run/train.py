"""Train a two-layer ReLU network with plain PyTorch and record the run for gfverify.

The data are S002's setting (orthogonal inputs x_k = e_k, labels of both signs) and the
initialisation is small and balanced (w_j = lam g_j, a_j = +-||w_j||), so S002's claims
apply. The only gfverify line in the loop is ``rec.save``.

    python examples/own_run/train.py --out run.npz [--lr 0.05] [--weight-decay 1e-3]
        [--unbalanced] [--mse | --mse-undeclared] [--lr-only]

``--unbalanced`` starts from a_j = 2 s_j ||w_j|| at lam = 0.5 (a run where
a_j^2 - ||w_j||^2 is not 0, so that weight decay shows in it); ``--mse`` computes the loss
with torch's MSELoss (the mean of (y - h)^2, no 1/2) and declares it (loss_scale=2);
``--mse-undeclared`` computes it so while declaring gfverify's convention; ``--lr-only``
gives the recorder the step instead of the optimiser (gfverify then measures whether the
loop is gradient descent).
"""

import argparse

import torch
import torch.nn as nn

from numerics.recorder import Recorder  # the one gfverify import

parser = argparse.ArgumentParser()
parser.add_argument("--out", required=True)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--weight-decay", type=float, default=0.0)
parser.add_argument("--unbalanced", action="store_true")
parser.add_argument("--mse", action="store_true")
parser.add_argument("--mse-undeclared", action="store_true")
parser.add_argument("--lr-only", action="store_true")
parser.add_argument("--horizon", type=float, default=300.0)
args = parser.parse_args()

torch.manual_seed(0)
n, d, p = 4, 4, 30
lam = 0.5 if args.unbalanced else 1e-6
X = torch.eye(n, d, dtype=torch.float64)
y = torch.tensor([1.0, -0.7, 1.3, -1.2], dtype=torch.float64)

model = nn.Sequential(nn.Linear(d, p, bias=False), nn.ReLU(),
                      nn.Linear(p, 1, bias=False)).double()
with torch.no_grad():
    W = lam * torch.randn(p, d, dtype=torch.float64)
    signs = torch.where(torch.rand(p) < 0.5, -1.0, 1.0).double()
    model[0].weight.copy_(W)
    model[2].weight.copy_(((2.0 if args.unbalanced else 1.0) * signs * W.norm(dim=1))[None])

opt = torch.optim.SGD(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
mse = args.mse or args.mse_undeclared
rec = Recorder(model, X, y, **({"lr": args.lr} if args.lr_only else {"optimizer": opt}),
               loss_scale=2.0 if args.mse else 1.0, init_scale=lam,
               note="examples/own_run/train.py")
steps = round(args.horizon / args.lr)
every = max(1, steps // 200)  # about 200 saved states
for step in range(steps + 1):
    out = model(X).squeeze(1)
    loss = nn.MSELoss()(out, y) if mse else ((out - y) ** 2).mean() / 2
    if step % every == 0:
        rec.save(step, loss)  # the state the loss was computed at, before the update
    opt.zero_grad()
    loss.backward()
    opt.step()

rec.write(args.out)
print(f"recorded {len(rec.steps)} states of {steps} steps at lr={args.lr:g} to {args.out}; "
      f"loss {rec.losses[0]:.4g} -> {rec.losses[-1]:.3g} ({rec.convention})")
