"""How much room a bound leaves on recorded runs (``gfverify tighten TARGET --run FILE``).

No search: each run is tightened on its own as one given instance
(`verify.tighten.search.tighten_given_runs`): the free constant's critical value over the
run's saved times with its error and the time that attains it, exactly as a family
instance is measured (saved times no float64 run decides left out and named), then the
2% check on the run (the statement with C moved 2% past fails at that time, 2% back holds
over the window) and, for a catalogue claim, the claim checked at its proved value.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RunsTightening:
    """The sharpest constant on each recorded run (`tighten_on_runs`)."""

    text: str
    free: str
    proved: float | None
    rows: list[tuple[str, object]] = field(default_factory=list)  # (path, TightenResult)
    counted: dict = field(default_factory=dict)  # path -> what its error counts

    @property
    def exit_code(self) -> int:
        """1: the proved value VIOLATED on a run; 3: a run undecided; 0."""
        from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED

        verdicts = [r.verdict for _, r in self.rows]
        if "PROVED VALUE VIOLATED" in verdicts:
            return EXIT_FOUND
        return EXIT_UNDECIDED if "UNDECIDED" in verdicts else EXIT_OK

    def report(self) -> str:
        proved = "" if self.proved is None else f"; proved value {self.proved:.6g}"
        lines = [f"tighten: {self.text} (free constant {self.free}){proved}",
                 f"on {len(self.rows)} recorded run(s); no search"]
        for path, result in self.rows:
            if path in self.counted:
                lines.append(f"  {path}: error counted: {self.counted[path]}")
            ext = result.searched[0].extreme
            if ext.status != "decided":
                lines.append(f"  {path}: {ext.status}: {ext.note}")
                continue
            side = ">=" if ext.direction > 0 else "<="
            text = (f"  {path}: holds for {self.free} {side} {ext.value:.6g} "
                    f"(error {ext.error:.2g}), attained at t = {ext.t:.4g}")
            if result.slack is not None:
                text += slack_words(result.proved, result.slack)
            lines.append(text)
            w = result.witness
            lines.append(f"    check at {self.free} = {w.past:.6g} (2% past): "
                         f"{w.past_outcome.value}; at {w.back:.6g} (2% back): "
                         f"{w.back_outcome.value} -> "
                         f"{'decided' if w.decided else 'NOT decided (within numerical error)'}"
                         + (f"; at the proved value: {w.proved_outcome.value}"
                            if w.proved_outcome is not None else ""))
            if ext.note:
                lines.append(f"    {ext.note.split('; by ')[0]}")
        if any(r.verdict == "UNDECIDED" for _, r in self.rows) and any(
                "half the step" in c for c in self.counted.values()):
            lines.append("  (a gradient-descent record carries its discretisation error; "
                         "--rounding-only judges the recorded numbers as they are)")
        return "\n".join(lines)


def slack_words(proved: float, slack: float) -> str:
    """The room between a sharpest constant and the proved one, in words that hold on both
    sides (a constant bounded below, C >= c*, or above, C <= c*): ``slack`` >= 1 when the
    proved value keeps the statement true (`verify.tighten.result.TightenResult.slack`)."""
    if slack >= 1:
        return f"; the proved value {proved:.6g} leaves a factor {slack:.3g} of room"
    return (f"; the proved value {proved:.6g} is past it by a factor {1 / slack:.3g} (it "
            "fails on this run)")


def tighten_on_runs(target: str, paths, *, free: str | None = None, param: str | None = None,
                    part: int | None = None, mode: str = "for_all_t",
                    at_t: float | None = None, claim_params=None,
                    reference: bool = True) -> RunsTightening:
    """The critical value of the free constant of ``target`` (a statement with ``free``,
    or a claim id: its parameter ``param`` or the multiplier of its bound side) on each
    recorded run in ``paths``, each with its 2% check."""
    from numerics.recorded import recorded
    from theory import registry
    from verify.recorded.cli import error_counted
    from verify.tighten.search import tighten_given_runs
    from verify.tighten.statement import from_claim, from_text

    try:
        registry.get(target.strip())
        is_claim = True
    except Exception:  # noqa: BLE001 - any lookup failure: a statement
        is_claim = False
    if is_claim:
        tight = from_claim(target.strip(), param=param, part=part, parameters=claim_params)
    else:
        tight = from_text(target, free or "C", part)
    runs = [(str(p), recorded(p, reference=False)) for p in paths]  # all files checked first
    proved = tight.proved_value()
    out = RunsTightening(tight.text, tight.free.name, proved)
    for path, _ in runs:
        tr = recorded(path, reference=reference)
        out.counted[path] = error_counted(tr)
        mode_here = "for_all_t" if tight.claim is not None else mode
        out.rows.append((path, tighten_given_runs(tight, {path: tr}, mode=mode_here,
                                                  at_t=at_t, label=path)))
    return out
