"""Tests of the BF25 pack (run by pytest verify)."""
