"""The certificate file (format ``gfverify-certificate/3``): what it holds, written and read.

An ``.npz`` archive (no pickles) with

- ``certificate``: JSON text with the format, the instance's settings and hash
  (`numerics.certify.instance`), the claim (`numerics.certify.claims.ClaimSpec`: its text,
  its decided form, its window or event as trees, the run's horizon), the verdict
  (`numerics.certify.claims.Decision`: outcome, time, reason), the tube's Taylor order and
  where it stopped (``why``), and a record of how it was made (not part of the proof);
- the instance's arrays ``X``, ``y``, ``W0``, ``a0`` (float64: exact values);
- the tube: ``bounds`` (step boundaries, from 0), ``coeffs`` (each step's Taylor
  coefficients), ``r0`` (the radius at each boundary), ``R`` (each step's box radius),
  ``stuck``, ``pinned``, ``regime`` (per step: pairs held at z <= 0, of them at z = 0, and
  the regime its polynomial follows), ``end_state`` (the approximant at the last boundary);
- the run's saved times as ``saved_index`` (boundaries), with its states ``saved_state``
  and the radii ``saved_radius`` that hold the true flow around them.

`read` checks every field against what it may be and refuses the file (`FileRejected`,
naming the field) on anything else: a wrong type, shape or dtype, NaN, inf, an entry past
what the arithmetic is certified for, boundaries or saved entries out of order or
repeated, an instance whose hash is not the hash of what the file holds. The checker
(`numerics.certify.checker`) then re-derives everything else.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from numerics.certify.claims import ClaimError, ClaimSpec, Decision
from numerics.certify.instance import Instance, InstanceError, check_array

FORMAT = "gfverify-certificate/3"
# a step's coefficients, radii and times are at most this large (products of three and
# sums over the sizes stay far inside float64)
MAX_COEFF = 2.0**128
MAX_TIME = 2.0**60
MAX_ORDER = 40
TUBE_ARRAYS = ("bounds", "coeffs", "r0", "R", "stuck", "pinned", "regime", "end_state",
               "saved_index", "saved_state", "saved_radius")
INSTANCE_ARRAYS = ("X", "y", "W0", "a0")


class FileRejected(ValueError):
    """The file is not a certificate the checker can read; the message names the field."""


@dataclass
class TubeFile:
    """What a certificate file holds, every field checked (`read`)."""

    instance: Instance
    bounds: np.ndarray
    coeffs: np.ndarray
    r0: np.ndarray
    R: np.ndarray
    stuck: np.ndarray
    pinned: np.ndarray
    regime: np.ndarray
    end_state: np.ndarray
    saved_index: np.ndarray
    saved_state: np.ndarray
    saved_radius: np.ndarray
    order: int
    why: str
    claim: ClaimSpec | None = None
    verdict: Decision | None = None
    record: dict = field(default_factory=dict)

    @property
    def steps(self) -> int:
        return len(self.R)

    @property
    def end(self) -> float:
        return float(self.bounds[-1])


def write(path, tube, claim: ClaimSpec | None = None, verdict: Decision | None = None,
          record: dict | None = None) -> Path:
    """Write ``tube`` (a `numerics.certify.tube.Tube`) with its claim and verdict."""
    if (claim is None) != (verdict is None):
        raise ValueError("a claim and its verdict are written together")
    meta = {"format": FORMAT, "instance": tube.instance.settings(),
            "claim": None if claim is None else claim.to_json(),
            "verdict": None if verdict is None else verdict.to_json(),
            "tube": {"order": int(tube.coeffs.shape[1] - 1), "why": tube.why,
                     "steps": int(len(tube.R))},
            "record": dict(record or {})}
    inst = tube.instance
    arrays = {"X": inst.X, "y": inst.y, "W0": inst.W0, "a0": inst.a0,
              "bounds": tube.bounds, "coeffs": tube.coeffs, "r0": tube.r0, "R": tube.R,
              "stuck": tube.stuck, "pinned": tube.pinned, "regime": tube.regime,
              "end_state": tube.end_state, "saved_index": tube.saved_index.astype(np.int64),
              "saved_state": tube.states, "saved_radius": tube.radii}
    path = Path(path)
    with path.open("wb") as fh:
        np.savez_compressed(fh, certificate=np.array(json.dumps(meta)), **arrays)
    return path


def _fail(field: str, message: str):
    raise FileRejected(f"{field}: {message}")


def read(path) -> TubeFile:
    """The certificate at ``path``, every field checked; `FileRejected` otherwise."""
    path = Path(path)
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as f:
            data = {k: f[k] for k in f.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        _fail("file", f"not a readable .npz archive ({type(exc).__name__}: "
              f"{str(exc)[:80]})")
    except Exception as exc:  # noqa: BLE001 - a damaged archive can raise anything
        _fail("file", f"not a readable .npz archive ({type(exc).__name__})")
    if "certificate" not in data:
        _fail("certificate", "missing (not a gfverify certificate)")
    try:
        meta = json.loads(str(data.pop("certificate")))
    except (ValueError, TypeError) as exc:
        _fail("certificate", f"not JSON ({exc})")
    if not isinstance(meta, dict):
        _fail("certificate", "not a JSON object")
    if meta.get("format") != FORMAT:
        _fail("format", f"{meta.get('format')!r}, expected {FORMAT!r} (older certificates "
              "hold no claim and no instance hash: write them again)")
    expected = set(INSTANCE_ARRAYS) | set(TUBE_ARRAYS)
    missing = sorted(expected - set(data))
    if missing:
        _fail(missing[0], "missing from the file")
    extra = sorted(set(data) - expected)
    if extra:
        _fail(extra[0], "not an array a certificate holds")
    try:
        instance = Instance.from_file(meta.get("instance"), data)
    except InstanceError as exc:
        raise FileRejected(str(exc)) from None
    tube_meta = meta.get("tube")
    if not isinstance(tube_meta, dict):
        _fail("tube", "missing")
    order, why, steps = tube_meta.get("order"), tube_meta.get("why"), tube_meta.get("steps")
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= MAX_ORDER:
        _fail("tube.order", f"a Taylor order from 1 to {MAX_ORDER}, got {order!r}")
    if not isinstance(why, str):
        _fail("tube.why", f"a string, got {why!r}")
    arrays = _tube_arrays(data, instance, order)
    N = len(arrays["R"])
    if steps != N:
        _fail("tube.steps", f"{steps!r}, but the file holds {N} steps")
    claim = verdict = None
    try:
        if meta.get("claim") is not None:
            claim = ClaimSpec.from_json(meta["claim"])
            verdict = Decision.from_json(meta.get("verdict"))
        elif meta.get("verdict") is not None:
            _fail("verdict", "a verdict without a claim")
    except ClaimError as exc:
        raise FileRejected(str(exc)) from None
    record = meta.get("record")
    if not isinstance(record, dict):
        _fail("record", "an object")
    return TubeFile(instance=instance, order=order, why=why, claim=claim, verdict=verdict,
                    record=record, **arrays)


def _tube_arrays(data: dict, instance: Instance, order: int) -> dict:
    try:
        bounds = check_array("bounds", data["bounds"], 1, MAX_TIME)
        N = len(bounds) - 1
        P = instance.size
        shapes = {"coeffs": (N, order + 1, P), "r0": (N + 1,), "R": (N,),
                  "stuck": (N, instance.p, instance.n), "pinned": (N, instance.p, instance.n),
                  "regime": (N, instance.p, instance.n), "end_state": (P,)}
        out = {"bounds": bounds}
        for name, shape in shapes.items():
            dtype = bool if name in ("stuck", "pinned", "regime") else np.float64
            arr = check_array(name, data[name], len(shape), MAX_COEFF, dtype)
            if arr.shape != shape:
                _fail(name, f"expected shape {shape} ({N} steps, order {order}, "
                      f"{P} weights), got {arr.shape}")
            out[name] = arr
        idx = check_array("saved_index", data["saved_index"], 1, dtype=np.int64)
        m = len(idx)
        for name, shape in (("saved_state", (m, P)), ("saved_radius", (m,))):
            arr = check_array(name, data[name], len(shape), MAX_COEFF)
            if arr.shape != shape:
                _fail(name, f"expected shape {shape} (one per saved time), got {arr.shape}")
            out[name] = arr
    except InstanceError as exc:
        raise FileRejected(str(exc)) from None
    if N < 0 or bounds[0] != 0.0:
        _fail("bounds", "the first boundary must be t = 0")
    steps = np.diff(bounds)
    if np.any(steps <= 0):
        k = int(np.flatnonzero(steps <= 0)[0])
        _fail("bounds", f"step {k}: boundaries must increase (t = {bounds[k]!r} then "
              f"{bounds[k + 1]!r}: steps out of order or repeated)")
    for name in ("r0", "saved_radius"):
        if np.any(out[name] < 0):
            _fail(name, "a radius is negative")
    if np.any(out["R"] <= 0):
        _fail("R", "a box radius is not positive")
    if m == 0 or idx[0] != 0:
        _fail("saved_index", "the run's saved times start at t = 0 (boundary 0)")
    if np.any(np.diff(idx) <= 0):
        j = int(np.flatnonzero(np.diff(idx) <= 0)[0]) + 1
        _fail("saved_index", f"saved entry {j}: the saved times must increase (entries out "
              "of order or repeated)")
    if idx[-1] > N:
        _fail("saved_index", f"saved entry {m - 1}: boundary {int(idx[-1])} past the last "
              f"({N})")
    out["saved_index"] = idx
    return out


__all__ = ["FORMAT", "FileRejected", "TubeFile", "read", "write"]
