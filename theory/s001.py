"""S001 claims (see ../shared/THEORY.md). Filled in by the theory issue."""

from __future__ import annotations

CLAIMS = ()
