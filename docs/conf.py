"""Sphinx configuration of gfverify's documentation site.

Build it with ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (the
``docs`` extra installs the pinned generator); CI builds it with warnings as errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from importlib import metadata  # noqa: E402

project = "gfverify"
author = "the gfverify authors"
copyright = "2026, the gfverify authors"
release = metadata.version("gfverify")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinxarg.ext",
]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 4
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "img/take_screenshots.py", "Thumbs.db", ".DS_Store",
                    "reference/api-md"]  # the API pages written out, for GitHub readers

autodoc_member_order = "bysource"
autodoc_typehints = "description"
# (in Sphinx 9 an option set to False in this dict switches it on: name only what is on)
autodoc_default_options = {"members": True}
autodoc_typehints_description_target = "documented"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True

# option names stay as typed: no "--results" turned into an en dash
smartquotes = False
default_role = "py:obj"

html_theme = "furo"
html_title = f"gfverify {release}"
nitpicky = False
