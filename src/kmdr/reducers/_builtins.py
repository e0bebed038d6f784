"""kmdr's own reducers, each declared once: class, label, pinned parameters, paper, line style,
aliases, what its time covers, whether it is the baseline, and its planning facts (the class's
own :class:`~kmdr.reducers._plans.ReducerPlan`).

The declarations live here, apart from the reducer modules, and name each class as a
``"module:Class"`` string: a declaration inside its reducer's module could only be read by
importing that module (and with it scikit-learn and scipy), whereas a dry run, ``kmdr-list`` or
the report only need the names and facts. The class is imported when a reducer is first built.

The order of :data:`BUILTIN_ENTRIES` is the legend order of the figures: the methods of bzmd14
first, then lst17's, the baseline, then the methods no paper draws (by label).
"""

from __future__ import annotations

from kmdr.reducers import _plans
from kmdr.reducers._entry import LineStyle, ReducerEntry

__all__ = ["BUILTIN_ENTRIES"]

_M = "kmdr.reducers."

#: Registry name -> declaration, in legend order.
BUILTIN_ENTRIES: dict[str, ReducerEntry] = {
    "leverage": ReducerEntry(
        _M + "leverage:LeverageScoreSampler",
        "Sampl/SVD",
        {"svd": "exact"},
        "bmd09 Alg. 1; bzmd14 Alg. 1",
        style=LineStyle("#1f77b4", "o"),
        aliases=("sampl_svd",),
        time_includes=(
            "the exact top-k right singular vectors of A (shared across r, timed in every "
            "repetition and charged to every cell of it), computed at rank k by the cheapest "
            "exact route (ARPACK or the Gram matrix by a measured crossover, deflating a well "
            "separated leading block where the rest of the spectrum is flat, the thin SVD only "
            "where no accurate gap is left), then the scores, the r draws and the rescaled "
            "columns"
        ),
        plan=_plans.LEVERAGE,
    ),
    "leverage_approx": ReducerEntry(
        _M + "leverage:LeverageScoreSampler",
        "Sampl/ApproxSVD",
        {"svd": "approximate"},
        "bzmd14 Alg. 1 + Lemma 4",
        style=LineStyle("#17becf", "s"),
        aliases=("sampl_approx_svd",),
        time_includes=(
            "FastFrobeniusSVD at rank k, ε = 1/3 (shared across r, charged to every cell), then "
            "the scores, the r draws and the rescaled columns"
        ),
        plan=_plans.LEVERAGE,
    ),
    "sign": ReducerEntry(
        _M + "projections:SignRandomProjection",
        "RP",
        paper="bzmd14 Alg. 2",
        style=LineStyle("#d62728", "^"),
        aliases=("rp",),
        time_includes="drawing the d × r sign matrix and C = A R",
        plan=_plans.SIGN,
    ),
    "svd": ReducerEntry(
        _M + "svd:SVDFeatures",
        "SVD",
        {"svd": "exact"},
        "bzmd14 Alg. 3 (exact SVD)",
        style=LineStyle("#2ca02c", "D"),
        time_includes=(
            "its own exact rank-r SVD (the factor of one r does not serve another; the same in "
            "every repetition, so computed once per r for the clustering and re-run in each "
            "further repetition to be timed), by the same route choice as exact leverage "
            "scores, and C = A V_r"
        ),
        plan=_plans.SVD_FEATURES,
    ),
    "svd_approx": ReducerEntry(
        _M + "svd:SVDFeatures",
        "ApprSVD",
        {"svd": "approximate"},
        "bzmd14 Alg. 3 + Lemma 4",
        style=LineStyle("#bcbd22", "v"),
        aliases=("appr_svd", "approx_svd"),
        time_includes="its own FastFrobeniusSVD at rank r per cell and C = A Z",
        plan=_plans.SVD_FEATURES,
    ),
    "laplacian": ReducerEntry(
        _M + "laplacian:LaplacianScoreSelector",
        "LapScores",
        paper="He, Cai, Niyogi 2005 (bzmd14 baseline)",
        style=LineStyle("#9467bd", "P"),
        aliases=("lap_scores", "laplacian_score", "laplacian_scores"),
        time_includes=(
            "the heat-kernel k-NN graph and the Laplacian score of every feature (shared across "
            "r, timed in every repetition and charged to every cell of it), then selecting the "
            "r best features"
        ),
        plan=_plans.LAPLACIAN,
    ),
    "sparse_embedding": ReducerEntry(
        _M + "sparse_embedding:SparseEmbedding",
        "SE",
        paper="lst17 Alg. 1",
        style=LineStyle("#ff7f0e", "*"),
        aliases=("se",),
        time_includes="drawing the sparse embedding (one nonzero per row of S) and C = A S",
        plan=_plans.SPARSE_EMBEDDING,
    ),
    "lle": ReducerEntry(
        _M + "lle:LocallyLinearReducer",
        "LLE",
        paper="Roweis & Saul 2000 (lst17 LLE)",
        style=LineStyle("#8c564b", "X"),
        time_includes=(
            "scikit-learn's locally linear embedding of A into r dimensions (computed once per "
            "r for the clustering when its dense eigensolver runs, which draws nothing, and "
            "re-run in each further repetition to be timed; per cell when ARPACK does)"
        ),
        plan=_plans.LLE,
    ),
    "sparsified": ReducerEntry(
        _M + "sparsified:PreconditionedSparsification",
        "PD",
        paper="Pourkamali-Anaraki & Becker 2017 (lst17 PD)",
        style=LineStyle("#e377c2", "h"),
        aliases=("pd",),
        time_includes=(
            "preconditioning (random signs and a DCT or Hadamard transform) and keeping r "
            "entries per row; its clustering time is sparsified k-means on that sketch, not "
            "Lloyd on a dense C"
        ),
        plan=_plans.SPARSIFIED,
    ),
    "none": ReducerEntry(
        _M + "identity:IdentityReducer",
        "kMeans",
        paper="bzmd14 baseline (all features)",
        style=LineStyle("black", "", "--"),
        time_includes="input validation only; the clustering is Lloyd's k-means on all of A",
        baseline=True,
        plan=_plans.IDENTITY,
    ),
    "achlioptas": ReducerEntry(
        _M + "projections:AchlioptasProjection",
        "Achlioptas RP",
        paper="report; Achlioptas 2001",
        time_includes="drawing the sparse d × r Achlioptas matrix and C = A R",
        plan=_plans.ACHLIOPTAS,
    ),
    "ridge_leverage_approx": ReducerEntry(
        _M + "ridge_leverage:RidgeLeverageSampler",
        "ApproxRidgeLev (CMM17)",
        {"scores": "approximate"},
        "Cohen, Musco, Musco 2017 (not in bmd09/bzmd14)",
        time_includes=(
            "a Gaussian sketch B = A Π of k + ⌈k/ε⌉ columns and the ridge leverage scores of A "
            "against it (shared across r, charged to every cell), then the sampling"
        ),
        plan=_plans.RIDGE_LEVERAGE,
    ),
    "gaussian": ReducerEntry(
        _M + "projections:GaussianProjection",
        "Gaussian RP",
        paper="report (Gaussian JL)",
        time_includes="drawing the d × r Gaussian matrix (numpy's Generator) and C = A R",
        plan=_plans.GAUSSIAN,
    ),
    "ridge_leverage": ReducerEntry(
        _M + "ridge_leverage:RidgeLeverageSampler",
        "RidgeLev (CMM17)",
        {"scores": "exact"},
        "Cohen, Musco, Musco 2017 (not in bmd09/bzmd14)",
        time_includes=(
            "the full thin SVD of A (shared across r, timed in every repetition and charged to "
            "every cell of it), then the ridge scores and the sampling"
        ),
        plan=_plans.RIDGE_LEVERAGE,
    ),
    "srht": ReducerEntry(
        _M + "srht:SRHTProjection",
        "SRHT",
        paper="Ailon & Chazelle 2006 (FJLT); course report",
        aliases=("fjlt",),
        time_includes=(
            "random signs, a Hadamard transform of each row padded to a power of two, r columns"
        ),
        plan=_plans.SRHT,
    ),
}
