"""Closed-form solutions and exact identities CF-1 .. CF-12 (THEORY.md section 6)."""

from __future__ import annotations

CLAIMS = ()
