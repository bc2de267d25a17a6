"""Scaling conjectures fitted to stored sweep rows (`gfverify conjecture --results`)."""

from __future__ import annotations

import numpy as np
import pytest

from verify import sweep
from verify.conjecture.stored import StoreConjectureError, parse_law, stored_scaling
from verify.engine.scaling import fit_power_law
from verify.front.cli import main


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    results = tmp_path_factory.mktemp("store")
    sweep.run_sweep({
        "name": "tiny", "generator": "orthogonal_scaled", "seeds": 4, "batch_size": 4,
        "grid": {"n": [6, 10, 16], "d": 20, "p": "published", "repo_orth": True},
        "method": {"name": "gd", "epochs": 4000, "stop_loss": 1e-9, "error_check": False,
                   "points": 2},
    }, results, progress=False)
    return results


def test_the_fit_is_the_one_of_the_stored_rows(store, capsys):
    rows = [r for r in sweep.read_rows(store) if r["status"] == "success"]
    direct = fit_power_law([r["n"] for r in rows], [r["rate_avg"] for r in rows])
    result = stored_scaling("rate_avg ~ n**alpha", store)
    assert result.fit.exponent == pytest.approx(direct.exponent, rel=1e-12)
    assert (result.fit.lo, result.fit.hi) == pytest.approx((direct.lo, direct.hi))
    assert result.counts == {6: 4, 10: 4, 16: 4} and result.exponent is None
    assert main(["conjecture", "--scaling", "rate_avg ~ n**alpha", "--results", str(store)]) == 0
    assert "fitted exponent" in capsys.readouterr().out


def test_a_stated_exponent_outside_the_interval_is_rejected(store, capsys):
    fit = stored_scaling("rate_avg ~ n**alpha", store).fit
    far = fit.hi + 5.0
    code = main(["conjecture", "--scaling", f"rate_avg ~ n**({far})", "--results", str(store),
                 "--where", "sweep=tiny"])
    assert code == 1 and "REJECTED" in capsys.readouterr().out
    inside = float(np.clip(fit.exponent, fit.lo, fit.hi))
    assert stored_scaling(f"rate_avg ~ n**({inside})", store).consistent


def test_rows_at_one_size_are_undecided_not_bad_input(store, capsys):
    # a valid store whose matching rows cannot be fitted: exit 3 with the reason
    code = main(["conjecture", "--scaling", "rate_avg ~ n**(-1)", "--results", str(store),
                 "--where", "n=10"])
    out = capsys.readouterr().out
    assert code == 3 and "UNDECIDED" in out and "n = 10 (4)" in out
    assert stored_scaling("rate_avg ~ n**alpha", store, {"n": "10"}).consistent is None


def test_bad_laws_and_filters_exit_2_naming_the_option(store, capsys):
    for args, named in ((["--scaling", "bogus ~ n**alpha"], "--scaling"),
                        (["--scaling", "rate_avg ~ q**alpha"], "--scaling"),
                        (["--scaling", "rate_avg ~ n**alpha", "--where", "x=1"], "--where"),
                        (["--scaling", "rate_avg ~ n**alpha", "--where", "sweep=none"],
                         "--results"),
                        (["--scaling", "rate_avg ~ n**alpha", "--family", "sphere"],
                         "--family")):
        assert main(["conjecture", *args, "--results", str(store)]) == 2
        assert named in capsys.readouterr().err
    assert main(["conjecture", "--scaling", "rate_avg ~ n**alpha"]) == 2
    assert "--family" in capsys.readouterr().err
    assert parse_law("kernel_rate ~ d**(-1/2)") == ("kernel_rate", "d", -0.5)
    with pytest.raises(StoreConjectureError, match="--results"):
        stored_scaling("rate_avg ~ n**alpha", store.parent / "missing")
