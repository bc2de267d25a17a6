"""How much room a bound leaves on recorded runs (``gfverify tighten TARGET --run FILE``).

No search: on each run the free constant's critical value is measured over the run's
saved times exactly as a tightening measures it on one family instance
(`verify.tighten.extreme.instance_extreme`: the extreme of the critical value with its
error, and the time that attains it), and, for a catalogue claim, set against the proved
value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class RunsTightening:
    """The sharpest constant on each recorded run (`tighten_on_runs`)."""

    text: str
    free: str
    proved: float | None
    rows: list[tuple[str, object]] = field(default_factory=list)  # (path, Extreme)
    counted: dict = field(default_factory=dict)  # path -> what its error counts

    @property
    def exit_code(self) -> int:
        """1: the proved value fails on a run beyond the error; 3: a run undecided; 0."""
        from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED

        for _, ext in self.rows:
            if ext.status == "decided" and self.proved is not None and (
                    (ext.direction > 0 and self.proved < ext.value - ext.error)
                    or (ext.direction < 0 and self.proved > ext.value + ext.error)):
                return EXIT_FOUND
        return EXIT_UNDECIDED if any(e.status == "undecided" for _, e in self.rows) \
            else EXIT_OK

    def report(self) -> str:
        proved = "" if self.proved is None else f"; proved value {self.proved:.6g}"
        lines = [f"tighten: {self.text} (free constant {self.free}){proved}",
                 f"on {len(self.rows)} recorded run(s); no search"]
        for path, ext in self.rows:
            if path in self.counted:
                lines.append(f"  {path}: error counted: {self.counted[path]}")
            if ext.status != "decided":
                lines.append(f"  {path}: {ext.status}: {ext.note}")
                continue
            side = ">=" if ext.direction > 0 else "<="
            text = (f"  {path}: holds for {self.free} {side} {ext.value:.6g} "
                    f"(error {ext.error:.2g}), attained at t = {ext.t:.4g}")
            if self.proved is not None and self.proved != 0 and math.isfinite(self.proved):
                text += f"; the proved value is {self.proved / ext.value:.3g} times it"
            lines.append(text)
        if any(e.status == "undecided" for _, e in self.rows) and any(
                "half the step" in c for c in self.counted.values()):
            lines.append("  (a gradient-descent record carries its discretisation error; "
                         "--rounding-only judges the recorded numbers as they are)")
        return "\n".join(lines)


def tighten_on_runs(target: str, paths, *, free: str | None = None, param: str | None = None,
                    part: int | None = None, mode: str = "for_all_t",
                    at_t: float | None = None, claim_params=None,
                    reference: bool = True) -> RunsTightening:
    """The critical value of the free constant of ``target`` (a statement with ``free``,
    or a claim id: its parameter ``param`` or the multiplier of its bound side) on each
    recorded run in ``paths``."""
    from numerics.recorded import recorded
    from theory import registry
    from verify.conjecture.instance import first_positive
    from verify.recorded.cli import error_counted
    from verify.tighten.extreme import instance_extreme, reference_value
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
    out = RunsTightening(tight.text, tight.free.name, tight.proved_value())
    for path, _ in runs:
        tr = recorded(path, reference=reference)
        out.counted[path] = error_counted(tr)
        claim = tight.claim_for(mode, at_t, float(tr.t[-1]), None, first_positive(tr))
        proved = (reference_value(claim, tr, tight.proved) if tight.proved is not None
                  else 1.0)
        out.rows.append((path, instance_extreme(tight, claim, tr, proved)))
    return out
