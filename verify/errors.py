"""The one base class of bad input in gfverify's verification layer.

An `InputError` means the caller (a user at the command line, a pack author in code)
gave something gfverify cannot use; its message names the input and what is allowed.
`gfverify` turns it into exit code 2. Any other exception escaping a command is a bug
of ours (exit 4). The layers below have their own: `numerics.ProblemError`,
`numerics.MethodError`, `theory.UnknownName` and `theory.fields.RecordError` (a
malformed claim, family or term; see `input_errors`).
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input; the message names the input and what is allowed."""


class UnknownQuantity(KeyError):
    """A statement names a quantity the measures do not know (`verify.language.measures`)."""


class UsageError(InputError):
    """Bad input from the user at the command line; reported with exit code 2."""


def input_errors() -> tuple[type[BaseException], ...]:
    """Every exception class that means bad input, across the layers (imported on demand
    so that a command that fails early does not load numerics)."""
    from numerics import MethodError, ProblemError
    from theory import UnknownName
    from theory.fields import RecordError
    from theory.packs import PackError

    return (InputError, ProblemError, MethodError, UnknownName, UnknownQuantity, PackError,
            RecordError)
