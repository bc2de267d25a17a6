"""The exact flow over the whole horizon of the papers' runs: CEL23 trials at d = 64 and
256 to t = 5,000 with the companion, against gradient descent at the paper's step.

`bench/flow_scale.py` with ``--dims 64,256 --horizon 5000 --companion --engines new``: the
new engine only (the old one took 288 s to t = 50 at d = 64 on the machine of issue 37),
its runs with their companion (the error estimate every check uses), and gradient descent
at lr 0.01 over the same 500,000 steps of flow time on the same trial. Targets: d = 64 in
at most 5 minutes and d = 256 in at most an hour on a 2-core machine; over the whole
horizon the flow within 3x of gradient descent.

    python bench/flow_horizon.py        # about 20 minutes on a 2-core machine
"""

from __future__ import annotations

import sys

import flow_scale

if __name__ == "__main__":
    args = ["--dims", "64,256", "--horizon", "5000", "--companion", "--engines", "new",
            *sys.argv[1:]]
    flow_scale.main(flow_scale._parser().parse_args(args))
