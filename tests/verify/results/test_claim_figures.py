"""Figure data travels with verdicts (verify.engine.figure_data) and becomes one PNG per claim
(verify.results.claim_figures): the numbers in a figure are the ones the verdict was decided on."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import sympy as sp

import theory
from numerics import Problem, generators
from numerics.inits import balanced_init
from papers.s002.evidence import s002_trajectory
from theory.claim import Kind
from theory.symbols import K, MuInf, ParamDrift, kappa, n, t
from theory.symbols import L as Loss
from verify import check
from verify.engine.check import evaluate, relation_margins
from verify.engine.evidence import Sample, ScalingData
from verify.engine.figure_data import MAX_POINTS
from verify.engine.verdict import Outcome
from verify.front.plugin import _compact_numbers
from verify.results.claim_figures import claim_figures, figure_path
from verify.results.table import VerdictLog

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SERIES_KEYS = ("t", "observed", "bound", "error", "margin")


@pytest.fixture(scope="module")
def traj():
    """The paper's two-point example (S002 section 5), 801 saved times: about 0.3 s."""
    return s002_trajectory(generators.two_point(seed=0), points=801)


# A true inequality (energy identity + Cauchy-Schwarz, README), after t = 0 where its two
# sides coincide.
DRIFT = dataclasses.replace(
    theory.get("S002-L1").variant("drift bound",
                                  statement=sp.Le(ParamDrift(t), sp.sqrt(kappa * t * Loss(0)))),
    kind=Kind.POINTWISE, window=(sp.Rational(1, 10), sp.oo))


def _index(fd: dict, t_at: float) -> int:
    return fd["t"].index(t_at)


def _assert_series_is_the_check(claim, tr, verdict):
    """The figure's series are the check's own numbers at the saved times it keeps."""
    fd = verdict.figure_data
    assert fd is not None and fd["type"] == "series"
    lengths = {len(fd[k]) for k in SERIES_KEYS}
    assert len(lengths) == 1, lengths
    assert 1 <= lengths.pop() <= MAX_POINTS + 3
    # the reported point is in the series, with the verdict's margin and error
    assert fd["at"]["t"] == verdict.where.t
    i = _index(fd, fd["at"]["t"])
    assert fd["margin"][i] == verdict.margin
    assert fd["error"][i] == verdict.error
    assert fd["at"]["margin"] == verdict.margin
    # margin and error are verify.check's own definition (relation_margins), and the
    # two sides are what evaluate() gives for the relation's lhs and rhs
    rel = next(r for r in claim.relations() if sp.sstr(r) == fd["part"])
    margin, error = next((m, e) for r, m, e in relation_margins(claim, tr) if r == rel)
    lhs, _ = evaluate(claim, tr, rel.lhs)
    rhs, _ = evaluate(claim, tr, rel.rhs)
    rows = np.searchsorted(tr.t, fd["t"])
    np.testing.assert_array_equal(tr.t[rows], fd["t"])
    np.testing.assert_array_equal(margin[rows], fd["margin"])
    np.testing.assert_array_equal(error[rows], fd["error"])
    np.testing.assert_array_equal(lhs[rows], fd["observed"])
    np.testing.assert_array_equal(np.broadcast_to(rhs, tr.t.shape)[rows], fd["bound"])
    # and margin is bound - observed (<=), observed - bound (>=), -|observed - bound| (==)
    # up to round-off: the check evaluates lhs - rhs as one expression
    obs, bnd = np.array(fd["observed"]), np.array(fd["bound"])
    expected = {"<=": bnd - obs, ">=": obs - bnd, "==": -np.abs(obs - bnd)}[fd["relation"]]
    scale = np.maximum(np.abs(obs), np.abs(bnd))
    assert np.all(np.abs(expected - np.array(fd["margin"])) <= 1e-12 * scale + 1e-300)
    return fd


