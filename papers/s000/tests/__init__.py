"""S000's verification tests, run by `pytest verify` with every pack's."""
