"""Tests of the pack (run by pytest verify)."""
