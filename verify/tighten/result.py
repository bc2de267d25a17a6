"""What a tightening returns: the sharpest value with its error, the witness (decided or
not), the slack against the proved value, the instances searched, as text, JSON and a
PNG of the best value against the number of instances searched.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from numerics import Trajectory
from theory.claim import Claim
from verify.conjecture.instance import value_text
from verify.conjecture.result import SearchSettings, replay_command
from verify.conjecture.statement import DEFAULT_POINTS
from verify.engine.verdict import Outcome
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED
from verify.results.figures import legend, pyplot, save_png
from verify.tighten.extreme import DECIDED, LEFT_OUT, MOVE, Extreme, reason
from verify.tighten.statement import Tightenable


def _finite(x) -> float | None:
    return float(x) if x is not None and math.isfinite(float(x)) else None


@dataclass(frozen=True)
class Searched:
    """One instance searched: its parameters and its extreme.

    Attributes
    ----------
    params
        The family parameters of the instance (seed included).
    problem_hash
        The instance's `numerics.Problem.content_hash`.
    extreme
        The constant's critical value on this instance (`verify.tighten.extreme.Extreme`):
        ``status`` (``"decided"``, ``"undecided"``, ``"inapplicable"``), ``value`` and its
        ``error``, the time ``t`` and ``part`` where it is attained, the ``direction`` C is
        bounded in (+1: from below, -1: from above) and a ``note`` when not decided.
    horizon
        The horizon the instance was simulated to.
    """

    params: dict
    problem_hash: str
    extreme: Extreme
    horizon: float

    def row(self, query: str, versions: str) -> dict:
        """The row of the tightening store (`verify.tighten.store`) for this instance."""
        e = self.extreme
        return {"query": query, "params": json.dumps(self.params, sort_keys=True),
                "problem_hash": self.problem_hash, "status": e.status, "value": e.value,
                "error": _finite(e.error), "t": e.t, "part": e.part, "direction": e.direction,
                "note": e.note, "horizon": self.horizon, "versions": versions}

    @classmethod
    def from_row(cls, row: dict) -> Searched:
        """The instance read back from a store row (`row`)."""
        e = Extreme(row["status"], row["value"],
                    math.inf if row["error"] is None else row["error"], row["t"],
                    int(row["part"] or 0), int(row["direction"] or 0), row["note"] or "")
        return cls(json.loads(row["params"]), row["problem_hash"], e, float(row["horizon"]))


@dataclass
class Witness:
    """The instance attaining the sharpest value, checked with C moved past and back.

    The move is 2% of the value (`verify.tighten.extreme.MOVE`) when the value is known to
    2% of itself, else 2% of a scale set by the proved value (a value below resolution,
    `TightenResult.below_resolution`). The witness is *decided* when the statement is
    VIOLATED at ``past`` and HOLDS at ``back``: its margin at 2% is outside the numerical
    error.

    Attributes
    ----------
    searched
        The instance (`Searched`) with its sharpest value.
    past
        C moved past the sharpest value, where the statement must be VIOLATED (checked at
        the witness's time).
    back
        C moved back, where the statement must HOLD (checked over the window).
    past_outcome
        The `verify.Outcome` of the check at ``past``.
    back_outcome
        The `verify.Outcome` of the check at ``back``.
    proved_here
        The proved value on this instance (the claim's parameter, 1 for a multiplier, or
        its formula evaluated here); None for a user's statement.
    proved_outcome
        The claim checked at its proved value on this instance (VIOLATED means the paper's
        constant fails here); None without a proved value.
    trajectory
        The witness's run, or None.
    claim
        The statement as a claim on this run, C left free; None when not built.
    relaxed
        Which of the claim's non-required hypotheses the witness does not meet
        (`verify.engine.check_run.relaxed_note`); "" when it meets them all, or for a user's
        statement.
    """

    searched: Searched
    past: float
    back: float
    past_outcome: Outcome
    back_outcome: Outcome
    proved_here: float | None
    proved_outcome: Outcome | None = None
    trajectory: Trajectory | None = None
    claim: Claim | None = None
    relaxed: str = ""

    @property
    def decided(self) -> bool:
        """Whether the statement is VIOLATED at ``past`` and HOLDS at ``back`` (the sharpest
        value is resolved)."""
        return self.past_outcome is Outcome.VIOLATED and self.back_outcome is Outcome.HOLDS


@dataclass(kw_only=True)
class TightenResult(SearchSettings):
    """What a tightening found: the sharpest value of the free constant with its error, the
    witness that attains it, the slack against the proved value, every instance searched.

    ``verdict``: SHARPEST FOUND (a decided witness), UNDECIDED (no decided witness) or
    PROVED VALUE VIOLATED (the proved constant fails on the witness); ``exit_code`` 0, 3
    and 1 respectively.

    Attributes
    ----------
    family
        The family's name (``"orthogonal"``).
    mode
        When the statement is compared: ``"for_all_t"`` (every saved time from t = 0),
        ``"at_t"`` (at ``at_t``) or ``"as_t_to_inf"`` (the end of the horizon); a claim
        uses its own window.
    at_t
        The time of the ``"at_t"`` mode; None otherwise.
    method
        How instances were simulated (`verify.conjecture.MethodSpec`: ``"flow"`` or
        ``"gd"`` with its step ``lr``, the flow's coordinates, the escalation budget).
    budget
        The number of instances hypothesis could draw (before the refinement).
    seed
        The search's seed (same seed, same instances).
    model
        The family's fixed model options (``{"activation": "leaky:0.1"}``); empty for its
        own model.
    selector
        The command-line arguments that select the family in a replay command
        (``("--data", "my.npz")`` for a dataset); empty: ``--family NAME``.
    tightenable
        The statement tightened (`verify.tighten.statement.Tightenable`): its text, the
        free constant, the relations that involve it, the proved value if any.
    points
        Saved times per run.
    searched
        Every instance searched (`Searched`), in search order: read from the store, drawn,
        then refined.
    stored
        How many of them were read from the store (``results``) rather than simulated.
    refined
        Simulations spent by the local refinement.
    witness
        The instance that attains the sharpest value (`Witness`), or None when no instance
        decided the constant.
    passed_over
        Sharper instances passed over because their 2% check was within numerical error.
    fixed
        The family parameters fixed by the caller (``params``; ``horizon`` for ``t_max``).
    unbuildable
        Draws the family could not build, as (parameters, reason) pairs.
    horizon
        The horizon fixed by the caller, or None for the family's rule.
    results
        The store directory read and extended, or None.
    seconds
        Wall time of the tightening.
    plot_path
        The PNG written (best value against instances searched), or None.
    loss_floor
        Windows end at the last saved time where L(t)/L(0) is at least this; None for none.
    assume
        The conditions on the instance (``--assume`` texts), in order: an instance failing
        one is inapplicable, never simulated.
    from_runs
        Whether the instances were given runs (`verify.tighten.search.tighten_claim_on_runs`:
        parameters ``{"run": NAME}``, ``family`` their label), not family draws: no replay
        command reproduces them.
    """

    tightenable: Tightenable
    points: int
    searched: list[Searched]
    stored: int = 0
    refined: int = 0
    witness: Witness | None = None
    passed_over: int = 0
    fixed: dict = field(default_factory=dict)
    unbuildable: list = field(default_factory=list)
    horizon: float | None = None
    results: str | None = None
    seconds: float = 0.0
    plot_path: Path | None = None
    loss_floor: float | None = None
    assume: tuple = ()
    from_runs: bool = False

    # -- numbers -------------------------------------------------------------------------
    @property
    def sharpest(self) -> float | None:
        """The sharpest value observed (the witness's), or None."""
        return self.witness.searched.extreme.value if self.witness else None

    @property
    def error(self) -> float | None:
        """The numerical error of ``sharpest``, or None."""
        return self.witness.searched.extreme.error if self.witness else None

    @property
    def direction(self) -> int:
        """Which way C is bounded (+1 below, the smallest C that holds; -1 above; 0 no
        witness)."""
        return self.witness.searched.extreme.direction if self.witness else 0

    @property
    def proved(self) -> float | None:
        """The proved value (on the witness when it depends on the instance)."""
        return self.witness.proved_here if self.witness else self.tightenable.proved_value()

    @property
    def slack(self) -> float | None:
        """How far the proved value is from the sharpest observed, as a factor >= 1 when
        the proved value is on the side that keeps the statement true."""
        p, s = self.proved, self.sharpest
        if p is None or s is None or p == 0 or s == 0 or (p > 0) != (s > 0):
            return None
        if self.below_resolution:
            return None  # (see slack_at_least)
        ratio = abs(p / s) if self.direction > 0 else abs(s / p)
        # >= 1 exactly when the proved value is on the side that keeps the claim true
        on_true_side = self.direction * (p - s) >= 0
        return ratio if on_true_side == (ratio >= 1) else 1 / ratio

    @property
    def below_resolution(self) -> bool:
        """The sharpest value is not known to 2% of itself, only to 2% of the proved value
        (a deviation the flow keeps near 0, such as S002-F2's): no slack ratio is given."""
        s, err = self.sharpest, self.error
        return s is not None and err is not None and not err <= MOVE * abs(s)

    @property
    def slack_at_least(self) -> float | None:
        """A lower bound of the slack when the value is below resolution (`below_resolution`)
        and the constant is bounded below, ``|proved| / (|sharpest| + error)``; else None."""
        p, s, err = self.proved, self.sharpest, self.error
        if not self.below_resolution or p is None or self.direction <= 0 or p <= 0:
            return None
        return abs(p) / (abs(s) + err) if abs(s) + err > 0 else None

    @property
    def outside_range(self) -> str:
        """When the tightened claim parameter is declared positive (its symbol's sympy
        assumption, as eps, c_T, tol) and the smallest value that holds is not (S002-L3's
        eps on the two-point toy: t_2 came before the bound's leading term
        -ln(lam)/||D_+||, so the bound holds at eps = 0 already): what that means, in
        words; else "". The sharpest value within the parameter's range is then its lower
        end, not attained: every positive value holds on the instances decided."""
        t, s = self.tightenable, self.sharpest
        if t.param is None or t.claim is None or s is None or self.direction <= 0:
            return ""
        from theory import registry

        statement = registry.get(t.claim.id).statement  # (the template's has C for it)
        symbol = next((x for x in statement.free_symbols if x.name == t.param), None)
        if symbol is None or not symbol.is_positive or s > 0:
            return ""
        return (f"the value is outside {t.param}'s range ({t.param} > 0): every "
                f"{t.param} > 0 holds on the decided instances, so within its range the "
                f"sharpest is its lower end, 0, not attained")

    @property
    def decided(self) -> int:
        """How many instances searched decided the constant."""
        return sum(s.extreme.status == DECIDED for s in self.searched)

    def counts(self) -> dict[str, int]:
        """How many instances searched ended in each status (decided, undecided, ...)."""
        out: dict[str, int] = {}
        for s in self.searched:
            out[s.extreme.status] = out.get(s.extreme.status, 0) + 1
        return out

    def reasons(self) -> dict[str, int]:
        """How many instances that did not decide C gave each reason
        (`verify.tighten.extreme.reason`: one per kind of reason, not per instance)."""
        out: dict[str, int] = {}
        for s in self.searched:
            if s.extreme.status != DECIDED:
                key = reason(s.extreme)
                out[key] = out.get(key, 0) + 1
        return out

    def reason_examples(self) -> dict[str, Searched]:
        """The first instance searched that gave each reason (`reasons`)."""
        out: dict[str, Searched] = {}
        for s in self.searched:
            if s.extreme.status != DECIDED:
                out.setdefault(reason(s.extreme), s)
        return out

    @property
    def left_out(self) -> int:
        """How many decided instances left saved times out of their extreme (times no
        float64 run decides, named in their note)."""
        return sum(s.extreme.status == DECIDED and s.extreme.note.startswith(LEFT_OUT)
                   for s in self.searched)

    @property
    def verdict(self) -> str:
        """``"SHARPEST FOUND"``, ``"UNDECIDED"`` or ``"PROVED VALUE VIOLATED"``."""
        if self.witness is None:
            return "UNDECIDED"
        if not self.witness.decided:
            return "UNDECIDED"
        if self.witness.proved_outcome is Outcome.VIOLATED:  # checked, not inferred
            return "PROVED VALUE VIOLATED"
        return "SHARPEST FOUND"

    @property
    def exit_code(self) -> int:
        """The command's exit code (0 sharpest found, 3 undecided, 1 proved value violated)."""
        return {"UNDECIDED": EXIT_UNDECIDED, "PROVED VALUE VIOLATED": EXIT_FOUND}.get(
            self.verdict, EXIT_OK)

    def history(self) -> list[tuple[int, float | None]]:
        """(instances searched, best value so far), in search order."""
        out, best = [], None
        for k, s in enumerate(self.searched, 1):
            e = s.extreme
            if e.status == DECIDED and (best is None or (e.value > best if e.direction > 0
                                                          else e.value < best)):
                best = e.value
            out.append((k, best))
        return out

    # -- how to reproduce ----------------------------------------------------------------
    def replay(self) -> str:
        """A command that tightens again on the witness alone (every parameter fixed); ""
        when there is no witness or the instances were given runs."""
        if self.witness is None or self.from_runs:
            return ""
        t = self.tightenable
        args = ["gfverify", "tighten", t.text, *(self.selector or ("--family", self.family))]
        if t.claim is None:
            args[3:3] = ["--free", t.free.name]
        elif t.param is not None:
            args[3:3] = ["--param", t.param]
        for k, v in t.parameters:
            args += ["--claim-param", f"{k}={v}"]
        for k, v in {**self.witness.searched.params, **self.model}.items():
            args += ["--param", f"{k}={value_text(v)}"]
        if self.horizon is not None:
            args += ["--t-max", repr(float(self.horizon))]
        if t.claim is None:
            args += {"for_all_t": ["--for-all-t"], "as_t_to_inf": ["--as-t-to-inf"],
                     "at_t": ["--at-t", repr(self.at_t)]}[self.mode]
        if t.part is not None:
            args += ["--part", str(t.part)]
        if self.points != DEFAULT_POINTS:
            args += ["--points", str(self.points)]
        if self.loss_floor is not None:
            args += ["--loss-floor", repr(float(self.loss_floor))]
        for text in self.assume:
            args += ["--assume", text]
        args += self.method.cli() + ["--budget", "1", "--refine-budget", "0"]
        return " ".join(shlex.quote(a) for a in args)

    def conjecture_commands(self) -> dict[str, str]:
        """`gfverify conjecture` on the witness (user text): C moved past, at the witness's
        time (``--at-t``: the conjecture's for-all-t window starts after t = 0), where it
        must be a counterexample; C moved back, in the tightening's mode, where it must
        hold."""
        t, w = self.tightenable, self.witness
        if (w is None or t.parsed is None or t.part is not None or self.loss_floor is not None
                or self.from_runs):
            return {}  # (`gfverify conjecture` has no --part and no --loss-floor)
        params = w.searched.params
        past_mode, past_at = (("at_t", w.searched.extreme.t) if self.mode != "at_t"
                              else ("at_t", self.at_t))
        return {"past": replay_command(t.text_at(w.past), self.family, params, past_mode,
                                       past_at, self.method, self.horizon, self.points,
                                       model=self.model, assume=self.assume,
                                       selector=self.selector),
                "back": replay_command(t.text_at(w.back), self.family, params, self.mode,
                                       self.at_t, self.method, self.horizon, self.points,
                                       model=self.model, assume=self.assume,
                                       selector=self.selector)}

    # -- output --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The result as plain JSON (``gfverify tighten --json``)."""
        t, w = self.tightenable, self.witness
        out = {
            "statement": t.text, "constant": t.free.name, "tightened": t.how,
            "parts": [p.text() for p in t.parts], "family": self.family, "model": self.model,
            "mode": self.mode,
            "at_t": self.at_t, "method": self.method.name, "lr": self.method.lr,
            "verdict": self.verdict, "sharpest": self.sharpest, "error": _finite(self.error),
            "outside_range": self.outside_range,
            "bounded": {1: "below", -1: "above"}.get(self.direction),
            "searched": len(self.searched), "decided": self.decided,
            "passed_over": self.passed_over,
            "counts": self.counts(), "reasons": self.reasons(),
            "stored_before": self.stored, "refined": self.refined,
            "budget": self.budget, "seed": self.seed, "fixed": self.fixed,
            "loss_floor": self.loss_floor, "assume": list(self.assume),
            "history": self.history(), "seconds": round(self.seconds, 3),
            "replay": self.replay(), "results": self.results,
            "plot": str(self.plot_path) if self.plot_path else None,
        }
        if t.proved is not None:
            out["proved"] = self.proved
            out["proved_text"] = t.proved_text()
            out["slack"] = self.slack
            out["slack_at_least"] = self.slack_at_least
        if w is not None:
            e = w.searched.extreme
            out["witness"] = {
                "params": w.searched.params, "problem_hash": w.searched.problem_hash,
                "t": e.t, "part": t.parts[e.part].text(), "value": e.value,
                "error": _finite(e.error), "decided": w.decided,
                "past": {"C": w.past, "outcome": w.past_outcome.value},
                "back": {"C": w.back, "outcome": w.back_outcome.value},
                "at_proved": (w.proved_outcome.value if w.proved_outcome is not None
                              else None),
                "relaxed": w.relaxed, "note": e.note,
            }
            out["conjecture_commands"] = self.conjecture_commands()
        else:
            out["witness"] = None
        return out

    def report(self) -> str:
        """The result as ``gfverify tighten`` prints it (several lines)."""
        t, w = self.tightenable, self.witness
        lines = [f"tighten {t.text} ({t.how}) on family {self.family_text}"
                 + (f", {self.mode}" if t.claim is None else "")]
        counts = ", ".join(f"{v} {k}" for k, v in sorted(self.counts().items()))
        stored = f" ({self.stored} read from the store)" if self.stored else ""
        lines.append(f"  searched: {len(self.searched)} instances{stored}: {counts}; "
                     f"refinement {self.refined} runs; {self.seconds:.1f} s")
        examples = self.reason_examples()
        for why, k in self.reasons().items():
            ex = examples[why]
            lines.append(f"  {k} x {why}")
            lines.append(f"      e.g. {_params_text(ex.params)}: {_short(ex.extreme.note)}")
        if self.left_out:
            lines.append(f"  {self.left_out} decided instance(s) left out saved times no "
                         f"float64 run decides (the loss at its floor, a margin below its own "
                         f"rounding, a relation holding within the finest float64 run's "
                         f"error), as `gfverify conjecture` does")
        if w is None:
            lines.append("  verdict: UNDECIDED: no instance decided the constant")
            return "\n".join(lines)
        e = w.searched.extreme
        side = "smallest C that holds" if e.direction > 0 else "largest C that holds"
        lines.append(f"  sharpest observed: {e.value:.6g} +- {e.error:.2g} ({side}; at "
                     f"t = {e.t:.4g}, part {t.parts[e.part].text()})")
        if self.outside_range:
            lines.append(f"  {self.outside_range}")
        if e.note.startswith(LEFT_OUT):
            lines.append(f"  on the witness: {_short(e.note.split('; by ')[0], 400)}")
        if t.proved is not None:
            slack = (f"{self.slack:.3g}" if self.slack is not None else
                     f"at least {self.slack_at_least:.3g} (the value is known to 2% of the "
                     f"proved value only)"
                     if self.slack_at_least is not None else "n/a")
            proved = (f"{self.proved:.6g}" if self.proved is not None else t.proved_text())
            extra = ("" if t.proved.is_number else f" ({t.proved_text()} on the witness)")
            lines.append(f"  proved: {proved}{extra}; slack factor {slack}")
        if self.passed_over:
            lines.append(f"  ({self.passed_over} sharper instance(s) passed over: their 2% "
                         f"check is within numerical error)")
        lines.append(f"  witness: {_params_text(w.searched.params)} "
                     f"[{w.searched.problem_hash}]")
        lines.append(f"  check at C = {w.past:.6g} (2% past): {w.past_outcome.value}; "
                     f"at C = {w.back:.6g} (2% back): {w.back_outcome.value} -> witness "
                     f"{'decided' if w.decided else 'NOT decided (within numerical error)'}")
        among = (f" among {self.decided} decided instance{'s' if self.decided != 1 else ''}"
                 if self.verdict == "SHARPEST FOUND" else "")
        lines.append(f"  verdict: {self.verdict}{among}"
                     + (f"; the witness is {w.relaxed}" if w.relaxed else ""))
        lines.append(f"  replay: {self.replay()}" if not self.from_runs else
                     "  (the instances are given runs: no replay command)")
        if self.plot_path:
            lines.append(f"  plot: {self.plot_path}")
        return "\n".join(lines)

    def plot(self, path) -> Path:
        """The critical value of each instance and the best so far against instances
        searched, the proved value dashed; a PNG at ``path`` (returned)."""
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(6.0, 3.6))
        hist = [(k, v) for k, v in self.history() if v is not None]
        if hist:
            ks, vs = zip(*hist, strict=True)
            ax.step(ks, vs, where="post", color="tab:blue", label="sharpest so far")
        if self.proved is not None:
            ax.axhline(self.proved, color="tab:red", ls="--", lw=1, label="proved")
        for k, s in enumerate(self.searched, 1):
            if s.extreme.status == DECIDED:
                ax.plot(k, s.extreme.value, ".", color="0.6", ms=4)
        ax.set_xlabel("instances searched")
        ax.set_ylabel(f"critical {self.tightenable.free.name}")
        ax.set_title(f"tighten {self.tightenable.text}"[:80], fontsize=9)
        legend(ax, fontsize=8)
        fig.tight_layout()
        self.plot_path = save_png(fig, path)
        return self.plot_path


def _short(note: str, width: int = 160) -> str:
    return note if len(note) <= width else note[:width - 3].rstrip() + "..."


def _params_text(params: dict) -> str:
    return " ".join(f"{k}={value_text(v)}" for k, v in params.items())
