"""One finding: what a run of the verification suite found that the papers do not say, as
data (`Finding`), and the findings of a run shown once per id (`distinct`, `markdown`).

A test that expects a finding measures it, asserts that it reproduces (so a finding that
no longer reproduces fails the test loudly), and records it with
``verdicts.finding(...)`` (`verify.results.table.VerdictLog.finding`). The text is built by
the test from the numbers the same run measured; nothing here is typed in. A crash in such
a test is a failed test, never a finding.

``data`` says what the finding was decided on: ``"simulated"`` (our trajectories),
``"published"`` (a CSV the paper's authors published, read as it is) or ``"recorded"``
(a user's recorded run).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from verify.errors import InputError

DATA_KINDS = ("simulated", "published", "recorded")
# how a verdict table or a finding names the data it was decided on, when not our runs
DATA_LABELS = {"published": "published data", "recorded": "recorded run"}


def data_label(kind: str | None) -> str:
    """``"published data"`` or ``"recorded run"`` for those data kinds, "" for our own
    simulations."""
    return DATA_LABELS.get(kind or "simulated", "")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]*$")


class FindingError(InputError):
    """A malformed finding or findings file; the message names what is wrong."""


@dataclass(frozen=True)
class Finding:
    """One finding: ``title`` (a line), ``text`` (built from ``evidence``), the claims it
    bears on, the numbers it rests on and what kind of data decided it.

    A test records it with ``verdicts.finding(Finding(...), verdict=...)``
    (`verify.results.table.VerdictLog.finding`). A malformed one (an id with other characters, an
    unknown ``data``, an empty title or text) raises `FindingError`.

    Attributes
    ----------
    id
        A short stable name (``"CF-2"``): letters, digits and ``-_.:+``. Findings recorded
        under one id (a parametrised test's cases) are shown as one (`distinct`).
    title
        One line saying what was found; the terminal summary prints it (`line`).
    text
        The finding in full (Markdown), built by the test from the numbers the same run
        measured (``evidence``), never typed in.
    claims
        The ids of the catalogue claims it bears on (``("S000-A1", "S000-L1")``).
    evidence
        The numbers it rests on, name -> value (JSON-serialisable), written to the
        run's ``verdicts.json``.
    data
        What decided it: ``"simulated"`` (our trajectories, the default),
        ``"published"`` (a CSV the paper's authors published, read as it is) or
        ``"recorded"`` (a training run someone else made, `numerics.recorded`).
    test
        Free text naming the test that measured it (e.g. its pytest node id); "" (the
        default) for none. Carried into ``verdicts.json``; nothing fills it in.
    """

    id: str
    title: str
    text: str
    claims: tuple[str, ...] = ()
    evidence: dict = field(default_factory=dict)
    data: str = "simulated"
    test: str = ""

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise FindingError(f"finding id {self.id!r}: letters, digits and -_.:+ only")
        if self.data not in DATA_KINDS:
            raise FindingError(f"finding {self.id}: data {self.data!r} is not one of "
                               f"{DATA_KINDS}")
        if not self.title or not self.text:
            raise FindingError(f"finding {self.id}: a title and a text are needed")

    def to_dict(self) -> dict:
        """The finding as plain JSON data (``claims`` a list), as ``verdicts.json`` holds
        it."""
        d = asdict(self)
        d["claims"] = list(self.claims)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Finding:
        """The finding `to_dict` wrote (``id``, ``title`` and ``text`` are needed, the other
        keys default); a `FindingError` when one is missing or the finding is malformed."""
        try:
            return cls(id=d["id"], title=d["title"], text=d["text"],
                       claims=tuple(d.get("claims", ())), evidence=dict(d.get("evidence", {})),
                       data=d.get("data", "simulated"), test=d.get("test", ""))
        except (KeyError, TypeError) as exc:
            raise FindingError(f"a finding without {exc}") from None

    def papers(self) -> tuple[str, ...]:
        """The papers (packs) of the claims it bears on: ``S002-F2`` -> ``S002``."""
        return tuple(dict.fromkeys(c.split("-")[0] for c in self.claims))

    def names_its_paper(self) -> bool:
        """Whether the title says which paper it is about (one of its claims' ids or
        papers), so that a headline read alone ("Lemma 8 fails") is never ambiguous; a
        finding that bears on no claim names none."""
        return not self.claims or any(p in self.title for p in self.claims + self.papers())

    def line(self) -> str:
        """One line for the terminal: id, data kind, title."""
        kind = {"published": " [published data]", "recorded": " [recorded run]"}.get(
            self.data, "")
        return f"{self.id}{kind}: {self.title}"

    def markdown(self) -> str:
        """A Markdown list item: bold title, text, claims and id, as the findings page and
        the report show it."""
        kind = {"published": " (decided on published data)",
                "recorded": " (decided on a recorded run)"}.get(self.data, "")
        claims = f" Claims: {', '.join(self.claims)}." if self.claims else ""
        return f"- **{self.title}**{kind} {self.text}{claims} (`{self.id}`)"


def distinct(findings: list[Finding]) -> list[Finding]:
    """One entry per id (a parametrised test may record the same finding once per case:
    the texts are joined, in the order of the cases' test ids and texts, not the order the
    workers finished them in), sorted by id."""
    by_id: dict[str, Finding] = {}
    for f in sorted(findings, key=lambda f: (f.id, str(f.test or ""), f.text)):
        if f.id in by_id:
            old = by_id[f.id]
            if f.text not in old.text:
                by_id[f.id] = Finding(old.id, old.title, f"{old.text} {f.text}",
                                      tuple(dict.fromkeys(old.claims + f.claims)),
                                      {**old.evidence, **f.evidence}, old.data, old.test)
        else:
            by_id[f.id] = f
    return [by_id[k] for k in sorted(by_id)]


def markdown(findings: list[Finding], profile: str = "") -> str:
    if not findings:
        return "(this run recorded no findings)\n"
    head = (f"Measured by `pytest verify --verify-profile {profile}`; every number below "
            f"comes from that run.\n\n" if profile else "")
    return head + "\n".join(f.markdown() for f in distinct(findings)) + "\n"
