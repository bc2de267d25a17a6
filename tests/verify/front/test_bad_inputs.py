"""Bad input: exit 2 and one line naming the input, before any work, nothing written.

``tests/data/bad_inputs.json`` is the corpus: each entry is a command line (``@NAME``
stands for a file the test prepares) and the text its message must contain. The fuzz
tests draw command lines and statements and assert the documented exit codes, no
traceback, no file written, and that a parsed statement has finite real sides.
"""

from __future__ import annotations

import functools
import importlib
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verify.sweep.run as sweep  # the runner module (patched below)
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED, EXIT_USAGE
from verify.front.cli import main
from verify.language.expressions import ExpressionError, parse_conjecture

# the modules that call run_instance (imported before any patch: each binds the name)
instance_mod = importlib.import_module("verify.conjecture.instance")
conjecture_mod = importlib.import_module("verify.conjecture.search")
scaling_mod = importlib.import_module("verify.conjecture.scaling")
CORPUS = json.loads((Path(__file__).resolve().parents[2] / "data" / "bad_inputs.json").read_text())
SMOKE = Path(__file__).resolve().parents[3] / "examples" / "sweeps" / "smoke.toml"


def _prepare(tmp: Path) -> dict[str, str]:
    (tmp / "afile").write_text("x")
    (tmp / "huge.toml").write_text(
        'name = "h"\ngenerator = "sphere"\nseeds = "0..9"\n[[grid]]\nd = "1..1000000"\n'
        'n = "1..1000000"\np = 30\n[method]\nname = "gd"\nlr = 1.0\n')
    (tmp / "seeds.toml").write_text(
        'name = "h"\ngenerator = "sphere"\nseeds = "0..999999999999"\n[[grid]]\nd = 10\n'
        'n = 10\np = 30\n[method]\nname = "gd"\nlr = 1.0\n')
    (tmp / "small.toml").write_text(SMOKE.read_text())
    corrupt = tmp / "corrupt"
    corrupt.mkdir()
    (corrupt / sweep.DB_NAME).write_bytes(b"not a database" * 100)
    return {"@FILE": str(tmp / "afile"), "@HUGE_GRID": str(tmp / "huge.toml"),
            "@HUGE_SEEDS": str(tmp / "seeds.toml"), "@SMALL_GRID": str(tmp / "small.toml"),
            "@CORRUPT_STORE": str(corrupt), **_recorded_files(tmp)}


@functools.cache
def _good_run() -> dict:
    """A valid recorded run's arrays (gradient descent on a small orthogonal problem)."""
    from numerics import GradientDescent, Problem, simulate
    from numerics.recorded import RunModel

    rng = np.random.default_rng(0)
    W0 = 1e-3 * rng.standard_normal((6, 4))
    problem = Problem(X=np.eye(4), y=np.array([1.0, -0.7, 1.3, -1.2]), W0=W0,
                      a0=np.linalg.norm(W0, axis=1) * np.array([1, -1] * 3))
    tr = simulate(problem, GradientDescent(lr=0.1, error_check=None), np.arange(6) * 0.1)
    return {"X": problem.X, "y": problem.y, "times": tr.t, "W": tr.W, "a": tr.a,
            "loss": tr.loss, "model": RunModel(method="gd", lr=0.1)}


