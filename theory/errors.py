"""The error a malformed pack raises, below every module that reports one (`theory.packs`
loads packs, `theory.symbols` refuses a pack's clashing term, `theory.registry` a clashing
claim id)."""

from __future__ import annotations


class PackError(RuntimeError):
    """An installed pack is malformed (the message names the pack and what is wrong)."""
