"""What a conjecture search returns: the verdict over the instances tried, the shrunk
counterexample and its replay command, its text, JSON and figure.
"""


from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sympy as sp

from numerics import Trajectory
from theory.claim import Claim, Kind
from verify.conjecture.instance import (
    Instance,
    MethodSpec,
    params_key,
    relation_named,
    value_text,
)
from verify.conjecture.statement import DEFAULT_POINTS, ConjectureError
from verify.engine.check import evaluate
from verify.engine.verdict import Outcome
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED
from verify.results.figures import legend, pyplot, save_png


# -- the result ----------------------------------------------------------------------------------
@dataclass
class SearchSettings:
    """How a search over a family was run (shared by conjectures and tightenings): the
    family, when the statement is compared, the simulation method, the budget and seed.

    Attributes
    ----------
    family
        The family's name (``"orthogonal"``).
    mode
        When the statement is compared: ``"for_all_t"`` (every saved time of the horizon),
        ``"at_t"`` (at ``at_t``) or ``"as_t_to_inf"`` (the end of the horizon).
    at_t
        The time of the ``"at_t"`` mode (a number, or a `verify.conjecture.when.AtTime`
        read on each instance); None otherwise.
    method
        How instances were simulated (`verify.conjecture.MethodSpec`: ``"flow"`` or
        ``"gd"`` with its step ``lr``, the flow's coordinates, the escalation budget).
    budget
        The number of instances hypothesis could draw.
    seed
        The search's seed (same seed, same instances).
    model
        The family's fixed model options (``{"activation": "leaky:0.1"}``); empty for its
        own model.
    selector
        The command-line arguments that select the family in a replay command
        (`verify.instances.families.Family.selector`, such as ``("--data", "my.npz")``); empty:
        ``--family NAME``.
    """

    family: str
    mode: str
    at_t: object  # float, verify.conjecture.when.AtTime, or None
    method: MethodSpec
    budget: int
    seed: int
    model: dict = field(default_factory=dict)
    selector: tuple = ()

    @property
    def family_text(self) -> str:
        """The family, with its model options where some are fixed."""
        extra = ", ".join(f"{k}={v}" for k, v in self.model.items())
        return f"{self.family} ({extra})" if extra else self.family


