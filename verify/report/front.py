"""The report's first screen and its back matter: the summary box (per pack: claims
checked and their outcomes; the findings' headlines; one line per reproduction; the run's
provenance), the glossary of the words the report's texts use, and the provenance list.

A claim's outcome here is over all its verdict rows (its variants such as ``[lam 4^-7]``
and its rows on published data): VIOLATED if any row is, else INCONCLUSIVE if any is,
else HOLDS if any is, else INAPPLICABLE. The counts are the claims', not the rows'.
"""

from __future__ import annotations

import html
from collections import Counter
from datetime import UTC, datetime

from numerics.provenance import source_commit
from theory import packs, registry
from verify.report.doc import CONTENTS_MARK, Bullets, Heading, Html, inline_html
from verify.results import findings as findings_mod
from verify.results.findings import data_label

OUTCOMES = ("VIOLATED", "INCONCLUSIVE", "HOLDS", "INAPPLICABLE")


def base_id(row_claim: str) -> str:
    """The catalogue id of a verdict row's claim (``CEL23-L4[lam 4^-7]`` -> ``CEL23-L4``)."""
    return row_claim.split("[")[0]


def suite_findings(suite_result: dict) -> list:
    """The findings a suite run recorded, one per id (`verify.results.findings.distinct`)."""
    return findings_mod.distinct([findings_mod.Finding.from_dict(d)
                                  for d in suite_result["findings"]])


def claim_outcomes(rows: list[dict]) -> dict[str, str]:
    """Each claim's outcome over its verdict rows (see the module docstring)."""
    seen: dict[str, set[str]] = {}
    for r in rows:
        seen.setdefault(base_id(r["claim"]), set()).add(r["verdict"])
    return {cid: next((o for o in OUTCOMES if o in s), "-") for cid, s in seen.items()}


def pack_counts(rows: list[dict]) -> list[dict]:
    """Per pack (in pack order): its title, claims in its catalogue, checkable ones, claims
    with verdict rows and the count per outcome."""
    outcomes = claim_outcomes(rows)
    per_pack = Counter((registry.get(cid).paper, o) for cid, o in outcomes.items()
                       if _known(cid))
    out = []
    for pack in packs.packs():
        claims = registry.claims(pack.name)  # by paper: CF's closed forms count under theirs
        if not claims:
            continue
        checked = [c for c in claims if c.id in outcomes]
        out.append({"pack": pack.name, "title": pack.title, "claims": len(claims),
                    "checkable": sum(c.checkable for c in claims), "checked": len(checked),
                    **{o: per_pack.get((pack.name, o), 0) for o in OUTCOMES}})
    return out


def _known(cid: str) -> bool:
    try:
        registry.get(cid)
    except KeyError:
        return False
    return True


def _count_cell(pack: str, outcome: str, n: int) -> str:
    cls = f' class="{outcome}"' if n else ""
    return (f'<td data-pack="{html.escape(pack)}" data-outcome="{outcome}"{cls}>{n}</td>')


