"""bzmd14's theorems for the report's theory section (Theorems 11-13, and the exact-SVD result of
Drineas et al. 1999 it cites as Table 1 row [12]), the r they need at our k, and the sampling
lemma's section; registered as the theory part ``bzmd14``."""

from __future__ import annotations

import math

from kmdr.papers.bzmd14.lemma_section import section_lemma
from kmdr.papers.bzmd14.sampling_lemma import lemma6_min_r
from kmdr.report.theory import Bound, Requirement, TheoryPart

__all__ = ["BOUNDS", "PART"]


def r_thm11(k: int, eps: float) -> float:
    # bzmd14 Algorithm 1 step 2: r = c1 * 4 k ln(200 k) / eps^2, c1 = 16 * 10^6 (end of the proof).
    return 16e6 * 4 * k * math.log(200 * k) / eps**2


def r_thm12(k: int, eps: float) -> float:
    # bzmd14 Algorithm 2 step 1: r = c2 k / eps^2, c2 = 3330 * 15^2 (end of the proof).
    return 3330 * 15**2 * k / eps**2


BOUNDS: tuple[Bound, ...] = (
    Bound(
        key="bzmd14-thm11",
        title="bzmd14 Theorem 11 (leverage-score sampling, approximate V_k)",
        methods=("Sampl/ApproxSVD", "Sampl/SVD"),
        factor_text="1 + (2 + ε)γ  (3 + ε at γ = 1, bzmd14 Table 1)",
        factor=lambda eps, gamma: 1 + (2 + eps) * gamma,
        r_text=(
            "r = c₁·4k ln(200k)/ε² with c₁ = 16·10⁶ (Algorithm 1 and the end of the proof), "
            "ε ∈ (0, 1/3)"
        ),
        r_required=r_thm11,
        probability="≥ 0.2 − δ_γ",
        notes=(
            "bzmd14 §4: with the exact SVD in step 1 (our Sampl/SVD) the result is "
            "asymptotically the same."
        ),
    ),
    Bound(
        key="bzmd14-thm12",
        title="bzmd14 Theorem 12 (random sign projection)",
        methods=("RP",),
        factor_text="1 + (1 + ε)γ",
        factor=lambda eps, gamma: 1 + (1 + eps) * gamma,
        r_text="r = c₂k/ε² with c₂ = 3330·15² (Algorithm 2 and the end of the proof), ε ∈ (0, 1/3)",
        r_required=r_thm12,
        probability="≥ 0.96 − δ_γ",
    ),
    Bound(
        key="bzmd14-thm13",
        title="bzmd14 Theorem 13 (approximate SVD features)",
        methods=("ApprSVD",),
        factor_text="1 + (1 + ε)γ",
        factor=lambda eps, gamma: 1 + (1 + eps) * gamma,
        r_text=(
            "exactly r = k features (C = AZ, Z from FastFrobeniusSVD with target rank k), "
            "ε ∈ (0, 1); our ApprSVD at r uses target rank r, so only r = k is the theorem's "
            "algorithm"
        ),
        r_required=lambda k, eps: float(k),
        probability="≥ 0.99 − δ_γ",
        r_equals_k=True,
    ),
    Bound(
        key="dfkvv99",
        title="Drineas et al. 1999 (exact SVD features; bzmd14 Table 1 row [12])",
        methods=("SVD",),
        factor_text="1 + γ  (2 at γ = 1)",
        factor=lambda eps, gamma: 1 + gamma,
        r_text="exactly r = k features (C = A V_k)",
        r_required=lambda k, eps: float(k),
        probability="deterministic given a γ-approximation",
        notes=(
            "Not one of the three papers' theorems; bzmd14 cites it and reproduces it with Z = V_k."
        ),
        r_equals_k=True,
    ),
)

PART = TheoryPart(
    bounds=BOUNDS,
    requirements=(
        Requirement("Thm 11: c₁·4k ln(200k)/ε²", lambda k, eps: f"{r_thm11(k, eps):.3g}"),
        Requirement("Thm 12: c₂k/ε²", lambda k, eps: f"{r_thm12(k, eps):.3g}"),
        Requirement("Thm 13: r = k", lambda k, eps: str(k)),
        Requirement("Lemma 6: 4k ln(2k/δ), δ = 0.1", lambda k, eps: f"{lemma6_min_r(k):.0f}"),
    ),
    requirements_note=(
        "The r these requirements give at ε = 1/3 for our k. Our largest r is {max_r}, so "
        "Theorems 11 and 12 do not formally apply to any of our runs; Theorem 13 and the "
        "exact-SVD result apply only at r = k; bmd09 Theorem 1 and lst17 Theorem 1 hide "
        "their constants, so whether they apply cannot be decided:"
    ),
    sections=(section_lemma,),
)