@dataclass(kw_only=True)
class ConjectureResult(SearchSettings):
    """What a search found.

    ``decided``: instances whose verdict is HOLDS or VIOLATED. The verdict is
    COUNTEREXAMPLE when one is VIOLATED; otherwise NO COUNTEREXAMPLE only when at least
    ``min_decided`` of the instances tried were decided (all, by default), and UNDECIDED
    when fewer were (INCONCLUSIVE: the margin within numerical error, or a run that did
    not reach its horizon; INAPPLICABLE: an assumption of the statement not met).
    ``exit_code``: `verify.exit_codes` (0, 1, or 3 for UNDECIDED).

    Attributes
    ----------
    family
        The family's name (``"orthogonal"``).
    mode
        When the statement is compared: ``"for_all_t"`` (every saved time of the horizon),
        ``"at_t"`` (at ``at_t``) or ``"as_t_to_inf"`` (the end of the horizon).
    at_t
        The time of the ``"at_t"`` mode (a number, or a `verify.conjecture.when.AtTime`
        read on each instance); None otherwise.
    method
        How instances were simulated (`verify.conjecture.MethodSpec`: ``"flow"`` or
        ``"gd"`` with its step ``lr``, the flow's coordinates, the escalation budget).
    budget
        The number of instances hypothesis could draw.
    seed
        The search's seed (same seed, same instances).
    model
        The family's fixed model options (``{"activation": "leaky:0.1"}``); empty for its
        own model.
    selector
        The command-line arguments that select the family in a replay command
        (``("--data", "my.npz")`` for a dataset); empty: ``--family NAME``.
    statement
        The statement as given (a callable shows as ``"<callable NAME>"``).
    tried
        Every instance checked (`verify.conjecture.Instance`: parameters, verdict, both
        sides where it is decided), in search order; the shrink's trials are not included.
    counterexample
        The shrunk counterexample (an Instance whose verdict is VIOLATED), or None.
    first_found
        The counterexample as the search first found it, before shrinking; None if none.
    shrink_trials
        Trial runs the shrink used (at most the ``shrink_budget``).
    replay_command
        A ``gfverify conjecture`` command that checks the shown instance again, every
        parameter fixed ("" when no instance was built).
    plot_path
        The PNG written of both sides over time, or None.
    fixed
        The family parameters fixed by the caller (``params``), name -> value.
    unbuildable
        Draws the family could not build, as (parameters, reason) pairs.
    min_decided
        The share of the instances tried that must be decided for NO COUNTEREXAMPLE
        (default 1.0: all).
    loss_floor
        With ``for_all_t``: only times where L(t)/L(0) >= this level were compared; None
        (default) for every saved time.
    plot_skipped
        Why no plot was written ("" when one was, or none was asked for).
    excluded
        Draws excluded by ``assume`` before they were simulated, as (parameters, reason)
        pairs; never counterexamples.
    assume
        The conditions on the instance (``--assume`` texts), in order.
    shown
        The instance the replay command and the plot show: the counterexample, else the
        worst instance, else the first tried; None if nothing was tried.
    """

    statement: str
    tried: list[Instance]
    counterexample: Instance | None = None
    first_found: Instance | None = None
    shrink_trials: int = 0
    replay_command: str = ""
    plot_path: Path | None = None
    fixed: dict = field(default_factory=dict)
    unbuildable: list = field(default_factory=list)
    min_decided: float = 1.0
    loss_floor: float | None = None
    plot_skipped: str = ""
    excluded: list = field(default_factory=list)  # (params, reason) failing --assume
    assume: tuple = ()  # the --assume texts
    shown: Instance | None = None
    _trajectory: Trajectory | None = None
    _claim: Claim | None = None
    _runs: dict = field(default_factory=dict)  # the instances' runs, keyed by parameters

    @property
    def found(self) -> bool:
        """Whether a counterexample was found."""
        return self.counterexample is not None

    @property
    def decided(self) -> int:
        """How many instances tried came out HOLDS or VIOLATED."""
        return sum(i.outcome in (Outcome.HOLDS, Outcome.VIOLATED) for i in self.tried)

    @property
    def undecided(self) -> bool:
        """No counterexample, and fewer than ``min_decided`` of the instances decided."""
        if self.found:
            return False
        return not self.tried or self.decided < self.min_decided * len(self.tried)

    @property
    def exit_code(self) -> int:
        """The command's exit code (0 no counterexample, 1 counterexample, 3 undecided)."""
        if self.found:
            return EXIT_FOUND
        return EXIT_UNDECIDED if self.undecided else EXIT_OK

    @property
    def verdict(self) -> str:
        """``"COUNTEREXAMPLE"``, ``"NO COUNTEREXAMPLE"`` or ``"UNDECIDED"``."""
        if self.found:
            return "COUNTEREXAMPLE"
        return "UNDECIDED" if self.undecided else "NO COUNTEREXAMPLE"

    def undecided_reasons(self) -> dict[str, int]:
        """How often each reason was given for an instance that was not decided."""
        out: dict[str, int] = {}
        for inst in self.tried:
            if inst.outcome in (Outcome.INCONCLUSIVE, Outcome.INAPPLICABLE):
                why = inst.verdict.reason or "the margin is within the numerical error"
                key = f"{inst.outcome.value}: {why.split(' with ')[0]}"
                out[key] = out.get(key, 0) + 1
        return out

    def escalations(self) -> dict[str, int]:
        """How many instances were re-run more accurately, by the run that gave their
        verdict (`verify.engine.escalation`)."""
        out: dict[str, int] = {}
        for inst in self.tried:
            if inst.verdict.accuracy:
                key = inst.verdict.accuracy.split(" (re-run")[0]
                out[key] = out.get(key, 0) + 1
        return out

    def accuracy_lines(self) -> list[str]:
        """Which instances needed escalation, and on which windows the decided ones were
        decided (every saved time, or all but times no float64 run resolves)."""
        lines = []
        esc = self.escalations()
        if esc:
            done = ", ".join(f"{n} by {how}" for how, n in esc.items())
            lines.append(f"escalated: {sum(esc.values())} of {len(self.tried)} instances "
                         f"re-run more accurately, with their verdicts given by the finest run "
                         f"tried ({done}); the others were decided by the first run")
        decided = [i for i in self.tried if i.outcome in (Outcome.HOLDS, Outcome.VIOLATED)]
        partial = [i for i in decided if i.verdict.unresolved]
        if partial:
            lines.append(f"windows: {len(decided) - len(partial)} decided instances at every "
                         f"saved time of their window, {len(partial)} on their window but:")
            shown = partial[:3]
            lines += [f"  {i.describe()}: {i.verdict.unresolved}" for i in shown]
            if len(partial) > len(shown):
                lines.append(f"  ... and {len(partial) - len(shown)} more")
        return lines

    @property
    def counts(self) -> dict[str, int]:
        """How many instances tried came out each way, keyed by the outcome's name."""
        out = {o.value: 0 for o in Outcome}
        for inst in self.tried:
            out[inst.outcome.value] += 1
        return out

    @property
    def worst(self) -> Instance | None:
        """The instance with the smallest relative margin among those decided or undecided."""
        scored = [i for i in self.tried if math.isfinite(i.relative_margin)]
        return min(scored, key=lambda i: i.relative_margin) if scored else None

    def trajectory(self) -> Trajectory | None:
        """The run of the shown instance (``shown``), or None."""
        return self._trajectory

    def claim(self) -> Claim | None:
        """The statement as the claim checked on the shown instance, or None."""
        return self._claim

    def run_of(self, inst: Instance) -> Trajectory | None:
        """The run an instance tried was checked on (None if it was not run)."""
        return self._runs.get(params_key(inst.params))

    def report(self) -> str:
        """The result as ``gfverify conjecture`` prints it (several lines)."""
        mode = {"for_all_t": "for all t in the horizon",
                "as_t_to_inf": "at the end of the horizon (t -> oo)",
                "at_t": f"at t = {getattr(self.at_t, 'text', self.at_t)}",
                "window": f"over t in [{getattr(self.at_t, 'text', '')}]"}[self.mode]
        lines = [f"conjecture: {self.statement}   ({mode})",
                 f"family: {self.family_text}   method: {self.method.name}   budget: {self.budget}"
                 f"   seed: {self.seed}",
                 f"verdict: {self.verdict}"]
        counts = ", ".join(f"{v} {k}" for k, v in self.counts.items() if v)
        lines.append(f"instances tried: {len(self.tried)} ({counts or 'none'}), decided "
                     f"(HOLDS or VIOLATED): {self.decided}")
        if self.undecided:
            need = math.ceil(self.min_decided * len(self.tried)) if self.tried else 1
            lines.append(f"undecided: {self.decided} of {len(self.tried)} decided, "
                         f"{need} needed (min_decided = {self.min_decided:g}); nothing is "
                         f"claimed about this statement")
        shown = self.counterexample if self.found else self.worst
        if self.found:
            c = self.counterexample
            lines.append(f"counterexample (shrunk in {self.shrink_trials} trial runs from "
                         f"{self.first_found.describe()}):")
            lines += _instance_lines(c)
            lines.append(f"replay: {self.replay_command}")
        elif shown is not None:
            lines.append(f"worst margin: {shown.margin:.4g} (relative "
                         f"{shown.relative_margin:.3g}, numerical error "
                         f"{shown.error:.2g}) on an instance where it is {shown.outcome.value}:")
            lines += _instance_lines(shown)
            lines.append(f"replay: {self.replay_command}")
        lines += self.accuracy_lines()
        reasons = self.undecided_reasons()
        if reasons:
            lines.append("not decided:")
            lines += [f"  {n} x {why}" for why, n in sorted(reasons.items(),
                                                            key=lambda kv: -kv[1])]
        if self.excluded:
            params, why = self.excluded[0]
            lines.append(f"excluded by --assume ({'; '.join(self.assume)}): "
                         f"{len(self.excluded)} draws, not simulated (e.g. {params}: {why})")
        if self.unbuildable:
            params, why = self.unbuildable[0]
            lines.append(f"draws the family could not build: {len(self.unbuildable)} (e.g. "
                         f"{params}: {why})")
        if self.plot_path is not None:
            lines.append(f"plot: {self.plot_path}")
        elif self.plot_skipped:
            lines.append(f"plot: not written ({self.plot_skipped})")
        return "\n".join(lines)

    def plot(self, path) -> Path:
        """Both sides of the inequality over time on the shown instance, as a PNG."""
        path = Path(path)
        _plot(self, path)
        self.plot_path = path
        return path