def test_pointwise_figure_data_is_what_the_margin_came_from(traj):
    v = check(DRIFT, traj)
    assert v.outcome is Outcome.HOLDS, str(v)
    fd = _assert_series_is_the_check(DRIFT, traj, v)
    assert fd["relation"] == "<=" and fd["kind"] == Kind.POINTWISE.value
    assert len(fd["t"]) <= MAX_POINTS + 3 < len(traj.t)  # decimated from 801 saved times
    # the reported point of a HOLDS verdict is the one closest to its error band
    # (verify.check: argmin of (margin + error) / (|margin| + error))
    m, e = np.array(fd["margin"]), np.array(fd["error"])
    with np.errstate(divide="ignore", invalid="ignore"):
        closeness = np.where(np.abs(m) + e > 0, (m + e) / (np.abs(m) + e), 1.0)
    assert closeness[_index(fd, fd["at"]["t"])] == closeness.min()
    # and among points equally far from deciding, the smallest margin: the reported
    # "worst margin" of a holding inequality is its least slack (decimation keeps it)
    tied = closeness == closeness.min()
    assert v.margin == m[tied].min()


def test_conserved_figure_data(traj):
    claim = theory.get("S002-L1")
    v = check(claim, traj)
    assert v.outcome is Outcome.HOLDS, str(v)
    fd = _assert_series_is_the_check(claim, traj, v)
    assert fd["relation"] == "=="
    # an equality holds where the deviation is within the error, at every kept time
    assert all(-m <= e for m, e in zip(fd["margin"], fd["error"], strict=True))


def test_event_time_figure_data(traj):
    claim = theory.get("S002-T1")
    v = check(claim, traj)
    assert v.outcome is Outcome.HOLDS, str(v)
    fd = v.figure_data
    assert len({len(fd[k]) for k in SERIES_KEYS}) == 1
    ev = fd["event"]
    assert ev["time"] == v.observed and ev["bound"] == v.predicted
    assert ev["bound"] - ev["time"] == v.margin == fd["at"]["margin"]
    assert ev["error"] == v.error
    # the series is the event's condition L(t) <= delta L(0): it first holds at the event
    i = _index(fd, ev["time"])
    assert fd["margin"][i] >= 0
    assert all(m < 0 for m in fd["margin"][:i])


def test_verdict_equality_and_combine_ignore_figure_data(traj):
    v = check(DRIFT, traj)
    bare = dataclasses.replace(v, figure_data=None)
    assert v == bare and hash(v) == hash(bare)
    combined = check(DRIFT, [traj])
    assert combined.figure_data == v.figure_data


def test_log_keeps_the_worst_instances_figure(traj):
    tight = check(DRIFT, traj)
    loose = check(DRIFT.variant("x2", statement=sp.Le(ParamDrift(t),
                                                      2 * sp.sqrt(kappa * t * Loss(0)))), traj)
    loose = dataclasses.replace(loose, claim_id=tight.claim_id)
    assert loose.margin > tight.margin
    for order in ((loose, tight), (tight, loose)):
        log = VerdictLog()
        for v in order:
            log.record(v, DRIFT.kind.value)
        (row,) = log.table()
        assert row["figure"] == {**tight.figure_data, "outcome": tight.outcome.value}
        assert row["worst_margin"] == row["figure"]["at"]["margin"] == tight.margin
        assert sum("figure" in r for r in log.rows[tight.claim_id]) == 1
        # through pytest-xdist's JSON payload too
        merged = VerdictLog()
        merged.merge(json.loads(json.dumps(log.payload())))
        assert merged.table()[0]["figure"] == row["figure"]