def summary(suite_result: dict | None, reproductions, run: dict) -> list:
    """The summary box: what was checked and how it came out, per pack; the findings'
    headlines and the reproductions, each linked to its evidence; the run's provenance."""
    when = f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    prov = (f"gfverify {run['version']}, commit {run['commit']}, profile "
            f"<code>{run['profile']}</code>, seed {run['seed']}, {when}, "
            f"{run['wall']:.0f} s")
    from verify.results.sizes import profile_line

    sizes = profile_line(run["profile"])  # at which sizes the verdicts were obtained
    parts = ['<section class="summary" id="summary">', "<h2>Summary</h2>",
             f"<p>{prov}</p>", f"<p>{inline_html(sizes)}</p>"]
    md = [f"**Summary.** gfverify {run['version']}, commit {run['commit']}, profile "
          f"`{run['profile']}`, seed {run['seed']}, {when}, {run['wall']:.0f} s.", "", sizes,
          ""]
    if suite_result is None:
        parts.append("<p>The verification suite was not run (<code>--no-suite</code>): no "
                     "claim was checked.</p>")
    else:
        head = "".join(f"<th>{h}</th>" for h in ("pack", "paper", "claims",
                                                  "checked", *OUTCOMES))
        body = []
        for p in pack_counts(suite_result["claims"]):
            cells = "".join(_count_cell(p["pack"], o, p[o]) for o in OUTCOMES)
            body.append(f"<tr><td>{html.escape(p['pack'])}</td><td>{inline_html(p['title'])}"
                        f"</td><td>{p['claims']}</td><td>{p['checked']}</td>{cells}</tr>")
            md.append(f"- {p['pack']}: {p['checked']} of {p['claims']} claims checked: "
                      + ", ".join(f"{p[o]} {o}" for o in OUTCOMES))
        parts += ["<p>Claims checked per paper and how they came out (a claim counts once, "
                  "by its worst row: VIOLATED, then INCONCLUSIVE, HOLDS, INAPPLICABLE; the "
                  '<a href="#verdicts">verdict table</a> has every row).</p>',
                  f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>'
                  + "".join(body) + "</tbody></table></div>"]
        found = suite_findings(suite_result)
        if found:
            parts.append("<p>Findings (where a paper and the measurements disagree):</p><ul>"
                         + "".join(f'<li><a href="#finding-{html.escape(f.id)}">'
                                   f"{inline_html(f.title)}</a>"
                                   + (f" ({data_label(f.data)})" if data_label(f.data)
                                      else "")
                                   + "</li>" for f in found) + "</ul>")
    if reproductions:
        items = []
        for r in reproductions:
            anchor = r.experiment.split(",")[0].strip()
            headline = f": {inline_html(r.summary[0])}" if r.summary else ""
            flag = (f"; <strong>{len(r.findings)} disagreement(s)</strong>, see "
                    f'<a href="#findings">Findings</a>' if r.findings else "")
            items.append(f'<li><a href="#{html.escape(anchor)}">'
                         f"{html.escape(r.experiment)}</a> {inline_html(r.title)}"
                         f"{headline}{flag}</li>")
        parts.append("<p>Reproductions of the papers' experiments:</p><ul>" + "".join(items)
                     + "</ul>")
    parts.append("</section>")
    return [Html("\n".join(parts), "\n".join(md), ids=("summary",))]


CONTENTS = Html(f'<nav class="toc" id="contents"><h2>Contents</h2>{CONTENTS_MARK}</nav>',
                ids=("contents",))


