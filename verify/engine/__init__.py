"""The checking engine: a claim and its evidence in, a `Verdict` out.

`check` is the one entry point (`verify.check`); it hands a claim to the check for its
evidence: one run (`check_run`), an ensemble of runs (`check_ensemble`), a grid of
instances (`check_grid`) or a sequence of instances along a limit (`check_limit`).
Around them: what a verdict is (`verdict`), how a run is read in a claim's convention
(`run_context`), how relations are decided with their errors (`relations`), the evidence
kinds a pack declares (`evidence`, `evidence_kinds`), re-running an undecided instance
more accurately (`accuracy`, `escalation`), and the fits of rates and limits
(`scaling`, `limit_point`). Nothing here prints, parses a command line or writes a page.
"""
