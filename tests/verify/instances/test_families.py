

def test_a_family_run_cost_says_when_and_how_loaded_it_was_measured():
    from verify.instances.run_cost import cost_lines
    costs = {"measured": {"date": "2026-12-02", "cores": 2, "load": [4.1, 5.0]},
             "families": {"sphere": [{"params": {"n": 100, "d": 40, "p": 30}, "seconds": 101.8,
                                      "events": 3915, "horizon": 600.0}]}}
    lines = cost_lines("sphere", costs)
    assert ("2026-12-02, 2 cores, one thread, load average 4.1-5 (other jobs beside it: the "
            "times are upper bounds)") in lines[0]
    assert "n=100 d=40 p=30" in lines[1] and "101.8 s" in lines[1] and "3915 events" in lines[1]
    assert cost_lines("no-such-family", costs) == []


def test_a_run_cost_measured_on_a_quiet_machine_does_not_say_other_jobs_ran():
    from verify.instances.run_cost import cost_lines
    costs = {"measured": {"date": "2026-12-02", "cores": 2, "load": [0.9, 1.6]},
             "families": {"sphere": [{"params": {"n": 20}, "seconds": 3.0, "events": 10,
                                      "horizon": 100.0}]}}
    line = cost_lines("sphere", costs)[0]
    assert "load average 0.9-1.6)" in line and "other jobs" not in line



def test_each_family_says_its_own_measurement_not_the_last_one_written():
    """``bench/family_costs.py --only F --write`` re-measures F alone: the other families keep
    their own date and load (``measured_families``), not F's."""
    from verify.instances.run_cost import cost_lines
    row = [{"params": {"n": 20}, "seconds": 3.0, "events": 10, "horizon": 100.0}]
    costs = {"measured": {"date": "2026-12-07", "cores": 2, "load": [0.1, 0.9]},
             "measured_families": {
                 "sphere": {"date": "2026-12-06", "cores": 2, "load": [11.2, 15.4]},
                 "orthogonal": {"date": "2026-12-07", "cores": 2, "load": [0.1, 0.9]},
                 "group": {"date": "2026-12-06 or earlier"}},
             "families": {"sphere": row, "orthogonal": row, "group": row}}
    assert "2026-12-06, 2 cores, one thread, load average 11.2-15.4 (other jobs" in \
        cost_lines("sphere", costs)[0]
    assert "2026-12-07, 2 cores, one thread, load average 0.1-0.9)" in \
        cost_lines("orthogonal", costs)[0]
    assert "measured 2026-12-06 or earlier, one thread):" in cost_lines("group", costs)[0]

# -- the printed ranges are the enforced ones (issues 50, 52) -----------------------------------
import math  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from theory.fields import RecordError  # noqa: E402
from verify.instances import families as F  # noqa: E402


def _numeric(fam):
    return [(k, s) for k, s in fam.params.items() if s.kind != "choice"]


def _outside(spec):
    """Values just outside the allowed range (each end that is finite)."""
    lo, hi = spec.limits
    out = []
    if lo is not None:
        out.append(lo - 1 if spec.kind == "int" else (lo if spec.open_low else lo - 1e-3))
    if hi is not None:
        out.append(hi + 1 if spec.kind == "int" else hi * 1.001 + 1e-9)
    return out


@pytest.mark.parametrize("name", sorted(F.all_families()))
def test_every_printed_allowed_range_is_the_one_enforced(name):
    """`gfverify families` prints each parameter's allowed range; a value just outside it
    is refused by a message quoting that same range, and the drawn ranges (and the
    allowed ends) are accepted. Before: orthogonal printed lam in [1e-20, 1e-6] and
    accepted 1e-3; p=0 said "allowed range [1, inf]" next to a printed [30, 60]."""
    fam = F.all_families()[name]
    listing = fam.listing()
    for key, spec in _numeric(fam):
        shown = spec.allowed_text()
        assert f"allowed {shown}" in listing
        for bad in _outside(spec):
            with pytest.raises(F.FamilyError) as err:
                fam.fixed(**{key: str(bad)})
            assert shown in str(err.value) and f"--param {key}=" in str(err.value)
            assert len(str(err.value).splitlines()) == 1
        for which in ("default", "paper"):
            for good in spec.range(which):
                fam.fixed(**{key: str(good)})  # accepted: no error


def test_fixing_n_above_d_range_moves_d_with_it():
    """`--param n=9` on orthogonal (d >= n drawn from [2, 8]) read "d must be >= n"; now d
    is drawn at the nearest values the bound allows."""
    fam = F.get("orthogonal").fixed(n="9")
    assert fam.params["d"].bounds({"n": 9}) == (9, 9)
    assert fam.sample_params(np.random.default_rng(0))["d"] == 9
    small = F.get("orthogonal").fixed(d="3")
    assert small.params["n"].range() == (2, 3)


def test_each_violation_gets_its_own_line():
    with pytest.raises(F.FamilyError) as err:
        F.get("orthogonal").fixed(p="0", lam="2", q="1", n="x")
    lines = str(err.value).splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("--param p=0: outside the allowed range [1, inf)")
    assert lines[1].startswith("--param lam=2: outside the allowed range (0, 0.5]")
    assert "no parameter 'q'" in lines[2] and "expected an integer" in lines[3]


