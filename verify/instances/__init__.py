"""Families of instances a conjecture, ``tighten`` or a sweep draws from, and the measured
cost of one run of each (`families`, `run_cost`)."""
