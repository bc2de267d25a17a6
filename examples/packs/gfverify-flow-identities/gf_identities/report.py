"""The pack's report section: the four claims on flows of the pack's family.

The quick profile runs 4 instances, the full and paper ones 16 (seeds 0, 1, ...), each to the
family's horizon with gfverify's exact flow (and its companion run); the table gives,
per claim, the verdict over the instances and the worst margin with its error.
"""

import time
from pathlib import Path

from gf_identities.claims import CLAIMS
from gf_identities.families import flow
from verify import check
from verify.report.doc import Heading, Paragraph, Table
from verify.report.reproduction import Reproduction
from verify.running.profiles import per_profile

INSTANCES = {"quick": 4, "full": 16, "paper": 16}


def run(out: Path, profile: str, seed: int = 0, show_progress: bool = True,
        store: Path | None = None) -> Reproduction:
    start = time.perf_counter()
    runs = [flow(seed=seed + k) for k in range(per_profile(INSTANCES, profile, "instances"))]
    rows, data = [], {}
    for claim in CLAIMS:
        v = check(claim, runs)
        data[claim.id] = {"outcome": v.outcome.value, "margin": v.margin,
                          "error": v.error}
        rows.append([claim.id, claim.title, v.outcome.value, f"{v.margin:.3g}",
                     f"{v.error:.2g}"])
    decided = sum(d["outcome"] == "HOLDS" for d in data.values())
    first = runs[0].problem
    blocks = [
        Heading(2, "Pack GF: identities of every gradient flow"),
        Paragraph(f"{len(runs)} flows of the pack's `gaussian` family (n = {first.n}, d = "
              f"{first.d}, p = {first.p}, scale {first.init_scale:g}, seeds {seed}.."
              f"{seed + len(runs) - 1}), each to t = "
              f"{runs[0].t[-1]:.3g} with the exact flow; {decided} of {len(CLAIMS)} claims "
              "HOLD on all of them (this table is computed in this run)."),
        Table(["claim", "statement", "verdict", "worst margin", "error"], rows),
    ]
    return Reproduction(experiment="GF", title="identities of every gradient flow",
                        blocks=blocks, figures=(), data=data,
                        wall_time=time.perf_counter() - start)
