"""Same seed, same instances: Hypothesis's draws do not depend on which modules are loaded."""

from __future__ import annotations

import subprocess
import sys

DRAW = """
import sys
sys.path.insert(0, {extra!r})
if {load}:
    import many_constants  # a local module full of literals a draw could be biased towards
from hypothesis import given, settings
from verify.running.profiles import register_hypothesis_profiles
from verify.instances.families import get
if {pin}:
    register_hypothesis_profiles()
seen = []
@settings(derandomize=True, database=None, max_examples=40)
@given(problem=get("orthogonal").strategy())
def draw(problem):
    seen.append(problem.content_hash)
draw()
print(" ".join(seen))
"""


def _draws(tmp_path, load: bool, pin: bool) -> str:
    extra = tmp_path / "extra"
    extra.mkdir(exist_ok=True)
    literals = ", ".join([str(k) for k in range(2, 70)] + [f"{k / 97:.6f}" for k in range(97)]
                         + [f"1e-{k}" for k in range(4, 21)])
    (extra / "many_constants.py").write_text(f"VALUES = ({literals})\n")
    code = DRAW.format(extra=str(extra), load=load, pin=pin)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    return out.stdout.strip()


def test_draws_do_not_depend_on_the_modules_loaded(tmp_path):
    """Hypothesis biases draws towards literals of the local modules loaded so far; the
    plugin pins that pool (`verify.running.profiles.pin_hypothesis_draws`), so a test draws the
    same instances whatever ran before it in the process (before: 5 of 22 draws of an S002
    family test changed with the order xdist gave the tests)."""
    assert _draws(tmp_path, load=True, pin=True) == _draws(tmp_path, load=False, pin=True)


def test_without_the_pin_the_loaded_literals_do_change_the_draws(tmp_path):
    """The test above can fail: unpinned, the same module changes what is drawn."""
    assert _draws(tmp_path, load=True, pin=False) != _draws(tmp_path, load=False, pin=False)


def test_a_conjecture_search_pins_the_draws_only_while_it_runs():
    """`gfverify conjecture` in a user's process (a notebook) pins the pool for its search
    and gives Hypothesis its own behaviour back afterwards."""
    from hypothesis.internal.conjecture import providers

    from verify.running.profiles import pinned_hypothesis_draws

    original = providers._get_local_constants
    with pinned_hypothesis_draws():
        assert providers._get_local_constants is not original
        assert len(providers._get_local_constants()) == 0
    assert providers._get_local_constants is original