def test_bounds_between_fixed_values_are_named():
    with pytest.raises(F.FamilyError, match=r"--param d=3: d must be >= n, and n=5 is fixed"):
        F.get("orthogonal").fixed(n="5", d="3")
    toy = F.Family(name="toy", description="x",
                   params={"n": F.IntParam(2, 4, "samples", limits=(2, 10)),
                           "d": F.IntParam(2, 8, "dimension", ge="n")},
                   build=lambda n, d: None, horizon_rule=lambda problem, params: 1.0)
    with pytest.raises(F.FamilyError, match=r"--param d=1: d must be >= n, and n is at "
                                            r"least 2 \(its allowed range \[2, 10\]\)"):
        toy.fixed(d="1")
    assert toy.fixed(n="9").params["d"].range() == (9, 9)


def test_the_cli_prints_one_error_line_per_violation(capsys):
    from verify.front.cli import main

    code = main(["conjecture", "L(t) <= L(0)", "--family", "orthogonal", "--param", "p=0",
                 "--param", "lam=3", "--no-plot"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and len(err) == 2 and all(line.startswith("error: --param") for line in err)


def test_a_family_whose_drawn_range_leaves_its_allowed_range_is_refused():
    with pytest.raises(RecordError, match=r"drawn range inside the allowed range"):
        F.Family(name="bad", description="x",
                 params={"lam": F.FloatParam(1e-20, 1e-2, "scale", limits=(0.0, 1e-3))},
                 build=lambda lam: None, horizon_rule=lambda problem, params: 1.0)
    with pytest.raises(RecordError, match=r"earlier parameter"):
        F.Family(name="bad", description="x",
                 params={"d": F.IntParam(2, 4, "d", ge="n"), "n": F.IntParam(2, 4, "n")},
                 build=lambda d, n: None, horizon_rule=lambda problem, params: 1.0)


def test_every_declared_witness_lies_in_its_family_s_allowed_ranges():
    """The report's tightness witnesses (the packs' TIGHTEN settings: lam = 1e-30 on
    cel23-correlated, eps = 1e-100 on separable) were outside the printed ranges; every
    declared setting is now accepted by `Family.fixed` (the allowed ranges)."""
    from verify.report.tightness import declared_settings

    for s in declared_settings().values():
        if "family" in s and s.get("params"):
            F.get(s["family"]).fixed(**s["params"])  # raises if outside


def test_log_drawn_sizes_stay_in_range_and_replay():
    spec = F.IntParam(10, 2000, "width", log=True)
    rng = np.random.default_rng(1)
    draws = [spec.sample(rng, {}) for _ in range(2000)]
    assert min(draws) >= 10 and max(draws) <= 2000
    assert np.median(draws) < 300  # log scale: the geometric middle is ~141
    again = [spec.sample(np.random.default_rng(1), {})]
    assert again[0] == draws[0]


@pytest.mark.parametrize("name", sorted(F.all_families()))
def test_paper_sizes_draw_inside_their_printed_ranges(name):
    fam = F.all_families()[name].sized("paper")
    rng = np.random.default_rng(0)
    for _ in range(20):
        values = fam.sample_params(rng)
        for key, spec in _numeric(fam):
            assert spec.within(values[key]), (key, values[key])
            lo, hi = F.all_families()[name].params[key].range("paper")
            if spec.ge is None and spec.le is None:
                assert lo <= values[key] <= hi


# -- the cost model (verify.instances.run_cost) ----------------------------------------------------
def test_the_cost_model_recovers_a_power_law():
    from verify.instances import run_cost as R

    rows = [{"params": {"n": n, "p": p}, "horizon": h, "seconds": 2e-4 * h * n ** 2 * p}
            for n in (4, 8, 16) for p in (10, 40) for h in (10.0, 100.0)]
    model = R._fit("toy", rows, ("n", "p"))
    assert model.exponents["n"] == pytest.approx(2.0, abs=0.05)
    assert model.exponents["horizon"] == pytest.approx(1.0, abs=0.05)
    assert model.seconds({"n": 32, "p": 10}, 50.0) == pytest.approx(2e-4 * 50 * 32**2 * 10,
                                                                     rel=0.2)


def test_a_run_above_max_cost_is_refused_with_its_estimate():
    from verify.instances import run_cost as R

    with pytest.raises(R.CostError) as err:
        R.refuse_above("orthogonal", {"n": 4, "p": 60, "d": 4}, 1e9, 3600.0)
    text = str(err.value)
    assert text.startswith("this run would take about") and "pass --max-cost" in text
    assert R.parse_duration("2h") == 7200 and R.parse_duration("90s") == 90
    assert R.parse_duration("30min") == 1800 and R.parse_duration("600") == 600
    for bad in ("0", "-1h", "soon", "nan"):
        with pytest.raises(R.CostError):
            R.parse_duration(bad)
    assert math.isclose(R.parse_duration("1.5e3"), 1500)


def test_cheap_runs_do_not_flatten_the_cost_model_and_extrapolation_is_said():
    """Runs under a second are mostly a run's fixed overhead: with them the fitted exponent
    fell (orthogonal-asym's n = 2,000 estimated at 5 min against the n^2.5 its costly runs
    show); the model is fitted to the costly runs, and an estimate beyond every measured
    size says it extrapolates."""
    from verify.instances import run_cost as R

    rows = [{"params": {"n": n}, "horizon": 6.0 * n, "seconds": 0.3 + 1e-6 * (6.0 * n) * n**2}
            for n in (2, 4, 8, 16, 32, 100, 200, 400)]
    model = R._fit("toy", rows, ("n",))
    truth = 1e-6 * 6.0 * 2000 * 2000**2
    assert model.seconds({"n": 2000}, 12000.0) == pytest.approx(truth, rel=0.3)
    assert model.measured["n"] == pytest.approx((100.0, 400.0))  # the rows it was fitted to
    assert model.beyond({"n": 2000}, 12000.0) == ["horizon = 12000 > 2400", "n = 2000 > 400"]
    assert model.beyond({"n": 300}, 1800.0) == []
