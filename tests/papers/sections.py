"""What every report section's test asserts of its figures (shared by the repro tests)."""

from __future__ import annotations

from verify.report.doc import Figure

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_figures_shown(out, rep) -> None:
    """Each figure the section returns is a PNG written into ``out``, and the section's
    Figure blocks show exactly those."""
    for path in rep.figures:
        assert path.parent == out and path.read_bytes()[:8] == PNG_SIGNATURE, path
    shown = [b.path for b in rep.blocks if isinstance(b, Figure)]
    assert sorted(map(str, shown)) == sorted(map(str, rep.figures))