def test_scaling_figure_data_has_the_claimed_slope():
    rng = np.random.default_rng(0)
    ns = np.repeat([8.0, 16.0, 32.0, 64.0], 3)
    mus = 2.0 * ns ** -0.5 * np.exp(0.01 * rng.standard_normal(ns.size))
    data = ScalingData("n", ns, mus, "MuInf", description="synthetic n^-1/2")
    claim = theory.get("S000-C2")
    v = check(claim, data)
    assert v.outcome is Outcome.HOLDS, str(v)
    fd = v.figure_data
    assert fd["type"] == "scaling"
    assert fd["claimed_slope"] == v.predicted == pytest.approx(-0.5)
    assert fd["slope"] == v.observed
    lo, hi = fd["ci"]
    assert lo <= fd["claimed_slope"] <= hi
    assert v.margin == pytest.approx(min(fd["claimed_slope"] - lo, hi - fd["claimed_slope"]))
    assert fd["x"] == ns.tolist() and fd["y"] == mus.tolist()
    assert len(fd["law"]) == len(fd["x"])
    assert {len(v) for v in fd["fit"].values()} == {4}
    assert all(a <= b for a, b in zip(fd["fit"]["band_lo"], fd["fit"]["band_hi"], strict=True))
    # a wrong claimed exponent: the claimed slope lies outside the fitted interval
    wrong = check(claim.variant("n^-1", statement=sp.Eq(MuInf, K / n)), data)
    assert wrong.outcome is Outcome.VIOLATED, str(wrong)
    assert wrong.figure_data["claimed_slope"] == pytest.approx(-1.0)
    assert not wrong.figure_data["ci"][0] <= -1.0 <= wrong.figure_data["ci"][1]


def _key_sample(count: int = 300) -> Sample:
    y = np.array([1.1, 0.7, -0.6])
    rng = np.random.default_rng(0)
    problems = []
    for _ in range(count):
        W0, a0 = balanced_init(5, 3, 1e-6, rng)
        problems.append(Problem(X=np.eye(3), y=y, W0=W0, a0=a0, init_scale=1e-6))
    return Sample(problems, description=f"{count} balanced inits")


def test_probability_figure_data():
    v = check(theory.get("S002-A3"), _key_sample())
    fd = v.figure_data
    assert fd["type"] == "probability"
    assert {e["name"] for e in fd["estimates"]} == {"PKeyMinus", "PKeyPlus"}
    for e in fd["estimates"]:
        assert e["lo"] <= e["estimate"] <= e["hi"] and e["estimate"] == e["hits"] / e["total"]
    assert min(r["margin"] for r in fd["relations"]) == v.margin
    for r in fd["relations"]:
        assert r["observed_lo"] <= r["observed"] <= r["observed_hi"]
        assert r["margin"] == pytest.approx(-abs(r["observed"] - r["bound"]))


def test_claim_figures_write_pngs(traj, tmp_path):
    log = VerdictLog()
    for claim in (DRIFT, theory.get("S002-L1"), theory.get("S002-T1"), theory.get("S002-A2")):
        log.record(check(claim, traj), claim.kind.value)
    rng = np.random.default_rng(1)
    ns = np.repeat([8.0, 16.0, 32.0], 2)
    log.record(check(theory.get("S000-C2"), ScalingData(
        "n", ns, ns ** -0.5 * np.exp(0.01 * rng.standard_normal(6)), "MuInf")), "scaling law")
    log.record(check(theory.get("S002-A3"), _key_sample(100)), "probability bound")
    log.record(check(theory.get("S002-L5"), traj), "pointwise bound")  # INAPPLICABLE here
    # through the JSON file the plugin writes, as the report reads it
    rows = json.loads(_compact_numbers(json.dumps({"claims": log.table()}, indent=2)))["claims"]
    assert rows == json.loads(json.dumps(log.table()))
    with_figure = {r["claim"] for r in rows if r["figure"]}
    assert "S002-L5" not in with_figure and len(with_figure) == len(rows) - 1
    paths = claim_figures(rows, tmp_path)
    assert set(paths) == with_figure
    for cid, path in paths.items():
        assert path == figure_path(tmp_path, cid)
        assert path.name == (f"claim_{cid}.png" if "~" not in cid
                             else "claim_S002-L1_drift_bound.png")
        head = path.read_bytes()[:8]
        assert head == PNG_SIGNATURE, cid
        assert path.stat().st_size > 5000
    assert not list(tmp_path.glob("*.partial.png"))


