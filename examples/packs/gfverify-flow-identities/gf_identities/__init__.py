"""An example gfverify pack, installed from outside the toolkit.

Its claims are not any paper's: they hold for every gradient flow
d(theta)/dt = -kappa grad L of a shallow ReLU network with the square loss, and so
test the simulator as much as they illustrate the pack interface.
"""

from theory.packs import Pack

PACK = Pack(
    name="GF",
    title="identities of every gradient flow (example pack)",
    claims="gf_identities.claims",
    measures="gf_identities.measures",
    families="gf_identities.families",
    generators="gf_identities.families",
    reproductions=("gf_identities.report",),
    tests="gf_identities.tests",
    mutants=("GF-1~2x", "GF-3~quarter"),
    source="standard facts of gradient flows (e.g. Santambrogio, 'Euclidean, metric, and "
           "Wasserstein gradient flows', 2017, section 2)",
)
