"""What an interrupted report keeps, and how the next run picks it up.

`gfverify report --out DIR` writes its finished parts to ``DIR/.gfverify-progress/`` as
they finish: the verification suite's result (``suite.json``) and every finished section
(``sections/NAME.pickle``: the `verify.report.reproduction.Reproduction` it returned; its
figures are already in DIR). Each file is written under a temporary name and renamed, so
a run stopped at any moment leaves whole files or none. Stopped (Ctrl-C, SIGTERM), the
report also writes ``DIR/verdicts.json`` with what it has (marked ``"partial": true``).

The next run with the same DIR resumes: it reuses the saved parts when they were made by
the same code for the same request (`Request`: profile, seed, instances, sections, packs,
and a fingerprint of the source files of gfverify and of the packs' modules), runs only
what is missing, and removes the directory once the report is written. Parts made for
another request, or by other code, are discarded with a line saying so. ``--fresh``
discards them in any case.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

DIRECTORY = ".gfverify-progress"
_PACKAGES = ("numerics", "theory", "verify", "papers")


def code_fingerprint(extra_modules=()) -> str:
    """SHA-256 (16 hex) of the source files of gfverify's packages and of the modules
    ``extra_modules`` (the installed packs' sections): saved parts made by other code
    are never reused."""
    import importlib.util

    h = hashlib.sha256()
    roots = [Path(__file__).resolve().parents[2] / name for name in _PACKAGES]
    for name in extra_modules:
        spec = importlib.util.find_spec(name.split(".")[0])
        if spec is not None and spec.origin:
            roots.append(Path(spec.origin).parent)
    for root in sorted(set(roots)):
        for path in sorted(root.rglob("*.py")) if root.is_dir() else ():
            h.update(str(path.relative_to(root.parent)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Request:
    """What a report was asked for; saved parts are reused only for the same request.

    Attributes
    ----------
    profile
        The profile (``quick`` or ``full``).
    seed
        The seed of the random instances.
    instances
        ``--instances`` (None: the profile's).
    sections
        The report sections' modules, in order.
    packs
        The packs' selection the suite ran (`theory.packs.selection`).
    code
        `code_fingerprint` of the code that made the parts.
    certify
        ``--certify``: instances per check the suite certified (0: none).
    """

    profile: str
    seed: int
    instances: int | None
    sections: tuple[str, ...]
    packs: str
    code: str
    certify: int = 0


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".partial")
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


class SavedProgress:
    """The finished parts of a report in ``out/.gfverify-progress`` (the module docstring)."""

    def __init__(self, out: Path, request: Request, fresh: bool = False, stream=None) -> None:
        self.root = Path(out) / DIRECTORY
        self.request = request
        self.stream = stream if stream is not None else sys.stderr
        self.suite: dict | None = None
        self.sections: dict = {}
        self.resumed = False
        if self.root.exists():
            self._load(fresh)
        (self.root / "sections").mkdir(parents=True, exist_ok=True)
        _atomic(self.root / "request.json", json.dumps(asdict(request)).encode())

    def _load(self, fresh: bool) -> None:
        try:
            saved = json.loads((self.root / "request.json").read_text())
        except (OSError, ValueError):
            saved = None
        if fresh or saved != json.loads(json.dumps(asdict(self.request))):
            why = ("--fresh" if fresh else "they were made for another request or by other "
                   "code" if saved is not None else "they are unreadable")
            print(f"report: discarding the saved parts of an earlier run in {self.root} "
                  f"({why})", file=self.stream, flush=True)
            shutil.rmtree(self.root, ignore_errors=True)
            return
        try:
            self.suite = json.loads((self.root / "suite.json").read_text())
        except (OSError, ValueError):
            self.suite = None
        for path in sorted((self.root / "sections").glob("*.pickle")):
            try:
                self.sections[path.stem] = pickle.loads(path.read_bytes())
            except Exception:  # a damaged part is recomputed, never trusted
                continue
        self.resumed = self.suite is not None or bool(self.sections)

    def describe(self) -> str:
        """One line: what was found to reuse."""
        parts = (["the verification suite's verdicts"] if self.suite is not None else [])
        if self.sections:
            parts.append(f"{len(self.sections)} finished section(s) "
                         f"({', '.join(s.rsplit('.', 1)[-1] for s in self.sections)})")
        return " and ".join(parts) if parts else "nothing"

    def save_suite(self, suite: dict) -> None:
        """Keep the suite's result (JSON)."""
        self.suite = suite
        _atomic(self.root / "suite.json", json.dumps(suite).encode())

    def save_section(self, name: str, reproduction) -> None:
        """Keep a finished section (its Reproduction, pickled)."""
        self.sections[name] = reproduction
        _atomic(self.root / "sections" / f"{name}.pickle", pickle.dumps(reproduction))

    def finish(self) -> None:
        """The report is written: the saved parts are no longer needed."""
        shutil.rmtree(self.root, ignore_errors=True)