def test_claim_figures_survive_a_bad_row(tmp_path):
    rows = [{"claim": "X-1", "verdict": "HOLDS", "figure": {"type": "series", "t": [0.0]}},
            {"claim": "X-2", "verdict": "HOLDS", "figure": None}]
    with pytest.warns(UserWarning, match="X-1"):
        assert claim_figures(rows, tmp_path) == {}


def test_figure_values_are_plain_json(traj):
    """No NaN or infinity (strict JSON): a value that is not finite is None."""
    for claim in (theory.get("S002-T1"), theory.get("S002-L1"), DRIFT):
        json.dumps(check(claim, traj).figure_data, allow_nan=False)


def test_a_holding_inequality_reports_its_least_slack():
    # S002-F3 (Fact 1) holds on the two-point example with every margin above its error:
    # the reported margin must be the smallest one, not an arbitrary point of the series
    tr = s002_trajectory(generators.two_point(lam=1e-20, seed=0), points=801)
    v = check(theory.get("S002-F3"), tr)
    assert v.outcome is Outcome.HOLDS
    margins = [m for m in v.figure_data["margin"] if m is not None]
    assert v.margin == min(margins)


def test_limit_rows_get_a_figure(tmp_path, recwarn):
    """A LIMIT row (a limit with its claimed value, and a rate) is drawn from the sequence it
    was decided on; before, the report warned "unknown figure type 'limit'" and drew none."""
    from tests.verify.engine.test_check_limit import _limit_claim, _rate_claim
    from verify.engine.evidence import LimitSequence

    lams = tuple(10.0 ** -k for k in range(2, 12))
    near = LimitSequence("lam", lams, tuple(0.3 + 0.5 * x for x in lams), (1e-12,) * 10,
                         quantity="L(t)")
    rate = LimitSequence("lam", lams, tuple(2.0 * x ** 0.5 for x in lams), (1e-4,) * 10,
                         quantity="L(t)")
    log = VerdictLog()
    for claim, seq in ((_limit_claim(sp.Rational(3, 10)), near),
                       (_rate_claim(sp.Rational(1, 2)), rate)):
        v = check(claim, seq)
        assert v.outcome is Outcome.HOLDS, str(v)
        assert v.figure_data["type"] == "limit"
        # the exponent band drawn is the one decided on (a rate's, widened by its errors)
        assert v.figure_data["band"] == pytest.approx(list(v.band))
        log.record(v, "limit")
    rows = json.loads(json.dumps(log.table()))
    paths = claim_figures(rows, tmp_path)
    assert not [w for w in recwarn if "figure" in str(w.message)]
    assert set(paths) == {"TOY-LIM", "TOY-RATE"}
    for path in paths.values():
        assert path.read_bytes()[:8] == PNG_SIGNATURE
        assert path.stat().st_size > 5000


def test_a_large_figure_is_stored_with_a_palette(tmp_path):
    """The quick report embeds its figures; the CI run of 2026-12-06 found its index.html at
    3.07 MB, over the 3 MB target. A PNG over PALETTE_ABOVE bytes is rewritten with a
    256-colour palette (a dense heat map here), a small one is left as matplotlib wrote it."""
    from PIL import Image

    from verify.results.figures import PALETTE_ABOVE, pyplot, save_png

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 6))
    ax.imshow(np.random.default_rng(0).standard_normal((200, 200)), cmap="RdBu_r")
    big = save_png(fig, tmp_path / "big.png")
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1])
    small = save_png(fig, tmp_path / "small.png")
    with Image.open(big) as im:
        assert im.mode == "P" and big.stat().st_size > 5000
    with Image.open(small) as im:
        assert small.stat().st_size <= PALETTE_ABOVE and im.mode == "RGBA"
