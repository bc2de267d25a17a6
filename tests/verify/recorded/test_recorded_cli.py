"""`gfverify check --run`, `gfverify conjecture --run` and `--data`: a user's runs and data
from the command line, and the "Your own runs" page, whose outputs come from its commands."""

from __future__ import annotations

import csv
import importlib.util
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from numerics import GradientDescent, Problem, simulate
from numerics.recorded import RunModel, write_run
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED
from verify.front.cli import main

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "guides" / "own-runs.md"


@pytest.fixture(scope="module")
def run_file(tmp_path_factory) -> Path:
    """gfverify's own gradient descent on S002's setting, written as a recorded run."""
    rng = np.random.default_rng(3)
    W0 = 1e-6 * rng.standard_normal((30, 4))
    problem = Problem(X=np.eye(4), y=np.array([1.0, -0.7, 1.3, -1.2]), W0=W0,
                      a0=np.linalg.norm(W0, axis=1) * np.where(rng.random(30) < 0.5, -1, 1),
                      init_scale=1e-6)
    tr = simulate(problem, GradientDescent(lr=0.05, error_check=None),
                  np.arange(0, 201) * 1.0)
    path = tmp_path_factory.mktemp("runs") / "run.npz"
    return write_run(path, problem.X, problem.y, tr.t, tr.W, tr.a, loss=tr.loss,
                     model=RunModel(method="gd", lr=0.05, init_scale=1e-6))


def test_check_prints_the_table_and_writes_csv(run_file, tmp_path, capsys):
    out_csv = tmp_path / "v.csv"
    code = main(["check", "S002-T1", "S002-L3", "CF-8", "S002-A3", "--run", str(run_file),
                 "--csv", str(out_csv)])
    out = capsys.readouterr().out
    assert code == EXIT_FOUND  # CF-8 fails on gradient descent at this step
    assert "gradient descent at lr=0.05 in float64" in out
    assert re.search(r"S002-T1\s+HOLDS", out) and re.search(r"CF-8\s+VIOLATED.*t = ", out)
    assert "S002-A3: a probability bound" in out
    with out_csv.open() as f:
        rows = list(csv.DictReader(f))
    assert [r["claim"] for r in rows] == ["S002-T1", "S002-L3", "CF-8"]
    assert rows[2]["verdict"] == "VIOLATED" and float(rows[2]["first_failure"]) > 0
    assert rows[0]["method"] == "recorded_gradient_descent"


def test_conjecture_on_runs_decides_without_a_search(run_file, capsys):
    assert main(["conjecture", "first(L(t) <= 1e-3*L(0)) <= 3*log(1/lam)/Dminus",
                 "--run", str(run_file)]) == EXIT_OK
    assert "NO COUNTEREXAMPLE" in capsys.readouterr().out
    assert main(["conjecture", "L(t) <= 0.1*L(0)", "--run", str(run_file)]) == EXIT_FOUND
    out = capsys.readouterr().out
    assert "COUNTEREXAMPLE" in out and "first fails at t = 1:" in out
    # L(t) <= L(0) is within gradient descent's discretisation error early on
    assert main(["conjecture", "L(t) <= L(0)", "--run", str(run_file)]) in (EXIT_OK,
                                                                             EXIT_UNDECIDED)


