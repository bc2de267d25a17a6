"""The bound-checking report: the suite's verdict table, the catalogue and every
installed pack's reproduction sections, as Markdown, HTML and figures.

The parts: `write` (``write_report``, the suite run, the catalogue), `doc` (the
document's blocks as Markdown and HTML, number formatting) and `reproduction` (the
`Reproduction` a pack's section returns). Their public names are importable from here.
"""

from verify.lazy import forwarding

__getattr__, __dir__ = forwarding(__name__, "verify.report.write", "verify.report.reproduction",
                                  "verify.report.doc")
