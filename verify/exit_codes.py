"""The exit codes of `gfverify`: each means one thing, for every command.

- 0 ``OK``: the command did what was asked; for a check, no counterexample among the
  instances it decided (and it decided at least the share it was asked to);
- 1 ``FOUND``: a check found a counterexample (or a scaling exponent outside its interval);
- 2 ``USAGE``: bad input (one line on stderr names the input and what is allowed);
- 3 ``UNDECIDED``: a check decided too few instances to say either (every reason printed);
- 4 ``INTERNAL``: gfverify itself failed (a bug: one line on stderr, the traceback only
  with ``GFVERIFY_DEBUG=1``);
- 5 ``SUITE_FAILED``: ``gfverify report`` wrote its report, but the verification suite it
  ran failed or crashed (said at the top of index.md and index.html);
- 130: interrupted (a sweep resumes when run again).
"""

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USAGE = 2
EXIT_UNDECIDED = 3
EXIT_INTERNAL = 4
EXIT_SUITE_FAILED = 5
EXIT_INTERRUPTED = 130

MEANING = {EXIT_OK: "ok / no counterexample among decided instances",
           EXIT_FOUND: "counterexample found", EXIT_USAGE: "bad input",
           EXIT_UNDECIDED: "undecided (too few instances decided)",
           EXIT_INTERNAL: "internal error", EXIT_SUITE_FAILED: "the report's suite failed",
           EXIT_INTERRUPTED: "interrupted"}