def _recorded_files(tmp: Path) -> dict[str, str]:
    """Recorded runs and datasets, one valid and each bad in one way (``@RUN_...``,
    ``@DATA_...``)."""
    good = _good_run()

    def run_file(name, drop=(), model=None, **changes):
        arrays = {k: v for k, v in {**good, **changes}.items() if k not in drop}
        fields = json.loads(good["model"].to_json())
        fields.update(model if isinstance(model, dict) else {})
        arrays["model"] = np.array(json.dumps(fields) if model != "bad" else "not json")
        np.savez(tmp / f"{name}.npz", **arrays)
        return str(tmp / f"{name}.npz")

    files = {
        "@RUN": run_file("run"),
        "@RUN_NO_W": run_file("run_no_w", drop=("W",)),
        "@RUN_SHAPES": run_file("run_shapes", a=good["a"][:, :2]),
        "@RUN_TIMES": run_file("run_times", times=good["times"][::-1].copy()),
        "@RUN_NAN": run_file("run_nan", W=np.where(good["W"] > 1e-3, np.nan, good["W"])),
        "@RUN_LOSS": run_file("run_loss", loss=2 * good["loss"]),
        "@RUN_ACTIVATION": run_file("run_act", model={"activation": "tanh"}),
        "@RUN_METHOD": run_file("run_method", model={"method": {"name": "adam", "lr": 0.1}}),
        "@RUN_LR": run_file("run_lr", model={"method": {"name": "gd", "lr": None}}),
        "@RUN_DTYPE": run_file("run_dtype", model={"dtype": "float16"}),
        "@RUN_FORMAT": run_file("run_format", model={"format": "something/2"}),
        "@RUN_JSON": run_file("run_json", model="bad"),
        "@RUN_BIAS": run_file("run_bias", model={"hidden_bias": 1.0}),
        "@RUN_SCALE": run_file("run_scale", model={"loss_scale": -1}),
        "@RUN_BATCH": run_file("run_batch", model={"method": {"name": "sgd", "lr": 0.1,
                                                               "batch_size": 0}}),
        "@RUN_TRAIN": run_file("run_train", model={"train": "middle"}),
        "@RUN_OPTIMIZER": run_file("run_opt", model={"optimizer": {"name": "Adamm",
                                                                    "lr": 0.1}}),
        "@RUN_MOMENTUM": run_file("run_mom", model={"optimizer": {
            "name": "SGD", "lr": 0.1, "settings": {"momentum": 1.5}}}),
        "@RUN_OPT_RECORD": run_file("run_opt_record", model={"optimizer": "sgd"}),
    }
    np.savez(tmp / "data_no_y.npz", X=good["X"])
    (tmp / "data_bad.csv").write_text("x1,x2,y\n1,0,1\n0,one,-1\n")
    (tmp / "data_ragged.csv").write_text("1,0,1\n0,1\n")
    np.savez(tmp / "data_inf.npz", X=np.array([[1.0, np.inf]]), y=np.ones(1))
    (tmp / "data.txt").write_text("1 2 3\n")
    files.update({"@DATA_NO_Y": str(tmp / "data_no_y.npz"),
                  "@DATA_CSV_BAD": str(tmp / "data_bad.csv"),
                  "@DATA_RAGGED": str(tmp / "data_ragged.csv"),
                  "@DATA_INF": str(tmp / "data_inf.npz"), "@DATA_TXT": str(tmp / "data.txt")})
    return files


def _snapshot(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*")}


class _NoWork(Exception):
    pass


@pytest.fixture
def no_work(monkeypatch):
    """Any simulation or sweep computation fails the test: bad input is refused first."""
    def refuse(*args, **kwargs):
        raise _NoWork("work started")

    monkeypatch.setattr(instance_mod, "run_instance", refuse)
    monkeypatch.setattr(scaling_mod, "run_instance", refuse)
    monkeypatch.setattr(sweep, "compute_batch", refuse)
    monkeypatch.setattr("verify.report.write.SuiteRun", refuse)


@pytest.mark.parametrize("case", CORPUS, ids=[" ".join(c["argv"])[:60] for c in CORPUS])
def test_bad_input_corpus(case, tmp_path, monkeypatch, capsys, no_work):
    subs = _prepare(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    argv = [subs.get(a, a) for a in case["argv"]]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, (argv, err)
    lines = err.splitlines()  # one line per bad input (an entry's "lines", default 1)
    assert len(lines) == case.get("lines", 1) and all(
        line.startswith("error: ") for line in lines), err
    assert subs.get(case["names"], case["names"]) in err, err
    assert "Traceback" not in err
    assert _snapshot(tmp_path) == before, "bad input wrote files"


def test_a_read_only_store_is_read(tmp_path, monkeypatch):
    """Where sqlite cannot open the store read-only (its -shm cannot be created), it is read
    as an immutable file."""
    store = tmp_path / "store"
    conn = sweep.connect(store)
    conn.close()
    real = sqlite3.connect

    def no_shm(target, *args, **kwargs):
        if isinstance(target, str) and "mode=ro" in target and "immutable=1" not in target:
            raise sqlite3.OperationalError("unable to open database file")
        return real(target, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", no_shm)
    assert sweep.read_rows(store) == []


# -- fuzz --------------------------------------------------------------------------------
_TOKENS = ["L(t)", "L(0)", "PL(t)", "NormW(t)", "n", "lam", "p", "t", "Dminus", "1", "0",
           "-1", "2.5", "1e308", "1e-320", "10**400", "pi", "oo", "log(", "sqrt(", "exp(",
           "abs(", "min(", "max(", "first(", ")", "(", ",", "+", "-", "*", "/", "**", "<=",
           ">=", "<", "==", "and", "or", "not", "^", "[0]", ".x", "'s'", "lambda", "__import__"]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=12).map(" ".join))
def test_fuzz_statements_parse_or_refuse_and_are_real(text):
    try:
        parsed = parse_conjecture(text)
    except ExpressionError:
        return
    for rel in (parsed.relation, parsed.event):
        if rel is not None:
            assert not rel.has(sp.I, sp.zoo, sp.nan), text


_OPTION_VALUES = {
    "--family": ["orthogonal", "sphere", "two-point", "nope", ""],
    "--param": ["n=2", "n=-1", "lam=1", "lam=0", "p=999999999", "d=abc", "q=1", "n", "=3",
                "horizon=0", "horizon=1e12", "seed=-5", "mu=2", "loss=foo"],
    "--budget": ["0", "-1", "1", "1e3", "99999999999", "x"],
    "--points": ["1", "2", "1000000000", "-3", "nan"],
    "--t-max": ["0", "-1", "nan", "inf", "1e12", "5"],
    "--at-t": ["-1", "nan", "3"],
    "--lr": ["0", "-1", "1e-3", "nan"],
    "--method": ["gd", "flow", "euler"],
    "--shrink-budget": ["-1", "0", "5"],
    "--min-decided": ["-0.1", "0.5", "2", "nan"],
    "--plot": ["missing/dir/x.png", "."],
    "--seed": ["0", "-1", "x"],
}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=8).map(" ".join),
       st.lists(st.sampled_from(sorted(_OPTION_VALUES)), max_size=4).flatmap(
           lambda opts: st.tuples(*(st.tuples(st.just(o), st.sampled_from(_OPTION_VALUES[o]))
                                    for o in opts))))