# Words the report's texts (the packs' sources, findings and sections) use that a reader
# cannot resolve from the page alone.
GLOSSARY = (
    ("margin", "how much room a claim leaves on an instance, in the units of its relation "
     "(time units for event times): positive when it holds. The worst margin of a row is "
     "the smallest over its instances and times. For an identity (=) the margin is minus "
     "the deviation, never positive: the identity HOLDS when the deviation is within the "
     "error."),
    ("error", "the numerical error the margin is compared with (an upper bound of the run's "
     "true error, estimated against a more accurate companion run); a margin within it is "
     "INCONCLUSIVE. For probability claims the margin is the estimate's distance to the "
     "bound and the error the half-width of its confidence interval."),
    ("INAPPLICABLE", "an assumption of the claim fails on the instance, so the claim says "
     "nothing there."),
    ("PW, SL, QL", "the catalogue's classes of statements: pointwise (checked at every "
     "saved time), scaling law (a slope over a grid) and qualitative (listed with the "
     "reason it is not checked)."),
    ("R", "the S000 authors' published code, GitHub leodana2000/Convergence-High-Dimension "
     "at commit de81470; the S000 pack takes conventions and published CSVs (shipped in "
     "papers/s000/published) from it, no code."),
    ("the rebuttal", "the S000 authors' response to the reviewers (OpenReview); S000 "
     "statements marked so are read from it."),
    ("[seed], [seed-OCR], [repo], [derived]", "where a catalogue statement was read: the "
     "paper's text (from an OCR'd copy for seed-OCR), R, or derived by us. Not a random "
     "seed, which the tables give as seed=N."),
    ("THEORY, THEORY.md", "the developers' catalogue the S000-S002 packs were written "
     "from. It is not distributed, so nothing here depends on reading it: each claim's "
     "statement, source and flags are in its catalogue entry (catalogue.html, `gfverify "
     "claims --format long`), the numbers a section quotes from it (R's fitted slopes, "
     "thresholds, expected iterations) are printed where quoted, and its section 8, the "
     "open points that the catalogue's flags cite, is summarised in the next entry."),
    ("THEORY.md section 8.1 to 8.10", "the catalogue's reconstructions and flagged "
     "inconsistencies: 8.1 S000's exact statements are not available (Theorem 1's A3 form, "
     "the orthogonal upper bound's constants and Proposition 2's eq. (10) are rebuilt from "
     "the reviews and rebuttal; lemma numbers follow R's notes); 8.2 the rebuttal's "
     "theta_t = theta~_t is theta_t = sqrt(p) theta~_t (CF-1); 8.3 the width: the "
     "reviewer's 4 log(n/eps) and R's floor(log(n/eps)/log(4/3)) + 1 both suffice; 8.4 R's "
     "exp-2 slopes are -0.81, -0.73, -0.73 and -0.50, not all about -1/2 (S000-C2); 8.5 R's "
     "phase_transition.py has a factor 2 in the cosine dynamics, harmless for the plotted "
     "c_0 = 1 (CF-7); 8.6 S001: zeta := max{zeta_1, zeta_2} should be min, Lemma 11 read "
     "with the linear n_a, the initialisation scale and the MNIST loss not stated, [W_0] ~ "
     "N(0, 1/D) read from OCR; 8.7 S001 Theorem 1 part 2 is unreadable, the proof gives "
     "L(t) <= L(t_2)/(1 + alpha L(t_2)(t - t_2)); 8.8 S002 Lemmas 3(i)/4(i) read with "
     "normalised neurons, '=' in 3(ii)/4(ii) as a one-sided tolerance; 8.9 S002's "
     "iteration counts (5000/11000) match a loss with twice eq. (1)'s gradient (torch's "
     "mean MSE), eq. (1) itself expecting about 12,000/25,000; 8.10 S002's capacity "
     "n ||D_+-|| assumes equal norms within a sign class (CF-8 gives the one-sample case)."),
    ("G-000-iso, G-000-orth, G-000-group, I-000-repo, I-000-repo-orth", "data families "
     "and initialisations of the packs (`gfverify families` lists them): iso = uniform on "
     "the sphere, orth = orthogonal inputs, group = S000's group initialisation; repo = "
     "the initialisation of R."),
    ("CF-n", "a closed form of the catalogue (an exactly solvable trajectory), used as a "
     "yardstick."),
    ("MF", "the mean-field parametrisation h(x) = (1/p) sum_j a_j relu(<w_j, x>)."),
    ("lam", "the initialisation scale lambda; eps is a claim's epsilon."),
)


def glossary() -> list:
    return [Heading(2, "Glossary", anchor="glossary"),
            Bullets([f"**{word}**: {meaning}" for word, meaning in GLOSSARY])]


def provenance(run: dict, env: dict, suite_result, reproductions) -> list:
    walls = (f"wall time: {run['wall']:.1f} s in total"
             + (f", of which the verification suite {suite_result['wall_time']:.1f} s (in "
                "parallel with the sections)" if suite_result else "")
             + "".join(f", {r.experiment} {r.wall_time:.1f} s" for r in reproductions))
    return [Heading(2, "Provenance", anchor="provenance"),
            Bullets([f"gfverify {run['version']}, commit {run['commit']}",
                     f"profile `{run['profile']}`; seed of the sections' random instances: "
                     f"{run['seed']}; the verification suite uses its own fixed seeds (the "
                     "table's seed column)",
                     walls,
                     "versions: " + ", ".join(f"{k} {v}" for k, v in env.items())])]


def run_facts(profile: str, seed: int, wall: float, env: dict,
              commit: str | None = None) -> dict:
    """The run's facts the pages show; ``commit``: the one the run started from (default:
    the checkout's now)."""
    return {"profile": profile, "seed": seed, "wall": wall,
            "version": env.get("gfverify", "?"),
            "commit": source_commit() if commit is None else commit}


__all__ = ["CONTENTS", "GLOSSARY", "claim_outcomes", "glossary", "pack_counts", "provenance",
           "run_facts", "summary"]