def _instance_lines(inst: Instance) -> list[str]:
    v = inst.verdict
    lines = [f"  {inst.describe()}   horizon {inst.horizon:.4g}"]
    if inst.rows is not None:
        lines.append(f"  samples: rows {', '.join(map(str, inst.rows))} of the file "
                     "(0-based, data rows in the file's order)")
    if inst.lhs is not None and inst.rhs is not None:
        where = "event time vs bound" if v.where.part == "t_conv" else (v.where.part or "")
        t = f"t = {inst.t:.6g}" if inst.t is not None and math.isfinite(inst.t) else "t = -"
        lines.append(f"  {t}: lhs = {inst.lhs:.6g}, rhs = {inst.rhs:.6g}   ({where})")
    lines.append(f"  margin {inst.margin:.4g}, numerical error {inst.error:.2g}: "
                 f"{v.outcome.value}{': ' + v.reason if v.reason else ''}")
    if v.window is not None and v.outcome in (Outcome.HOLDS, Outcome.VIOLATED):
        lines.append(f"  window t in [{v.window[0]:.4g}, {v.window[1]:.4g}]"
                     + ("" if v.unresolved or v.outcome is Outcome.VIOLATED
                        else ", every saved time decided"))
        if v.unresolved:
            lines.append(f"  but {v.unresolved}")
    if v.accuracy:
        lines.append(f"  decided by {v.accuracy}")
    return lines


