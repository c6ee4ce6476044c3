"""Support for tests/metrics: run-file builders, the golden-file loader, one artifact comparator,
and a small pure-Python oracle of docs/metrics.md (CSFs, metrics and the bootstrap).

The oracle is written straight from the definitions of docs/metrics.md, item by item, with no
SQL and no shortcuts: working points by grouping equal confidences, areas by the trapezoid
rule over explicit point lists, the optimal curve by explicitly ranking items by loss. Only
numpy's RandomState and percentile are used, because docs/metrics.md names them as the
protocol.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

ITEMS = ["NoInterest", "Depressed", "Sleep", "Tired", "Appetite", "Failure", "Concentrating", "Moving"]
REPO_ROOT = Path(__file__).resolve().parents[3]  # tests/functional/metrics/ -> the repo
SHARED = REPO_ROOT.parent / "shared"
FIXTURES = SHARED / "fixtures"
DEFAULT_GRID = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
DEFAULT_ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.15, 0.2]
DEFAULT_COSTS = [0.0, 0.5, 1.0, 2.0, 4.0]
LOSSES = {
    "abs": {"name": "abs", "definition": "abs(pred - gt)", "raw_multiplier": 1},
    "abs_norm": {"name": "abs_norm", "definition": "abs(pred - gt) / 3", "raw_multiplier": 3},
}
MISSING = object()  # a signal key that is absent from item_signals


# --------------------------------------------------------------------------- run files


def ingest_text(run_cli: Any, tmp_path: Path, text: str) -> Path:
    """Write a per-sample CSV (run `run`) and ingest it into tmp_path/w.duckdb; the warehouse."""
    src, wh = tmp_path / "run.csv", tmp_path / "w.duckdb"
    src.write_text(text)
    r = run_cli(["ingest", src, "--warehouse", wh])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    return wh


def json_of(run_cli: Any, *args: Any) -> dict[str, Any]:
    """A command's --json document, checking it ran cleanly."""
    r = run_cli([*args, "--json"])
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    doc: dict[str, Any] = json.loads(r.stdout)
    return doc


def evaluate_text(run_cli: Any, tmp_path: Path, text: str, *args: Any) -> dict[str, Any]:
    """The artifact of `evaluate` over a per-sample CSV (ingest_text)."""
    wh = ingest_text(run_cli, tmp_path, text)
    return json_of(run_cli, "evaluate", "--input", "run", "--warehouse", wh, *args)


