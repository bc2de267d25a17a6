"""A researcher's own runs and data, checked like gfverify's.

The parts: `claims` (the catalogue's claims on a recorded run: which apply, verdicts, where
each first fails), `statement` (a conjecture's statement on recorded runs, no search),
`data` (a dataset file as a family: ``--data FILE``, searched and shrunk by samples and
neurons) and `cli` (``gfverify check CLAIM... --run FILE``). The run itself is
`numerics.recorded` (the file format, the Trajectory) and `numerics.recorder` (the
PyTorch recorder).
"""

from verify.lazy import forwarding

__getattr__, __dir__ = forwarding(__name__, "verify.recorded.claims")
