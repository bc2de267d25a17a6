"""Run the commands of docs/guides/own-runs.md and write their output into the page.

    python examples/own_run/page.py            # rewrite the page's generated blocks
    python examples/own_run/page.py --check    # exit 1 if the page differs from a fresh run

Each block sits between ``<!-- own-run:NAME:begin -->`` and ``<!-- own-run:NAME:end -->``
and shows the commands of step NAME with what they printed, run in a scratch directory
(wall-clock times are masked when comparing). The machinery is the one of every page's
examples (`examples/pages.py`); here the steps' commands are in ``STEPS``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
import pages  # noqa: E402 - the examples' machinery, beside this directory

PAGE = ROOT / "docs" / "guides" / "own-runs.md"
FIGURE = ROOT / "docs" / "img" / "own-run-margin.png"  # the cell's figure, shown on the page
TRAIN = "python examples/own_run/train.py"

STEPS = {
    "train": [f"{TRAIN} --out run.npz"],
    "check": ["gfverify check S002 CF-13 --run run.npz"],
    "conjecture": ['gfverify conjecture "first(L(t) <= 1e-3*L(0)) <= 3*log(1/lam)/Dminus" '
                   "--run run.npz"],
    "room": ['gfverify tighten "NormW(t) <= C*(NormW(0) + 1)" --run run.npz',
             'gfverify tighten "NormW(t) <= C*(NormW(0) + 1)" --run run.npz --rounding-only'],
    "order": [f"{TRAIN} --out half.npz --lr 0.025",
              "gfverify check S002-L1 --run run.npz --run half.npz --compare"],
    "weight-decay": [f"{TRAIN} --out decay.npz --unbalanced --weight-decay 1e-3",
                     "gfverify check CF-13 --run decay.npz"],
    "measured": [f"{TRAIN} --out hidden.npz --unbalanced --weight-decay 1e-3 --lr-only",
                 "gfverify check CF-13 --run hidden.npz",
                 'gfverify conjecture "Balance(t) <= 1e-6" --run hidden.npz'],
    "mse": [f"{TRAIN} --out mse.npz --mse",
            "gfverify check S002-D1 S002-T1 --run mse.npz"],
    "mse-undeclared": [f"{TRAIN} --out bad.npz --mse-undeclared"],
    "bf25": ["python examples/own_run/bf25_loop.py --out bf25.npz --steps 10000",
             "gfverify check BF25 --run bf25.npz"],
    "bf25-64": ["python examples/own_run/bf25_loop.py --out bf25_64.npz --float64 --steps 10000",
                "gfverify check BF25 --run bf25_64.npz"],
    "data": ['gfverify conjecture "L(t) <= L(0)" --data run.npz --param p=20 --budget 6 '
             "--no-plot",
             'gfverify conjecture "L(t) <= L(0)*exp(-t/50)" --data run.npz --budget 6 '
             "--no-plot"],
}

def run_step(name: str, cwd: Path) -> str:
    """The step's commands and their output (stdout, or the last line of stderr when a
    command fails), as the page shows them."""
    return pages.run_commands(STEPS[name], cwd)


def blocks(text: str) -> dict[str, str]:
    return pages.blocks(text, "own-run")


def render(text: str, outputs: dict[str, str]) -> str:
    return pages.render(text, outputs, "own-run")


masked = pages.masked


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--page", default=str(PAGE))
    parser.add_argument("--workdir", default=None,
                        help="run the commands here (default: a scratch directory)")
    args = parser.parse_args(argv)
    page = Path(args.page)
    text = page.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(args.workdir or tmp)
        outputs = {name: run_step(name, where) for name in STEPS}
        if args.check:
            have = blocks(text)
            bad = [n for n in STEPS if masked(have.get(n, "")) != masked(outputs[n])]
            for n in bad:
                print(f"--- {n}: the page shows\n{have.get(n)}\n--- a fresh run prints\n"
                      f"{outputs[n]}")
            return 1 if bad else 0
        figure = draw_cell(text, where)
        if figure is not None:
            shutil.copyfile(figure, FIGURE)
            print(f"wrote {FIGURE}")
    page.write_text(render(text, outputs))
    print(f"wrote {page}")
    return 0


def draw_cell(text: str, where: Path) -> Path | None:
    """Run the page's notebook cell (``<!-- own-run:cell -->``) in ``where``, where the
    steps left their records; the figure it saved, or None when the page has no cell."""
    found = re.search(r"<!-- own-run:cell -->\n```python\n(.*?)```", text, flags=re.S)
    if not found:
        return None
    import matplotlib

    matplotlib.use("Agg")
    here = Path.cwd()
    os.chdir(where)
    try:
        exec(compile(found.group(1), "own-runs.md cell", "exec"), {})  # noqa: S102
    finally:
        os.chdir(here)
    return where / "margin.png"


if __name__ == "__main__":
    sys.exit(main())
