"""CEL23's sweep protocols (TOML files found by `gfverify sweep NAME`)."""
