"""CI: with the pack installed, `pytest verify --verify-json PATH` put its rows and mutants
in the one verdict table (run by .ci/run after `pip install -e` of this pack)."""

import json
import sys

from gf_identities import PACK
from gf_identities.claims import CLAIMS

data = json.loads(open(sys.argv[1]).read())
rows = {row["claim"]: row for row in data["claims"]}
missing = [c.id for c in CLAIMS if c.id not in rows]
not_holding = [c.id for c in CLAIMS if c.id in rows and rows[c.id]["verdict"] != "HOLDS"]
score = data["mutant_score"]
lost = [m for m in PACK.mutants if m in score["not_run"] + score["not_caught"]]
if missing or not_holding or lost:
    sys.exit(f"pack GF in pytest verify's table: missing {missing}, not HOLDS "
             f"{not_holding}, mutants not caught {lost}")
print(f"pack GF: {len(CLAIMS)} claims HOLD in pytest verify's table; mutants "
      f"{score['caught']}/{score['total']} caught")