def _plot(result: ConjectureResult, path: Path) -> None:
    plt = pyplot()

    tr, claim = result._trajectory, result._claim
    inst = result.counterexample or result.shown
    if tr is None or claim is None or inst is None:
        raise ConjectureError("nothing to plot: no instance was checked")
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    if claim.kind is Kind.EVENT_TIME:
        rel = claim.event_relations()[0]
    else:
        rel = relation_named(claim, inst.verdict.where.part)
    lhs, lhs_err = evaluate(claim, tr, rel.lhs)
    rhs, rhs_err = evaluate(claim, tr, rel.rhs)
    positive = np.all(lhs[np.isfinite(lhs)] > 0) and np.all(rhs[np.isfinite(rhs)] > 0)
    for values, err, label, color in ((lhs, lhs_err, sp.sstr(rel.lhs), "C0"),
                                      (rhs, rhs_err, sp.sstr(rel.rhs), "C1")):
        ax.plot(tr.t, values, color=color, lw=1.5, label=label)
        finite = np.isfinite(err)
        ax.fill_between(tr.t[finite], (values - err)[finite], (values + err)[finite],
                        color=color, alpha=0.2, lw=0)
    if positive:
        ax.set_yscale("log")
    if claim.kind is Kind.EVENT_TIME:
        if inst.lhs is not None and math.isfinite(inst.lhs):
            ax.axvline(inst.lhs, color="k", ls="--", lw=1, label=f"first(...) = {inst.lhs:.4g}")
        if inst.rhs is not None:
            ax.axvline(inst.rhs, color="r", ls=":", lw=1.5, label=f"bound = {inst.rhs:.4g}")
    elif inst.t is not None and math.isfinite(inst.t):
        ax.axvline(inst.t, color="r" if result.found else "k", ls=":", lw=1.2,
                   label=f"{'violated' if result.found else 'worst margin'} at t = {inst.t:.4g}")
    ax.set_xlabel("t")
    title = "counterexample" if result.found else "worst instance"
    ax.set_title(f"{result.statement}\n{title}: {result.family} {inst.describe()}", fontsize=9)
    legend(ax, fontsize=8)
    fig.tight_layout()
    save_png(fig, path)


