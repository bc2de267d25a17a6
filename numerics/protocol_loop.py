"""The published protocol's descent loop, one replicate at a time, as a reference.

Written from the protocol (papers/s000/published/README.md), not from its code: a mean-field
network of two bias-free ``nn.Linear`` layers, autograd, ``torch.optim.SGD`` on the
objective p * mean_i (y_i - h(x_i))^2 / 2, learning rate lr, stop once the objective is
below a threshold. `GradientDescent` must give the same numbers (tests/numerics/test_descent.py),
and ``bench/run.py`` times it against our batched descent.
"""

from __future__ import annotations

import torch

from numerics.problem import Problem


class MeanFieldNet(torch.nn.Module):
    """h(x) = (1/p) sum_j a_j relu(<w_j, x>), no biases."""

    def __init__(self, d: int, p: int):
        super().__init__()
        self.hidden = torch.nn.Linear(d, p, bias=False)
        self.output = torch.nn.Linear(p, 1, bias=False)
        self.width = p

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.output(torch.relu(self.hidden(X))).squeeze(-1) / self.width


def protocol_descent(problem: Problem, epochs: int, dtype: torch.dtype = torch.float64,
                     stop_objective: float | None = None, lr: float = 1.0):
    """GD with SGD(lr) on the objective p * mean((y - h)^2) / 2.

    Stops before epoch k's update once the objective is below ``stop_objective``.
    Returns (W, a, epochs run). The weights start from the Problem's (W0, a0)
    (drawn from the law of nn.Linear's default) so that the loops compare number
    for number.
    """
    X = torch.tensor(problem.X, dtype=dtype)
    y = torch.tensor(problem.y, dtype=dtype)
    net = MeanFieldNet(problem.d, problem.p).to(dtype)
    with torch.no_grad():
        net.hidden.weight.copy_(torch.tensor(problem.W0))
        net.output.weight.copy_(torch.tensor(problem.a0)[None, :])
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    p = problem.p
    epoch = 0
    for epoch in range(epochs + 1):
        optimizer.zero_grad()
        objective = p * torch.mean((y - net(X)) ** 2) / 2
        if epoch == epochs or (stop_objective is not None and objective.item() < stop_objective):
            break
        objective.backward()
        optimizer.step()
    W = net.hidden.weight.detach().double().numpy()
    a = net.output.weight.detach()[0].double().numpy()
    return W, a, epoch
