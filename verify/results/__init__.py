"""What a verification run leaves: the verdict table (`table`), its findings (`finding`,
`findings`), the sizes its verdicts were obtained at (`sizes`), figures (`figures`,
`claim_figures`) and the mutant roster that scores it (`mutants`)."""