def test_fuzz_conjecture_command_line(tmp_path_factory, text, options):
    tmp = tmp_path_factory.mktemp("fuzz")
    argv = ["conjecture", text, "--no-plot"] if not any(o == "--plot" for o, _ in options) \
        else ["conjecture", text]
    for opt, value in options:
        argv += [opt, value]
    import contextlib
    import io
    import os

    err = io.StringIO()
    cwd = os.getcwd()
    real_search = conjecture_mod._search
    conjecture_mod._search = lambda checker, budget, seed: ([], None)  # validation only
    try:
        os.chdir(tmp)
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
    finally:
        os.chdir(cwd)
        conjecture_mod._search = real_search
    assert code in (EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_UNDECIDED), (argv, err.getvalue())
    assert "Traceback" not in err.getvalue()
    if code == EXIT_USAGE:
        assert err.getvalue().count("\n") == 1, err.getvalue()
    assert not list(tmp.iterdir()), f"{argv} wrote {list(tmp.iterdir())}"


@pytest.mark.parametrize(("kwargs", "names"), [
    ({"X": [[1 + 1j, 0], [0, 1]]}, "X: complex"),
    ({"W0": np.zeros((0, 2)), "a0": []}, "W0: needs at least one neuron"),
    ({"y": [1.0, float("nan")]}, "y: contains NaN"),
])
def test_a_bad_problem_is_refused_by_the_api(kwargs, names):
    from numerics import Problem, ProblemError

    base = {"X": [[1.0, 0.0], [0.0, 1.0]], "y": [1.0, -1.0], "W0": [[1.0, 0.0]], "a0": [1.0]}
    with pytest.raises(ProblemError, match=names.split(": ")[0]) as info:
        Problem(**{**base, **kwargs})
    assert names in str(info.value)


def test_report_with_a_missing_reference_copy_stops_before_work(tmp_path, monkeypatch, capsys,
                                                               no_work):
    """GFVERIFY_REFERENCE pointing at nothing: exit 2 naming it, no report directory made."""
    monkeypatch.setenv("GFVERIFY_REFERENCE", str(tmp_path / "nowhere"))
    code = main(["report", "--profile", "quick", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and "GFVERIFY_REFERENCE" in err and err.count("\n") == 1, err
    assert not (tmp_path / "r").exists()


def test_a_shipped_protocol_is_named_without_its_path():
    assert sweep.load_config("exp1_1").name == "exp1_1"
    with pytest.raises(sweep.SweepConfigError, match="exp1_1, exp1_1_flow, exp2"):
        sweep.load_config("exp9")


def test_a_mistyped_protocol_generator_or_grid_key_gets_the_closest_names(tmp_path):
    with pytest.raises(sweep.SweepConfigError, match="did you mean exp2"):
        sweep.load_config("exp22")
    config = tmp_path / "typo.toml"
    config.write_text('generator = "spher"\nseeds = "0..1"\n[grid]\nnn = 10\n'
                      '[method]\nname = "gd"\nlr = 1.0\n')
    with pytest.raises(sweep.SweepConfigError, match="did you mean sphere"):
        sweep.load_config(config)
    config.write_text(config.read_text().replace("spher", "sphere"))
    with pytest.raises(sweep.SweepConfigError, match=r"grid.nn: .*did you mean n\?"):
        sweep.load_config(config)
