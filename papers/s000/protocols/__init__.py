"""S000's sweep protocols (``NAME.toml``): the published experiments, run by name with
``gfverify sweep NAME`` (see each file's header)."""
