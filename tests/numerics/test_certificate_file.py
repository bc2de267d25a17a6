"""The certificate file and its checker: the file binds claim, instance and verdict, and the
checker re-decides the claim from the file alone (``python -m numerics.certify FILE``).

``tests/data/bad_certificates.json`` is the checker's bad-input corpus: each entry edits a
good certificate (``@TOY``: S002-T1 on the two-point example; ``@OTHER``: another of its
instances; ``@ZERO``: an instance with exact zeros in its initial state; ``@TAIL``: a window
whose tail Lemma 9 decides, the loss's monotonicity) and names the text
the rejection must contain. Every one is REJECTED with one line naming the field or the
step, exit 1 (usage errors: exit 2), and no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from numerics import ExactFlow, Problem, generators, simulate
from numerics.certify import certify, check_certificate
from numerics.certify import checker as checker_mod
from numerics.identity import content_hash, leaky_spec, model_spec
from papers.s002.evidence import s002_horizon
from theory import get
from verify.conjecture.statement import statement_of
from verify.engine.certified import CertifiedOutcome, certify_claim

ROOT = Path(__file__).resolve().parents[2]
CORPUS = json.loads((ROOT / "tests" / "data" / "bad_certificates.json").read_text())


def _two_point(seed: int):
    problem = generators.two_point(p=10, lam=1e-6 / np.sqrt(10), seed=seed)
    return simulate(problem, ExactFlow(), np.linspace(0, s002_horizon(problem), 101))


def _zero_problem() -> Problem:
    """Orthogonal data whose initial state has exact zeros (pairs exactly on their
    surfaces, a neuron at 0)."""
    W0 = np.array([[1e-3, 0.0], [0.0, 1e-3], [0.0, 0.0]])
    return Problem(X=np.eye(2), y=np.array([1.0, -0.8]), W0=W0,
                   a0=np.array([1e-3, -1e-3, 0.0]), init_scale=1e-3)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("certs")
    out = {}
    # seed 0: S002-T1 PROVED; seed 1 (no positive key neuron, the loss stays at 1/4):
    # DISPROVED, the event fails on the whole tube past the bound
    for name, seed, outcome in (("@TOY", 0, "PROVED"), ("@OTHER", 1, "DISPROVED")):
        run = _two_point(seed)
        cert = certify_claim(get("S002-T1"), run, file=tmp / f"{name[1:].lower()}.npz")
        assert cert.outcome.value == outcome, cert.reason
        out[name] = cert.record["file"]
    run = simulate(_zero_problem(), ExactFlow(), np.linspace(0, 20, 41))
    claim = statement_of("L(t) <= L(0)").claim("for_all_t", None, 20.0, float(run.t[1]))
    cert = certify_claim(claim, run, file=tmp / "zero.npz")
    assert cert.outcome is CertifiedOutcome.PROVED, cert.reason
    out["@ZERO"] = cert.record["file"]
    # the worst instance of `gfverify conjecture "L(t) <= 1.5*L(0)" --family two-point`: its
    # tube stops at t = 75.8 of 296.6, the window's tail decided by Lemma 9 from t = 0
    problem = generators.two_point(p=10, lam=1e-20, seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0, 296.567239214152, 101))
    claim = statement_of("L(t) <= 1.5*L(0)").claim("for_all_t", None, float(run.t[-1]),
                                                   float(run.t[1]))
    cert = certify_claim(claim, run, file=tmp / "tail.npz")
    assert cert.outcome is CertifiedOutcome.PROVED and "Lemma 9" in cert.reason, cert.reason
    out["@TAIL"] = cert.record["file"]
    out["@MISSING"] = str(tmp / "nowhere.npz")
    return out


# -- editing a certificate --------------------------------------------------------------------
def _load(path):
    with np.load(path) as f:
        data = {k: f[k] for k in f.files}
    return json.loads(str(data.pop("certificate"))), data


def _set(meta: dict, dotted: str, value) -> None:
    *parents, last = dotted.split(".")
    for key in parents:
        meta = meta[key]
    meta[last] = value


def _number(value):
    return float(value) if isinstance(value, str) else value


def _rehash(meta, data) -> None:
    inst = meta["instance"]
    spec = "relu" if inst["activation"] == "relu" else leaky_spec(float(inst["slope"]))
    init = inst["init_scale"]
    inst["hash"] = content_hash(data["X"], data["y"], data["W0"], data["a0"],
                                inst["parametrization"], "square", float(inst["loss_scale"]),
                                None if init is None else float(init),
                                model_spec(spec, inst["train"]))


def _truncate(meta, data, t: float) -> None:
    K = int(np.searchsorted(data["bounds"], t, side="right")) - 1
    data["end_state"] = data["coeffs"][K, 0].copy()
    data["bounds"], data["r0"] = data["bounds"][:K + 1], data["r0"][:K + 1]
    for name in ("coeffs", "R", "stuck", "pinned", "regime"):
        data[name] = data[name][:K]
    keep = data["saved_index"] <= K
    for name in ("saved_index", "saved_state", "saved_radius"):
        data[name] = data[name][keep]
    meta["tube"]["steps"] = K


def edited(src: str, dst: Path, edits: list, files: dict) -> str:
    """A copy of the certificate ``src`` with ``edits`` applied (the corpus' language)."""
    if not Path(src).exists():
        return src
    meta, data = _load(src)
    cut = None
    for e in edits:
        if "meta" in e:
            for key, value in e["meta"].items():
                _set(meta, key, value)
        elif "rehash" in e:
            _rehash(meta, data)
        elif "instance_from" in e:
            other_meta, other = _load(files[e["instance_from"]])
            meta["instance"] = other_meta["instance"]
            for name in ("X", "y", "W0", "a0"):
                data[name] = other[name]
        elif "array" in e:
            arr = data[e["array"]].copy()
            idx = tuple(e["index"])
            if "value" in e:
                arr[idx] = _number(e["value"])
            elif "add" in e:
                arr[idx] = arr[idx] + e["add"]
            else:
                arr[idx] = arr[idx] * e["times"]
            data[e["array"]] = arr
        elif "permute" in e:
            i, j = e["swap"]
            for name in e["permute"]:
                arr = data[name].copy()
                arr[[i, j]] = arr[[j, i]]
                data[name] = arr
        elif "duplicate" in e:
            at = e["at"]
            for name in e["duplicate"]:
                data[name] = np.insert(data[name], at, data[name][at], axis=0)
        elif "truncate_time" in e:
            _truncate(meta, data, e["truncate_time"])
        elif "truncate_bytes" in e:
            cut = e["truncate_bytes"]
        elif "add_array" in e:
            data[e["add_array"]] = np.zeros(3)
        elif "drop_array" in e:
            data.pop(e["drop_array"])
        else:
            raise AssertionError(f"unknown edit {e}")
    np.savez(dst, certificate=np.array(json.dumps(meta)), **data)
    if cut is not None:
        raw = dst.read_bytes()
        dst.write_bytes(raw[: int(len(raw) * cut)])
    return str(dst)


@pytest.mark.parametrize("case", CORPUS, ids=[c["name"] for c in CORPUS])
def test_bad_certificate_corpus(case, files, tmp_path, capsys):
    argv = list(case.get("args", []))
    if case["file"] is not None:
        argv.insert(0, edited(files[case["file"]], tmp_path / "bad.npz", case["edits"], files))
    code = checker_mod.main(argv)
    out, err = capsys.readouterr()
    assert code == case.get("exit", 1), (out, err)
    text = out if code == 1 else err
    assert case["names"] in text, text
    assert "Traceback" not in out + err
    if code == 1:
        assert text.startswith("REJECTED: ") and text.count("\n") == 1, text


def test_the_good_files_are_accepted(files):
    for name, outcome in (("@TOY", "PROVED"), ("@OTHER", "DISPROVED"), ("@ZERO", "PROVED"),
                          ("@TAIL", "PROVED")):
        got = check_certificate(files[name])
        assert got.verdict.outcome == outcome
        assert got.claim.id in ("S002-T1", "conjecture")


# -- what the checker prints, and what it imports -------------------------------------------
_BLOCKED = ("numerics.certify.tube", "numerics.flow", "numerics.simulate", "numerics.problem",
            "numerics.trajectory", "numerics.generators", "numerics.mpflow",
            "numerics.closed_form", "verify", "theory", "papers", "torch", "scipy", "sympy",
            "mpmath")
_ALLOWED = {"numerics", "numerics.identity", "numerics.certify", "numerics.certify.balls",
            "numerics.certify.field", "numerics.certify.instance", "numerics.certify.claims",
            "numerics.certify.quantities", "numerics.certify.monotone",
            "numerics.certify.certificate",
            "numerics.certify.checker", "numerics.certify.__main__"}

_RUN_BLOCKED = f"""
import importlib.abc, runpy, sys
BLOCKED = {_BLOCKED!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError("blocked: " + name)
        return None
sys.meta_path.insert(0, Block())
sys.argv = ["numerics.certify"] + sys.argv[1:]
try:
    runpy.run_module("numerics.certify", run_name="__main__")
except SystemExit as exc:
    ours = sorted(m for m in sys.modules if m.split(".")[0] in ("numerics", "verify", "theory",
                                                                 "papers"))
    print("MODULES " + " ".join(ours))
    raise
"""


def test_the_checker_imports_no_writer_module(files):
    """In a process where the integrator, the runs, the writer, the parser, sympy and every
    verify/theory module cannot be imported, the checker accepts the file and prints the
    claim, the instance's hash and PROVED."""
    out = subprocess.run([sys.executable, "-c", _RUN_BLOCKED, files["@TOY"]], cwd=ROOT,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH":
                                                              str(ROOT)})
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    problem = _two_point(0).problem
    assert "ACCEPTED" in text and "claim:    S002-T1" in text
    assert f"instance: {problem.content_hash}" in text
    assert "verdict:  PROVED at t=" in text
    modules = set(text.split("MODULES ")[1].split())
    assert modules <= _ALLOWED, modules - _ALLOWED


def test_the_checker_re_decides_the_time(files):
    """The verdict printed is the checker's own: an event enclosed on the file's tube."""
    got = check_certificate(files["@TOY"])
    run = _two_point(0)
    # the float run's first saved time with the event, and the certified one: both bound
    # the first time L(t) <= 1e-8 L(0); the certified one from above, on the tube
    assert got.verdict.t is not None and got.verdict.t <= 36.0
    assert abs(got.verdict.t - 35.66) < 1.0
    assert got.instance == run.problem.content_hash


def test_a_tube_alone_is_accepted_without_a_verdict(tmp_path):
    run = _two_point(0)
    tube = certify(run)
    got = check_certificate(tube.write(tmp_path / "tube.npz"))
    assert got.claim is None and got.verdict is None and got.steps == tube.steps
