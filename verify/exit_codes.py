"""The exit codes of `gfverify`: each means one thing, for every command.

- 0 ``OK``: the command did what was asked; for a check, no counterexample among the
  instances it decided (and it decided at least the share it was asked to);
- 1 ``FOUND``: a check found a counterexample (or a scaling exponent outside its interval);
- 2 ``USAGE``: bad input (one line on stderr names the input and what is allowed);
- 3 ``UNDECIDED``: a check decided too few instances to say either (every reason printed);
- 4 ``INTERNAL``: gfverify itself failed (a bug: one line on stderr, the traceback only
  with ``GFVERIFY_DEBUG=1``); also a report whose verification suite failed or crashed.
"""

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USAGE = 2
EXIT_UNDECIDED = 3
EXIT_INTERNAL = 4

MEANING = {EXIT_OK: "ok / no counterexample among decided instances",
           EXIT_FOUND: "counterexample found", EXIT_USAGE: "bad input",
           EXIT_UNDECIDED: "undecided (too few instances decided)",
           EXIT_INTERNAL: "internal error (or a failed verification suite in a report)"}
