"""Where and how the runs behind verdicts happen.

`runs` keeps finished runs in a store and resumes from it, `executors` runs tasks in this
process or on a Dask cluster (``--dask-local``, ``--scheduler``), `pool` spreads a suite's
instances over worker processes, `profiles` says which instances each profile (quick,
full, paper) checks, and `progress` reports what is running.
"""
