"""lst17's theorem for the report's theory section: Theorem 1 with Lemma 1 (sparse embedding),
registered as the theory part ``lst17``."""

from __future__ import annotations

from kmdr.report.theory import Bound, TheoryPart

__all__ = ["PART"]

THM1 = Bound(
    key="lst17-thm1",
    title="lst17 Theorem 1 with Lemma 1 (sparse embedding)",
    methods=("SE",),
    factor_text="(1 + ε)γ with ε = 2ε′/(1 − ε′), ε′ the embedding's accuracy",
    factor=lambda eps, gamma: (1 + eps) * gamma,
    r_text=(
        "d̃ = O(max((k + log(1/δ))/ε′², 6/(ε′²δ))) for an ε′-approximation embedded matrix "
        "w.p. ≥ 1 − O(δ); the O(·) constant is unspecified (the explicit term 6/(ε′²δ) alone "
        "is 2940 for ε′ = 1/7, i.e. ε = 1/3, and δ = 0.1)"
    ),
    r_required=None,
    probability="≥ 1 − O(δ), times the k-means algorithm's own success",
)

PART = TheoryPart(bounds=(THM1,))