def test_a_dataset_is_searched_and_a_counterexample_shrunk_and_replayed(tmp_path, capsys,
                                                                        monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.maximum(X @ np.array([1.0, 0.5, 0, 0, 0]), 0) - 0.3
    np.savetxt(tmp_path / "my.csv", np.hstack([X, y[:, None]]), delimiter=",",
               header="x1,x2,x3,x4,x5,y", comments="")
    monkeypatch.chdir(tmp_path)
    # false exactly when n > 10: the shrink must remove samples down to n = 11, and neurons
    code = main(["conjecture", "L(t) <= L(0) + 10 - n", "--data", "my.csv", "--budget", "8",
                 "--param", "lam=1e-2", "--no-plot"])
    out = capsys.readouterr().out
    assert code == EXIT_FOUND, out
    shrunk = re.search(r"^  n=(\d+) p=(\d+) ", out, flags=re.M)
    assert shrunk and int(shrunk.group(1)) == 11 and int(shrunk.group(2)) == 2, out
    rows = re.search(r"^  samples: rows ([\d, ]+) of the file", out, flags=re.M)
    assert rows and len(rows.group(1).split(", ")) == 11, out  # which rows of my.csv
    replay = re.search(r"^replay: (.*)$", out, flags=re.M).group(1)
    argv = shlex.split(replay)
    assert argv[:2] == ["gfverify", "conjecture"] and "--data" in argv
    assert main(argv[1:] + ["--no-plot"]) == EXIT_FOUND
    assert "n=11 p=2" in capsys.readouterr().out
    # the same file searched for a true statement: no counterexample
    assert main(["conjecture", "L(t) <= L(0)", "--data", "my.csv", "--param", "p=20",
                 "--budget", "3", "--no-plot"]) == EXIT_OK


def test_hypotheses_are_met_or_not_never_a_failed_theorem(tmp_path, capsys):
    """S002-A1 (orthogonal inputs) on correlated data: listed as not met, the claims that
    assume it INAPPLICABLE, and the exit code is not 1."""
    rng = np.random.default_rng(4)
    X = np.eye(4) + 0.3
    W0 = 1e-3 * rng.standard_normal((8, 4))
    problem = Problem(X=X, y=np.array([1.0, -0.7, 1.3, -1.2]), W0=W0,
                      a0=np.linalg.norm(W0, axis=1) * np.array([1, -1] * 4), init_scale=1e-3)
    tr = simulate(problem, GradientDescent(lr=0.05, error_check=None), np.arange(0, 41) * 0.5)
    path = write_run(tmp_path / "c.npz", X, problem.y, tr.t, tr.W, tr.a, loss=tr.loss,
                     model=RunModel(method="gd", lr=0.05, init_scale=1e-3))
    csv_path = tmp_path / "c.csv"
    code = main(["check", "S002-A1", "S002-T1", "--run", str(path), "--csv", str(csv_path)])
    out = capsys.readouterr().out
    assert code != EXIT_FOUND, out
    assert re.search(r"S002-T1\s+INAPPLICABLE", out)
    assert "S002-A1: not met: Eq(OffDiagGram, 0) fails by" in out
    assert not re.search(r"S002-A1\s+VIOLATED", out)
    with csv_path.open() as f:
        roles = {r["claim"]: r["role"] for r in csv.DictReader(f)}
    assert roles == {"S002-A1": "hypothesis", "S002-T1": "claim"}


def test_cf_is_a_group_and_free_variable_identities_are_not_run_claims(run_file, capsys):
    assert main(["claims", "--paper", "CF"]) == EXIT_OK
    listed = capsys.readouterr().out
    assert "CF-2 " in listed and "S002-T1" not in listed
    main(["check", "CF", "--run", str(run_file)])
    out = capsys.readouterr().out
    assert "CF-2: an identity in free variables (a_j, v_1, v_2, w_1, w_2)" in out
    assert not re.search(r"^CF-2\s", out, flags=re.M)


def test_a_run_takes_windows_and_instance_times(run_file, capsys):
    """--window and --at-t expressions with --run: the run's own times, an instant between
    saved times interpolated, a window cut to the run's saved times."""
    assert main(["conjecture", "L(t) <= L(0)", "--run", str(run_file), "--window",
                 "1, 500"]) in (EXIT_OK, EXIT_UNDECIDED)
    assert "at every saved time of the window" in capsys.readouterr().out
    assert main(["conjecture", "L(t) <= 1e-3*L(0)", "--run", str(run_file), "--at-t",
                 "3*log(1/lam)/Dminus"]) == EXIT_OK
    out = capsys.readouterr().out
    assert re.search(r"tightest at t = 1\d\d\.\d", out), out
    assert main(["conjecture", "L(t) <= L(0)", "--run", str(run_file), "--at-t",
                 "2.25"]) in (EXIT_OK, EXIT_UNDECIDED)  # between the saved times 2 and 3
    out = capsys.readouterr().out
    assert "tightest at t = 2.25:" in out or "interpolated between the saved times 2 and 3" \
        in out, out
    assert main(["conjecture", "L(t) <= 0.5*L(0)", "--run", str(run_file), "--at-t",
                 "first(L(t) <= 0.25*L(0))", "--rounding-only"]) == EXIT_OK


def test_the_room_a_bound_leaves_is_said_the_right_way_round():
    from verify.recorded.tighten import slack_words

    assert "leaves a factor 5.27 of room" in slack_words(1.0, 5.27)
    assert "is past it by a factor 2" in slack_words(1.0, 0.5)


def test_tighten_measures_a_constant_on_runs(run_file, capsys):
    """No search: the critical constant on each run, with its error and its time; a
    proved value the run contradicts is exit 1."""
    code = main(["tighten", "L(t) <= C*L(0)", "--run", str(run_file), "--rounding-only"])
    out = capsys.readouterr().out
    assert "on 1 recorded run(s); no search" in out
    assert code == EXIT_OK, out  # the recorded numbers as they are: decided
    value = float(re.search(r"holds for C >= (\S+) ", out).group(1))
    assert value == pytest.approx(1.0, abs=1e-6)  # the loss at t = 0 is the largest
    assert re.search(r"\(2% past\): VIOLATED; at \S+ \(2% back\): HOLDS -> decided", out)
    assert main(["tighten", "L(t) <= C*L(0)", "--run", str(run_file),
                 "--family", "orthogonal"]) == 2
    assert "--family: not used with --run" in capsys.readouterr().err


def test_tighten_searches_a_dataset_and_replays_on_it(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((12, 4))
    np.savez(tmp_path / "my.npz", X=X, y=np.sign(X[:, 0]))
    monkeypatch.chdir(tmp_path)
    code = main(["tighten", "NormW(t) <= C*(NormW(0) + 1)", "--data", "my.npz",
                 "--budget", "3", "--param", "p=6", "--no-plot"])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    replay = re.search(r"^  replay: (.*)$", out, flags=re.M).group(1)
    argv = shlex.split(replay)
    assert argv[:2] == ["gfverify", "tighten"] and argv[argv.index("--data") + 1] == "my.npz"
    assert "--family" not in argv
    assert main(argv[1:] + ["--no-plot"]) == EXIT_OK


def _page_tool():
    spec = importlib.util.spec_from_file_location("own_run_page",
                                                  ROOT / "examples" / "own_run" / "page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_own_runs_page_shows_what_its_commands_print(tmp_path, monkeypatch):
    """The page's outputs are a fresh run's (wall-clock times aside), and its notebook cell
    draws the margin figure from the records those commands wrote."""
    page = _page_tool()
    assert page.main(["--check", "--workdir", str(tmp_path)]) == 0
    figure = page.draw_cell(PAGE.read_text(), tmp_path)
    assert figure.stat().st_size > 10_000
