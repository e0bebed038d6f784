"""bmd09's theorem for the report's theory section: Theorem 1 (leverage-score sampling with the
exact V_k), registered as the theory part ``bmd09``."""

from __future__ import annotations

from kmdr.report.theory import Bound, TheoryPart

__all__ = ["PART"]

THM1 = Bound(
    key="bmd09-thm1",
    title="bmd09 Theorem 1 (leverage-score sampling, exact V_k)",
    methods=("Sampl/SVD",),
    factor_text="1 + (1 + ε)γ",
    factor=lambda eps, gamma: 1 + (1 + eps) * gamma,
    r_text=(
        "r = Θ(k log(k/ε)/ε²), ε ∈ (0, 1); Lemma 1 asks r ≥ 2c₁c₀² k log(c₁c₀²k/ε²)/ε² "
        "with absolute constants c₀, c₁ that the paper leaves unspecified"
    ),
    r_required=None,
    probability="≥ 0.5 − δ_γ",
    notes=(
        "bzmd14 (footnote 3) reports that this proof has a fixable bug and that the fixed "
        "proof gives 1 + (2 + ε)γ instead."
    ),
)

PART = TheoryPart(bounds=(THM1,))