def replay_command(statement: str, family: str, params: Mapping, mode: str,
                   at_t: float | None, method: MethodSpec, horizon: float | None,
                   points: int, loss_floor: float | None = None,
                   model: Mapping | None = None, assume=(), selector=()) -> str:
    """A command that checks exactly this instance again (every parameter fixed, and the
    family's model options). ``selector``: the arguments that select the family
    (`verify.instances.families.Family.selector`), by default ``--family NAME``."""
    args = ["gfverify", "conjecture", statement, *(selector or ("--family", family))]
    for k, v in {**params, **(model or {})}.items():
        args += ["--param", f"{k}={value_text(v)}"]
    if horizon is not None:
        args += ["--t-max", repr(float(horizon))]
    for text in assume:
        args += ["--assume", text]
    args += {"for_all_t": ["--for-all-t"], "as_t_to_inf": ["--as-t-to-inf"],
             "at_t": ["--at-t", at_t.text if hasattr(at_t, "text") else repr(at_t)],
             "window": ["--window", getattr(at_t, "text", "")]}[mode]
    if points != DEFAULT_POINTS:
        args += ["--points", str(points)]
    if loss_floor is not None:
        args += ["--loss-floor", repr(float(loss_floor))]
    args += method.cli() + ["--budget", "1"]
    return " ".join(shlex.quote(a) for a in args)




def replay_call(func, family: str, params: Mapping, mode: str, at_t, method: MethodSpec,
                horizon: float | None, points: int, loss_floor: float | None = None,
                model: Mapping | None = None, assume=()) -> str:
    """For a statement given as a Python callable: a command that imports it and checks
    exactly this instance again (as `replay_command` does for a text), or why there is
    none (a lambda, a function defined inside another, or in ``__main__``: nothing can
    import it)."""
    module, name = getattr(func, "__module__", None), getattr(func, "__qualname__", "")
    if not module or module == "__main__" or not name.isidentifier():
        where = ("in __main__" if module == "__main__" else
                 "as a lambda or inside a function" if not name.isidentifier() else "nowhere")
        return (f"(none: the callable {getattr(func, '__name__', func)!r} is defined {where}; "
                "define it at the top of an importable module to get a replay command)")
    fixed = {**params, **(model or {})}
    if horizon is not None:
        fixed["horizon"] = float(horizon)
    kwargs = [f"params={fixed!r}", f"mode={mode!r}"]
    if mode in ("at_t", "window"):
        kwargs.append(f"at_t={getattr(at_t, 'text', at_t)!r}")
    if method.name != "flow":
        kwargs += [f"method={method.name!r}", f"lr={method.lr!r}"]
    if points != DEFAULT_POINTS:
        kwargs.append(f"points={points}")
    if loss_floor is not None:
        kwargs.append(f"loss_floor={float(loss_floor)!r}")
    if assume:
        kwargs.append(f"assume={tuple(assume)!r}")
    code = (f"from {module} import {name}; from verify.conjecture import conjecture; "
            f"print(conjecture({name}, {family!r}, {', '.join(kwargs)}, budget=1, "
            f"plot=None).report())")
    return "python -c " + shlex.quote(code)