def participant(
    pid: int, preds: Sequence[int | None], gts: Sequence[int], signals: Sequence[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A successful participant; `signals` None leaves item_signals out (pre-signal files)."""
    out: dict[str, Any] = {
        "participant_id": pid,
        "success": True,
        "predicted_items": dict(zip(ITEMS, preds, strict=True)),
        "ground_truth_items": dict(zip(ITEMS, gts, strict=True)),
    }
    if signals is not None:
        out["item_signals"] = {
            name: {k: v for k, v in sig.items() if v is not MISSING}
            for name, sig in zip(ITEMS, signals, strict=True)
        }
    return out


def failed(pid: int, error: str = "timeout") -> dict[str, Any]:
    return {"participant_id": pid, "success": False, "error": error}


def run_doc(
    run_id: str,
    experiments: Sequence[tuple[str | None, list[dict[str, Any]]]],
    git_commit: str | None = "c0ffee",
) -> dict[str, Any]:
    """A run JSON document (docs/formats.md) with one experiment per (mode, participants)."""
    exps = []
    for mode, people in experiments:
        prov = {"mode": mode} if mode is not None else {}
        exps.append({"provenance": prov, "results": {"results": people}})
    return {
        "run_metadata": {"run_id": run_id, "timestamp": "2025-01-01T00:00:00", "git_commit": git_commit},
        "experiments": exps,
    }


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc, allow_nan=False))
    return path


def worked_example_doc() -> dict[str, Any]:
    """docs/metrics.md: participant 101 (items 0..2 predicted, llm 2, 2, 1, errors 0, 2, 0), 102 failed."""
    signals = [{"llm_evidence_count": c, "token_msp": 0.5} for c in (2, 2, 1, 0, 0, 0, 0, 0)]
    p = participant(101, [2, 3, 1, None, None, None, None, None], [2, 1, 1, 0, 0, 0, 0, 0], signals)
    return run_doc("worked01", [("few_shot", [p, failed(102, "mock failure")])], "abc")


# --------------------------------------------------------------------------- golden files


def load_cases() -> list[dict[str, Any]]:
    """The cases of fixtures/manifest.json, each with its expected artifact loaded."""
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    return [
        {**case, "reference": json.loads((FIXTURES / case["expected"]).read_text())}
        for case in manifest["cases"]
    ]


# --------------------------------------------------------------------------- comparator


@dataclass(frozen=True)
class Tol:
    """An expected float whose error bound scales with `scale` (a difference of two larger
    numbers, a ratio, a percentile of replicates) instead of with its own magnitude."""

    value: float
    scale: float


REFERENCE_IGNORED = {("created_at",), ("inputs", "*", "path"), ("inputs", "*", "mode")}
REL, ABS = 1e-12, 1e-15


def _matches(pattern: tuple[str, ...], path: tuple[Any, ...]) -> bool:
    """A path matches a pattern of the same length; "*" stands for any key or list index."""
    return len(pattern) == len(path) and all(p == "*" or p == q for p, q in zip(pattern, path, strict=True))


def diff(
    ref: Any,
    ours: Any,
    *,
    exact_keys: bool,
    ignore: Iterable[tuple[str, ...]] = (),
    path: tuple[Any, ...] = (),
) -> list[str]:
    """Differences of `ours` from `ref`: every key of ref in ours (and no other key when
    exact_keys) with an equal value; floats within rel 1e-12 / abs 1e-15."""
    ignore = set(ignore)
    if any(_matches(pattern, path) for pattern in ignore):
        return []
    where = "/".join(map(str, path)) or "<root>"
    if isinstance(ref, Tol):
        if isinstance(ours, bool) or not isinstance(ours, int | float):
            return [f"{where}: expected {ref.value!r}, got {ours!r}"]
        bound = REL * max(abs(ref.value), ref.scale) + ABS
        return (
            []
            if abs(ours - ref.value) <= bound
            else [f"{where}: expected {ref.value!r} (+-{bound:.3g}), got {ours!r}"]
        )
    if isinstance(ref, dict):
        if not isinstance(ours, dict):
            return [f"{where}: expected an object, got {ours!r}"]
        out = []
        for k, v in ref.items():
            if any(_matches(pattern, (*path, k)) for pattern in ignore):
                continue
            if k not in ours:
                out.append(f"{where}/{k}: missing")
            else:
                out += diff(v, ours[k], exact_keys=exact_keys, ignore=ignore, path=(*path, k))
        if exact_keys:
            out += [
                f"{where}/{k}: unexpected key"
                for k in ours
                if k not in ref and not any(_matches(pattern, (*path, k)) for pattern in ignore)
            ]
        return out
    if isinstance(ref, list):
        if not isinstance(ours, list) or len(ours) != len(ref):
            return [f"{where}: expected a list of {len(ref)}, got {ours!r}"]
        out = []
        for i, (a, b) in enumerate(zip(ref, ours, strict=True)):
            out += diff(a, b, exact_keys=exact_keys, ignore=ignore, path=(*path, i))
        return out
    if isinstance(ref, bool) or ref is None or isinstance(ref, str):
        same = ref is ours if isinstance(ref, bool) or ref is None else ref == ours
        return [] if same else [f"{where}: expected {ref!r}, got {ours!r}"]
    if isinstance(ref, int | float):
        if isinstance(ours, bool) or not isinstance(ours, int | float):
            return [f"{where}: expected {ref!r}, got {ours!r}"]
        if isinstance(ref, int) and isinstance(ours, int):
            return [] if ref == ours else [f"{where}: expected {ref!r}, got {ours!r}"]
        if math.isclose(ref, ours, rel_tol=REL, abs_tol=ABS):
            return []
        return [f"{where}: expected {ref!r}, got {ours!r}"]
    raise TypeError(f"{where}: cannot compare {type(ref).__name__}")


def assert_same(
    ref: Any, ours: Any, *, exact_keys: bool = True, ignore: Iterable[tuple[str, ...]] = (("created_at",),)
) -> None:
    # experiment_id is a warehouse sequence value, not something the oracle can know
    ignore = (*ignore, ("inputs", "*", "experiment_id"))
    problems = diff(ref, ours, exact_keys=exact_keys, ignore=ignore)
    assert not problems, "\n".join(problems[:20])


def assert_reference(ref: dict[str, Any], ours: dict[str, Any]) -> None:
    """The rule of tools/compare_artifact.py: ref's keys in ours with equal values."""
    assert_same(ref, ours, exact_keys=False, ignore=REFERENCE_IGNORED)


# --------------------------------------------------------------------------- CSFs (docs/metrics.md)

LLM, SIM = "llm_evidence_count", "retrieval_similarity_mean"
BASE_CSFS = sorted(
    [
        "llm",
        "total_evidence",
        "retrieval_similarity_mean",
        "retrieval_similarity_max",
        "hybrid_evidence_similarity",
        "verbalized",
        "hybrid_verbalized",
        "token_msp",
        "token_pe",
        "token_energy",
        "consistency",
        "consistency_inverse_std",
        "hybrid_consistency",
    ]
)
# "required": the key must exist; "null -> error": a null is an error (docs/metrics.md + csf.py)
REQUIRED: dict[str, tuple[str, ...]] = {
    "llm": (),
    "total_evidence": (),
    "retrieval_similarity_mean": (SIM,),
    "retrieval_similarity_max": ("retrieval_similarity_max",),
    "hybrid_evidence_similarity": (SIM,),
    "verbalized": ("verbalized_confidence",),
    "hybrid_verbalized": ("verbalized_confidence", SIM),
    "token_msp": ("token_msp",),
    "token_pe": ("token_pe",),
    "token_energy": ("token_energy",),
    "consistency": ("consistency_modal_confidence",),
    "consistency_inverse_std": ("consistency_score_std",),
    "hybrid_consistency": ("consistency_modal_confidence", SIM),
}
NULL_IS_ERROR: dict[str, tuple[str, ...]] = {
    "llm": (LLM,),
    "total_evidence": (LLM,),
    "retrieval_similarity_mean": (),
    "retrieval_similarity_max": (),
    "hybrid_evidence_similarity": (LLM,),
    "verbalized": (),
    "hybrid_verbalized": (LLM,),
    "token_msp": ("token_msp",),
    "token_pe": ("token_pe",),
    "token_energy": ("token_energy",),
    "consistency": ("consistency_modal_confidence",),
    "consistency_inverse_std": ("consistency_score_std",),
    "hybrid_consistency": ("consistency_modal_confidence", LLM),
}


def select(selector: str) -> list[str]:
    if selector == "default":
        return ["llm", "total_evidence"]
    if selector == "all":
        return list(BASE_CSFS)
    return [selector]


def _parts(name: str) -> tuple[str, str, str] | None:
    if not name.startswith("secondary:"):
        return None
    pair, how = name[len("secondary:") :].split(":")
    a, b = pair.split("+")
    return a, b, how


def csf_problem(name: str, sig: dict[str, Any] | None) -> str | None:
    """The first unusable signal ("<key> is missing" / "<key> is null"), None when fine."""
    parts = _parts(name)
    names = [parts[0], parts[1]] if parts else [name]
    required = list(dict.fromkeys(k for n in names for k in REQUIRED[n]))
    nulls = list(dict.fromkeys(k for n in names for k in NULL_IS_ERROR[n]))
    sig = sig or {}
    for k in required:
        if k not in sig:
            return f"{k} is missing"
    for k in nulls:
        if k in sig and sig[k] is None:
            return f"{k} is null"
    return None


def clamp(x: float) -> float:
    return min(max(x, 0.0), 1.0)


def csf_value(name: str, sig: dict[str, Any] | None) -> float:
    """docs/metrics.md in IEEE double, operations in the order the table writes them."""
    parts = _parts(name)
    if parts:
        a, b = csf_value(parts[0], sig), csf_value(parts[1], sig)
        return (a + b) / 2.0 if parts[2] == "average" else a * b
    sig = sig or {}

    def num(key: str, null: float | None = None) -> float:
        v = sig.get(key)
        if v is None:
            assert null is not None, f"{key} is unusable for {name}"
            return null
        return float(v)

    llm = num(LLM, 0.0)  # a missing key counts 0
    e = clamp(min(llm, 3.0) / 3.0)
    s = clamp(num(SIM, 0.0))
    vc = sig.get("verbalized_confidence")
    v = 0.5 if vc is None else clamp((float(vc) - 1.0) / 4.0)
    if name in ("llm", "total_evidence"):
        return llm
    if name in ("retrieval_similarity_mean", "retrieval_similarity_max"):
        return num(name, 0.0)
    if name == "hybrid_evidence_similarity":
        return 0.5 * e + 0.5 * s
    if name == "verbalized":
        return v
    if name == "hybrid_verbalized":
        return clamp(0.4 * v + 0.3 * e + 0.3 * s)
    if name == "token_msp":
        return clamp(num("token_msp"))
    if name == "token_pe":
        return 1.0 / (1.0 + num("token_pe"))
    if name == "token_energy":
        return clamp(math.exp(num("token_energy")))
    if name == "consistency":
        return clamp(num("consistency_modal_confidence"))
    if name == "consistency_inverse_std":
        return 1.0 / (1.0 + num("consistency_score_std"))
    if name == "hybrid_consistency":
        return clamp(0.4 * clamp(num("consistency_modal_confidence")) + 0.3 * e + 0.3 * s)
    raise KeyError(name)


# --------------------------------------------------------------------------- metrics (docs/metrics.md)


@dataclass(frozen=True)
class Unit:
    """One predicted item: its confidence, raw loss |pred - gt|, and tie-break keys."""

    conf: float
    loss: int
    pid: int
    idx: int


@dataclass(frozen=True)
class Point:
    cov: float
    sel: float
    gen: float
    thr: float
    k: int


def working_points(units: list[Unit], n: int, scale: int, estimator: str) -> list[Point]:
    """Plateaus of equal confidence (default), or one point per item (item estimators)."""
    if estimator == "plateau-trapezoid":
        groups: dict[float, list[int]] = {}
        for u in units:
            groups.setdefault(u.conf, []).append(u.loss)
        steps = [(conf, groups[conf]) for conf in sorted(groups, reverse=True)]
    else:
        ranked = sorted(units, key=lambda u: (-u.conf, u.pid, u.idx))
        steps = [(u.conf, [u.loss]) for u in ranked]
    points, k, total = [], 0, 0
    for conf, losses in steps:
        k += len(losses)
        total += sum(losses)
        points.append(Point(k / n, (total / scale) / k, (total / scale) / n, conf, k))
    return points


def trapezoid(xy: list[tuple[float, float]]) -> float:
    return sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in pairwise(xy))


def plateau_points(scored: list[tuple[Any, Any]]) -> list[tuple[Any, Any, Any]]:
    """docs/metrics.md's working points of (confidence or None when abstained, cost) units: at
    each distinct confidence t, most confident first, every unit with confidence >= t accepted:
    (coverage, selective risk, generalized risk); coverage is the double k / n, the risks follow
    the costs' type."""
    n = len(scored)
    points = []
    for t in sorted({conf for conf, _ in scored if conf is not None}, reverse=True):
        acc = [cost for conf, cost in scored if conf is not None and conf >= t]
        points.append((len(acc) / n, sum(acc) / len(acc), sum(acc) / n))
    return points


def plateau_areas(points: list[tuple[Any, Any, Any]]) -> tuple[Any, Any]:
    """(AURC, AUGRC) of (coverage, selective risk, generalized risk) points by the plateau
    trapezoid: the selective risk held back to coverage 0, the generalized risk 0 there; 0 for
    no points. In the points' arithmetic (doubles, or exact Fractions)."""
    if not points:
        return 0, 0
    sel = [(0, points[0][1]), *((cov, r) for cov, r, _ in points)]
    gen = [(0, 0), *((cov, g) for cov, _, g in points)]
    return trapezoid(sel), trapezoid(gen)


def truncated_trapezoid(xy: list[tuple[float, float]], c: float) -> float:
    """Keep points with x <= c; if the last kept x < c, add the interpolated point at c."""
    kept = [p for p in xy if p[0] <= c]
    if kept and kept[-1][0] < c and len(kept) < len(xy):
        (x0, y0), (x1, y1) = kept[-1], xy[len(kept)]
        kept.append((c, y0 + (c - x0) * (y1 - y0) / (x1 - x0)))
    return trapezoid(kept)


def curve_lists(points: list[Point], estimator: str) -> tuple[list[tuple[float, float]], ...]:
    """(coverage, selective risk) and (coverage, generalized risk) lists the areas integrate."""
    sel = [(p.cov, p.sel) for p in points]
    gen = [(p.cov, p.gen) for p in points]
    if estimator == "plateau-trapezoid" and points:
        sel = [(0.0, points[0].sel), *sel]
        gen = [(0.0, 0.0), *gen]
    return sel, gen


def areas(points: list[Point], n: int, area_c: float, estimator: str) -> dict[str, float]:
    """aurc_full, augrc_full, aurc_at_c, augrc_at_c under an estimator."""
    if not points:
        return dict.fromkeys(("aurc_full", "augrc_full", "aurc_at_c", "augrc_at_c"), 0.0)
    c_used = min(area_c, points[-1].cov)
    if estimator == "item-step":
        sel = [p.sel for p in points]
        gen = [p.gen for p in points]
        x = c_used * n
        k_full = math.floor(x)
        frac = x - k_full

        def step(ys: list[float]) -> float:
            part = frac * ys[k_full] if k_full < len(ys) else 0.0
            return (sum(ys[:k_full]) + part) / n

        return {
            "aurc_full": sum(sel) / n,
            "augrc_full": sum(gen) / n,
            "aurc_at_c": step(sel),
            "augrc_at_c": step(gen),
        }
    sel_xy, gen_xy = curve_lists(points, estimator)
    return {
        "aurc_full": trapezoid(sel_xy),
        "augrc_full": trapezoid(gen_xy),
        "aurc_at_c": truncated_trapezoid(sel_xy, c_used),
        "augrc_at_c": truncated_trapezoid(gen_xy, c_used),
    }


def mae_at(points: list[Point], n: int, c: float, estimator: str) -> tuple[float, float] | None:
    """(achieved coverage, selective risk) of MAE@c, None when the curve never gets there."""
    if estimator == "item-step":
        k_star = math.ceil(c * n)
        if k_star > len(points):
            return None
        return k_star / n, points[k_star - 1].sel
    for p in points:
        if p.cov >= c:
            return p.cov, p.sel
    return None


def oracle_units(units: list[Unit]) -> list[Unit]:
    """A perfect ranking: items by loss ascending get distinct confidences 1 - rank/K."""
    ranked = sorted(units, key=lambda u: u.loss)
    k = len(ranked)
    return [Unit(1 - rank / k, u.loss, 0, rank) for rank, u in enumerate(ranked)]


def achievable(points: list[Point]) -> float:
    """AURC (rule with augmentation at 0) over the lower hull of (coverage, selective risk), its
    turns decided exactly (Fractions of the doubles)."""
    hull: list[tuple[float, float]] = []
    for p in sorted((q.cov, q.sel) for q in points):
        while len(hull) >= 2:
            (ox, oy), (ax, ay) = (tuple(map(Fraction, h)) for h in hull[-2:])
            if (ax - ox) * (Fraction(p[1]) - oy) - (ay - oy) * (Fraction(p[0]) - ox) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return trapezoid([(0.0, hull[0][1]), *hull]) if hull else 0.0


def coverage_at_risk(points: list[Point], alpha: float) -> tuple[float, float | None, float | None]:
    ok = [p for p in points if p.sel <= alpha]
    if not ok:
        return 0.0, None, None
    best = max(ok, key=lambda p: p.cov)
    return best.cov, best.sel, best.thr


def pct(num: float, den: float) -> float:
    return num / den * 100 if den != 0 else 0.0


def key(c: float) -> str:
    return f"{c:.2f}"


@dataclass
class Config:
    loss: str = "abs_norm"
    area_c: float = 0.5
    grid: Sequence[float] = tuple(DEFAULT_GRID)
    alphas: Sequence[float] = tuple(DEFAULT_ALPHAS)
    estimator: str = "plateau-trapezoid"
    costs: Sequence[float] = tuple(DEFAULT_COSTS)

    @property
    def scale(self) -> int:
        return 3 if self.loss == "abs_norm" else 1


EPS = 2.220446049250313e-16


def binary_losses(units: list[Unit], scale: int) -> bool | None:
    """docs/metrics.md: are all of a population's losses 0 or 1 (None: it has no predicted item)?"""
    return all(u.loss in (0, scale) for u in units) if units else None


def interpolated(units: list[Unit], n: int, scale: int, binary: bool | None) -> float:
    """fd-shifts' achievable AURC (docs/metrics.md) over the plateau points: for 0/1 losses the
    lower hull of (0, 0) and (a_j, L_j) in exact integers, then the log-interpolated area."""
    pts = working_points(units, n, scale, "plateau-trapezoid")
    counts = [(p.k, round(p.gen * n)) for p in pts]
    keep = list(range(len(pts)))
    if binary:
        hull: list[int] = [-1]
        xy = [(0, 0), *counts]
        for j in range(len(pts)):
            while len(hull) >= 2:
                (ox, oy), (ax, ay), (bx, by) = xy[hull[-2] + 1], xy[hull[-1] + 1], xy[j + 1]
                if (ax - ox) * (by - oy) - (ay - oy) * (bx - ox) <= 0:
                    hull.pop()
                else:
                    break
            hull.append(j)
        keep = hull[1:]
    area, prev = 0.0, None
    for j in keep:
        c, e = pts[j].cov, pts[j].gen
        if prev is None:
            area += e
        else:
            c0, e0 = prev
            area += (e - e0) + (e0 * c - e * c0) / (c - c0) * math.log(c / c0)
        prev = (c, e)
    return area


def scalars(
    units: list[Unit], n: int, cfg: Config, binary: bool | None = None
) -> dict[Any, tuple[float | None, float]]:
    """Every replicable scalar of one population as (value, error scale); None = undefined.
    `binary`: whether the population's losses are 0/1 (a replicate inherits its population's)."""
    pts = working_points(units, n, cfg.scale, cfg.estimator)
    out: dict[Any, tuple[float | None, float]] = {}
    for name, v in areas(pts, n, cfg.area_c, cfg.estimator).items():
        out[name] = (v, abs(v))
    out["cmax"] = (len(units) / n if n else 0.0, 1.0)
    # docs/metrics.md: the same metric (the estimator's rule) on a perfect ranking
    best = working_points(oracle_units(units), n, cfg.scale, cfg.estimator)
    opt = areas(best, n, cfg.area_c, cfg.estimator)
    for full in ("aurc", "augrc"):
        o, m = opt[f"{full}_full"], out[f"{full}_full"][0]
        assert m is not None
        out[f"{full}_optimal"] = (o, abs(o))
        out[f"e{full}"] = (m - o, abs(m) + abs(o))
    # docs/metrics.md (fd-shifts): E = L / N, Cmax = K / N, defined for 0/1 losses only
    if binary is None:
        binary = binary_losses(units, cfg.scale)
    e = sum(u.loss for u in units) / cfg.scale / n if n else 0.0
    cm = len(units) / n if n else 0.0
    if binary:
        pop = e + (cm - e) * math.log((cm - e + EPS) / cm) if units else 0.0
        aurc = out["aurc_full"][0]
        assert aurc is not None
        out["aurc_optimal_population"] = (pop, abs(pop) + 1e-15)
        out["eaurc_population"] = (aurc - pop, abs(aurc) + abs(pop) + 1e-15)
    else:
        out["aurc_optimal_population"] = (None, 0.0)
        out["eaurc_population"] = (None, 0.0)
    ach = interpolated(units, n, cfg.scale, binary) if units else 0.0
    out["aurc_achievable_interpolated"] = (ach, abs(ach) + 1e-15)
    for c in cfg.grid:
        hit = mae_at(pts, n, c, cfg.estimator)
        out[("mae", key(c))] = (None, 0.0) if hit is None else (hit[1], abs(hit[1]))
        out[("mae_achieved", key(c))] = (None, 0.0) if hit is None else (hit[0], abs(hit[0]))
    for a in cfg.alphas:
        cov, risk, thr = coverage_at_risk(pts, a)
        out[("car", key(a))] = (cov, abs(cov))
        out[("car_risk", key(a))] = (risk, 0.0 if risk is None else abs(risk))
        out[("car_thr", key(a))] = (thr, 0.0 if thr is None else abs(thr))
    return out


def effective_reliability(points: list[Point], n: int, scale: int, cost: float) -> dict[str, Any]:
    """The best Phi_c over the plateau points (docs/metrics-extended.md): Phi_c = (k - (1 + c)
    L) / N with L the accepted loss in loss units, in exact fractions; ties to the fewer
    accepted; accepting nothing (0, no threshold) unless a point scores above 0."""
    best: tuple[Fraction, Point | None] = (Fraction(0), None)
    for p in points:  # most confident first: a later point must score strictly more
        raw = round(p.gen * n * scale)  # integer losses: the accepted raw loss
        phi = (Fraction(p.k) - (1 + Fraction(cost)) * Fraction(raw, scale)) / n
        if phi > best[0]:
            best = (phi, p)
    phi, at = best
    return {
        "cost": cost,
        "value": Tol(float(phi), abs(float(phi)) + 1e-15),
        "threshold": None if at is None else at.thr,
        "coverage": 0.0 if at is None else Tol(at.cov, at.cov),
    }


def _tol(v: tuple[float | None, float]) -> Tol | None:
    return None if v[0] is None else Tol(v[0], v[1])


def point_metrics(units: list[Unit], n: int, cfg: Config) -> dict[str, Any]:
    """METRICS of docs/formats.md without bootstrap (filled in by `with_bootstrap`)."""
    sc = scalars(units, n, cfg)
    pts = working_points(units, n, cfg.scale, cfg.estimator)
    aurc, opt, augrc_opt = (sc[k][0] for k in ("aurc_full", "aurc_optimal", "augrc_optimal"))
    augrc = sc["augrc_full"][0]
    assert aurc is not None and opt is not None and augrc is not None and augrc_opt is not None
    ach = achievable(pts)
    used = min(cfg.area_c, sc["cmax"][0] or 0.0)
    mae: dict[str, Any] = {}
    for c in cfg.grid:
        v = sc[("mae", key(c))]
        mae[key(c)] = (
            None
            if v[0] is None
            else {"requested": c, "achieved": _tol(sc[("mae_achieved", key(c))]), "value": _tol(v)}
        )
    car = {
        key(a): {
            "alpha": a,
            "coverage": _tol(sc[("car", key(a))]),
            "risk": _tol(sc[("car_risk", key(a))]),
            "threshold": _tol(sc[("car_thr", key(a))]),
        }
        for a in cfg.alphas
    }
    return {
        "cmax": _tol(sc["cmax"]),
        "aurc_full": _tol(sc["aurc_full"]),
        "augrc_full": _tol(sc["augrc_full"]),
        "aurc_optimal": _tol(sc["aurc_optimal"]),
        "augrc_optimal": _tol(sc["augrc_optimal"]),
        "eaurc": _tol(sc["eaurc"]),
        "eaugrc": _tol(sc["eaugrc"]),
        "aurc_achievable": Tol(ach, abs(ach)),
        "aurc_optimal_population": _tol(sc["aurc_optimal_population"]),
        "eaurc_population": _tol(sc["eaurc_population"]),
        "aurc_achievable_interpolated": _tol(sc["aurc_achievable_interpolated"]),
        "interpretation": {
            "aurc_gap_pct": Tol(pct(aurc - opt, opt), pct(abs(aurc) + abs(opt), opt)),
            "augrc_gap_pct": Tol(
                pct(augrc - augrc_opt, augrc_opt), pct(abs(augrc) + abs(augrc_opt), augrc_opt)
            ),
            "achievable_gain_pct": Tol(pct(aurc - ach, aurc), pct(abs(aurc) + abs(ach), aurc)),
        },
        "aurc_at_c": {"requested": cfg.area_c, "used": used, "value": _tol(sc["aurc_at_c"])},
        "augrc_at_c": {"requested": cfg.area_c, "used": used, "value": _tol(sc["augrc_at_c"])},
        "mae_at_coverage": mae,
        "coverage_at_risk": car,
        "bootstrap": {},
        **(
            {
                "effective_reliability": {
                    key(c): effective_reliability(pts, n, cfg.scale, c) for c in cfg.costs
                },
                # the integral of acc_oracle - acc over [0, Cmax]: eaurc_population's integral
                "oracle_gap_area": _tol(sc["eaurc_population"]),
            }
            if cfg.estimator == "plateau-trapezoid"
            else {}
        ),
        "curve": {
            "coverage": [p.cov for p in pts],
            "selective_risk": [p.sel for p in pts],
            "generalized_risk": [p.gen for p in pts],
            "threshold": [p.thr for p in pts],
        },
    }


# --------------------------------------------------------------------------- bootstrap (docs/metrics.md)


def draws(n_participants: int, n_resamples: int, seed: int) -> np.ndarray[Any, Any]:
    """Row b = the participant indices of replicate b (one randint call, docs/metrics.md)."""
    return np.random.RandomState(seed).randint(0, n_participants, size=(n_resamples, n_participants))


def interval(
    point: tuple[float | None, float], reps: list[tuple[float | None, float]], b: int
) -> tuple[Any, float]:
    """(ci95, drop rate): undefined replicates dropped, fewer than 2 kept -> the point."""
    kept = [v for v, _ in reps if v is not None]
    drop = 1.0 - len(kept) / b
    if point[0] is None:
        return None, 1.0
    if len(kept) < 2:
        return [Tol(point[0], point[1])] * 2, drop
    lo, hi = np.percentile(kept, [2.5, 97.5])
    scale = max(s for v, s in reps if v is not None)
    return [Tol(float(lo), scale), Tol(float(hi), scale)], drop


CI_KEYS = (
    "aurc_full",
    "augrc_full",
    "aurc_at_c",
    "augrc_at_c",
    "cmax",
    "aurc_optimal",
    "augrc_optimal",
    "eaurc",
    "eaugrc",
    "aurc_optimal_population",
    "eaurc_population",
    "aurc_achievable_interpolated",
)


def bootstrap_block(
    point: dict[Any, tuple[float | None, float]],
    reps: list[dict[Any, tuple[float | None, float]]],
    cfg: Config,
    seed: int,
) -> dict[str, Any]:
    b = len(reps)
    ci: dict[str, Any] = {}
    for k in CI_KEYS:
        ci[k] = interval(point[k], [r[k] for r in reps], b)[0]
    ci_mae, drop = {}, {}
    for c in cfg.grid:
        kk = ("mae", key(c))
        ci_mae[key(c)], drop[key(c)] = interval(point[kk], [r[kk] for r in reps], b)
    ci["mae_at_coverage"] = ci_mae
    ci["coverage_at_risk"] = {
        key(a): interval(point[("car", key(a))], [r[("car", key(a))] for r in reps], b)[0] for a in cfg.alphas
    }
    se: dict[str, Any] = {k: std_error(point[k], [r[k] for r in reps]) for k in CI_KEYS}
    se["mae_at_coverage"] = {
        key(c): std_error(point[("mae", key(c))], [r[("mae", key(c))] for r in reps]) for c in cfg.grid
    }
    return {
        "seed": seed,
        "n_resamples": b,
        "ci95": ci,
        "drop_rate": {"mae_at_coverage": drop},
        "std_error": se,
    }


def phi_intervals(m: dict[str, Any], drawn: list[list[Unit]], n: int, cfg: Config) -> None:
    """ci95 and std_error of the effective reliability per cost: each replicate's own best
    Phi_c over its own working points (docs/metrics-extended.md)."""
    ci, se = m["bootstrap"]["ci95"], m["bootstrap"]["std_error"]
    ci["effective_reliability"], se["effective_reliability"] = {}, {}
    points = [working_points(units, n, cfg.scale, cfg.estimator) for units in drawn]
    for c in cfg.costs:
        best = m["effective_reliability"][key(c)]["value"]
        point = (best.value, best.scale)
        reps: list[tuple[float | None, float]] = []
        for pts in points:
            value = effective_reliability(pts, n, cfg.scale, c)["value"]
            reps.append((value.value, value.scale))
        ci["effective_reliability"][key(c)] = interval(point, reps, len(reps))[0]
        se["effective_reliability"][key(c)] = std_error(point, reps)


def std_error(point: tuple[float | None, float], reps: list[tuple[float | None, float]]) -> Any:
    """docs/metrics.md: sample standard deviation (ddof = 1) of the kept replicates, 0 below two."""
    if point[0] is None:
        return None
    kept = [v for v, _ in reps if v is not None]
    if len(kept) < 2:
        return 0.0
    return Tol(float(np.std(kept, ddof=1)), max(s for v, s in reps if v is not None))


# --------------------------------------------------------------------------- whole artifact


@dataclass
class Side:
    """One evaluated experiment: what the artifact's inputs[] says and its participants."""

    label: str
    run_id: str
    git_commit: str | None
    mode: str | None
    people: list[dict[str, Any]]

    @property
    def included(self) -> set[int]:
        return {p["participant_id"] for p in self.people if p["success"]}

    @property
    def failed(self) -> set[int]:
        return {p["participant_id"] for p in self.people if not p["success"]}

    def units(self, csf: str, pid: int) -> list[Unit]:
        person = next(p for p in self.people if p["participant_id"] == pid)
        sigs = person.get("item_signals")
        out = []
        for idx, name in enumerate(ITEMS):
            pred = person["predicted_items"][name]
            if pred is None:
                continue
            sig = sigs[name] if sigs is not None else None
            assert csf_problem(csf, sig) is None, (csf, pid, name)
            out.append(Unit(csf_value(csf, sig), abs(pred - person["ground_truth_items"][name]), pid, idx))
        return out

    def n_predicted(self, pids: Iterable[int]) -> int:
        wanted = set(pids)
        return sum(
            v is not None
            for p in self.people
            if p["participant_id"] in wanted
            for v in p["predicted_items"].values()
        )


def expected_artifact(
    sides: list[Side],
    *,
    confidence: str,
    cfg: Config,
    n_resamples: int,
    seed: int,
    intersection_only: bool = False,
) -> dict[str, Any]:
    """The whole artifact `riskcov evaluate` must write for these inputs (created_at aside)."""
    b = max(n_resamples, 0)
    if len(sides) == 1:
        (one,) = sides
        pids = sorted(one.included)
        population = {
            "participants_total": len(one.included) + len(one.failed),
            "participants_included": len(one.included),
            "participants_failed": len(one.failed),
        }
        comparison: dict[str, Any] = {
            "enabled": False,
            "intersection_only": intersection_only,
            "deltas": None,
        }
    else:
        left, right = sides
        all_l, all_r = left.included | left.failed, right.included | right.failed
        overlap = all_l & all_r
        pids = sorted(left.included & right.included)
        population = {
            "participants_total": len(overlap),
            "participants_included": len(pids),
            "participants_failed": len(overlap) - len(pids),
        }
        comparison = {
            "enabled": True,
            "intersection_only": intersection_only,
            "deltas": {},
            "participants_left_only": len(all_l - all_r),
            "participants_right_only": len(all_r - all_l),
            "participants_overlap_total": len(overlap),
            "participants_overlap_included": len(pids),
            "participants_failed_left": len(overlap & left.failed),
            "participants_failed_right": len(overlap & right.failed),
        }
    n = 8 * len(pids)
    population["items_total"] = n
    if len(sides) == 1:  # paired, each input's Cmax is in its own metrics
        population["items_predicted"] = sides[0].n_predicted(pids)
        population["cmax"] = population["items_predicted"] / n if n else 0.0
    rows = draws(len(pids), b, seed) if b > 0 else np.zeros((0, len(pids)), dtype=int)
    variants: dict[str, Any] = {}
    aurc_reps: dict[str, list[float]] = {}
    for csf in select(confidence):
        per_side = []
        for side in sides:
            by_pid = {pid: side.units(csf, pid) for pid in pids}
            units = [u for pid in pids for u in by_pid[pid]]
            m = point_metrics(units, n, cfg)
            point = scalars(units, n, cfg)
            binary = binary_losses(units, cfg.scale)
            drawn = [[u for j in row for u in by_pid[pids[j]]] for row in rows]
            reps = [scalars(units_b, n, cfg, binary) for units_b in drawn]
            if b > 0:
                m["bootstrap"] = bootstrap_block(point, reps, cfg, seed)
                if cfg.estimator == "plateau-trapezoid":
                    phi_intervals(m, drawn, n, cfg)
            per_side.append((m, point, reps))
        if len(sides) == 1:
            variants[csf] = per_side[0][0]
            aurc_reps[csf] = [r["aurc_full"][0] for r in per_side[0][2]]
            continue
        variants[csf] = {"input_0": per_side[0][0], "input_1": per_side[1][0]}
        comparison["deltas"][csf] = deltas(per_side[0][1:], per_side[1][1:], cfg, b)
        for k in range(2):  # paired: each (input, CSF) is a contestant (docs/metrics-extended.md)
            aurc_reps[f"input_{k}:{csf}"] = [r["aurc_full"][0] for r in per_side[k][2]]
    extra = {}
    if len(aurc_reps) >= 2 and b > 0:
        if len(sides) > 1:  # input-major, as evaluate lists its series
            aurc_reps = dict(sorted(aurc_reps.items(), key=lambda kv: kv[0].split(":")[0]))
        extra = {"rank_stability": rank_stability(aurc_reps, b)}
        if len(sides) > 1:
            extra["rank_stability"]["contestants"] = {
                name: {"input": name.split(":")[0], "csf": name.split(":", 1)[1]} for name in aurc_reps
            }
    return {
        **extra,
        "schema_version": "1",
        "inputs": [
            {
                "path": s.label,
                "run_id": s.run_id,
                "git_commit": s.git_commit,
                "mode": s.mode,
                "sha256": hashlib.sha256(Path(s.label).read_bytes()).hexdigest(),
            }
            for s in sides
        ],
        "population": population,
        "loss": LOSSES[cfg.loss],
        "estimator": cfg.estimator,
        "confidence_variants": variants,
        "skipped_variants": {},
        "comparison": comparison,
        "options": {
            "coverage_grid": list(cfg.grid),
            "area_coverage": cfg.area_c,
            "alpha_grid": list(cfg.alphas),
            "costs": list(cfg.costs),
            "bootstrap_resamples": b,
            "seed": seed,
            "confidence": confidence,
            "riskcov_version": _version(),
        },
    }


def rank_stability(values: dict[str, list[float]], b: int) -> dict[str, Any]:
    """docs/metrics-extended.md by counting: rank = 1 + the CSFs with a lower AURC in the
    replicate; per pair the shares of replicates each wins, p = twice the smaller share of
    differences <= 0 or >= 0 (at most 1), Holm-adjusted in ascending order."""
    names = list(values)
    rank = {c: [1 + sum(values[o][k] < values[c][k] for o in names) for k in range(b)] for c in names}
    pairs, raw = [], []
    for x, y in itertools.combinations(names, 2):
        d = [values[x][k] - values[y][k] for k in range(b)]
        raw.append(min(1.0, 2 * min(sum(v <= 0 for v in d), sum(v >= 0 for v in d)) / b))
        pairs.append(
            {"a": x, "b": y, "a_better": sum(v < 0 for v in d) / b, "b_better": sum(v > 0 for v in d) / b}
        )
    order = sorted(range(len(raw)), key=lambda i: (raw[i], i))
    for pos, i in enumerate(order):
        pairs[i]["p_value"] = raw[i]
        pairs[i]["p_holm"] = min(1.0, max((len(raw) - q) * raw[order[q]] for q in range(pos + 1)))
    return {
        "metric": "aurc_full",
        "n_replicates": b,
        "ranks": {c: [rank[c].count(k) / b for k in range(1, len(names) + 1)] for c in names},
        "pairs": pairs,
    }


def _version() -> str:
    import riskcov

    return riskcov.__version__


def deltas(left: tuple[Any, Any], right: tuple[Any, Any], cfg: Config, b: int) -> dict[str, Any]:
    """right - left per metric; a replicate delta is undefined when either side is."""
    (lp, lreps), (rp, rreps) = left, right

    def d(a: tuple[float | None, float], c: tuple[float | None, float]) -> tuple[float | None, float]:
        if a[0] is None or c[0] is None:
            return None, 0.0
        return c[0] - a[0], abs(a[0]) + abs(c[0])

    names: list[tuple[str, Any]] = [
        (k, k) for k in ("aurc_full", "augrc_full", "cmax", "aurc_at_c", "augrc_at_c")
    ]
    names += [(f"mae_at_coverage_{key(c)}", ("mae", key(c))) for c in cfg.grid]
    out: dict[str, Any] = {}
    for label, k in names:
        point = d(lp[k], rp[k])
        if b > 0:
            ci = interval(point, [d(x[k], y[k]) for x, y in zip(lreps, rreps, strict=True)], b)[0]
        else:
            ci = None if point[0] is None else [Tol(point[0], point[1])] * 2
        out[label] = {"delta": _tol(point), "ci95": ci}
    return out
