"""MOR26's tests: Algorithm 1 on hand cases and against the exact flow, and the claims
decided on the profile's sizes (`papers.mor26.families.SIZES`)."""
