"""kmdr's own reducers, each declared once: class, label, pinned parameters, paper, line style,
aliases, what its time covers, whether it is the baseline, and its planning facts
(:class:`~kmdr.reducers._plans.ReducerPlan`).

The declarations live here, apart from the reducer modules, and name each class as a
``"module:Class"`` string: a declaration inside its reducer's module could only be read by
importing that module (and with it scikit-learn and scipy), whereas a dry run, ``kmdr-list`` or
the report only need the names and facts. The class is imported when a reducer is first built.
Everything else about a built-in is derived from its declaration: the package's lazy imports of
the classes (:func:`builtin_classes`) and the plan each class reads (:func:`declared_plan`), so
a new built-in is its module plus one entry here.

The order of :data:`BUILTIN_ENTRIES` is the legend order of the figures: the methods of bzmd14
first, then lst17's, the baseline, then the methods no paper draws (by label).
"""

from __future__ import annotations

from collections.abc import Mapping

from kmdr.reducers._entry import LineStyle, ReducerEntry
from kmdr.reducers._plans import (
    ROWWISE,
    SKETCH,
    DataFacts,
    ReducerPlan,
    always,
    next_power_of_two,
    padded_dimension,
)

__all__ = ["BUILTIN_ENTRIES", "builtin_classes", "declared_plan"]

# The plans of the built-in classes (one per class: two entries of one class share it, and so
# its compat_version). The rules read the constructor parameters over the plan's defaults.


def _eps_unread(switch: str, approximate: str, alternative: str):
    """The ``unread`` rule of a reducer whose ``eps`` is read by its approximate mode only (its
    ``switch`` parameter at ``approximate``); ``alternative``: the entry that runs that mode."""

    def unread(p: Mapping) -> Mapping[str, str]:
        if p[switch] == approximate:
            return {}
        return {"eps": f"with {switch}={approximate} only ({alternative})"}

    return unread


def _leverage_key(p: Mapping, data: DataFacts) -> tuple:
    if p["svd"] == "approximate":
        return ("fast_frobenius_svd", p["n_clusters"], p["eps"])
    return ("sparse_svd", p["n_clusters"]) if data.sparse else ("exact_svd", p["n_clusters"])


#: Leverage-score sampling: one SVD of rank k shared across r; exact SVDs read no seed (the
#: approximate SVD's sketch is drawn from random_state).
_LEVERAGE = ReducerPlan(
    defaults={"svd": "exact", "eps": 1 / 3, "scores": "leverage"},
    shared_key=_leverage_key,
    shared_deterministic=lambda p, data: p["svd"] == "exact",
    max_components=lambda p, n, d: d if p["scores"] == "top" else None,  # no repeats: r <= d
    # approximate scores from a two-pass randomized SVD over the row blocks; exact ones need A
    row_blocks=lambda p: SKETCH if p["svd"] == "approximate" else None,
    unread=_eps_unread("svd", "approximate", "reducer=leverage_approx"),
)

#: SVD features: an exact SVD reads no random_state (ARPACK starts at rng=0).
_SVD_FEATURES = ReducerPlan(
    defaults={"svd": "exact", "eps": 1 / 3},
    deterministic=lambda p, data: p["svd"] == "exact",
    max_components=lambda p, n, d: min(n, d),
    row_blocks=lambda p: SKETCH if p["svd"] == "approximate" else None,
    unread=_eps_unread("svd", "approximate", "reducer=svd_approx"),
)


def _neighbours_then_d(p: Mapping, n: int, d: int) -> int:
    """d (a selection without repeats), once the k-NN graph can be built on n rows: at most
    n - 1 neighbours a row, as the class checks in ``fit``; asked when a run is planned, so that
    a run that cannot fit refuses before any work."""
    from kmdr.reducers._validation import check_count

    check_count(p["n_neighbors"], "n_neighbors", 1, n - 1, (n, d))
    return d


#: Laplacian scores: a deterministic k-NN graph and scores, shared across r.
_LAPLACIAN = ReducerPlan(
    defaults={"n_neighbors": 5, "t": "auto"},
    shared_key=lambda p, data: ("laplacian_scores", p["n_neighbors"], p["t"]),
    deterministic=always,
    shared_deterministic=always,
    max_components=_neighbours_then_d,
)


def _lle_dense(p: Mapping, data: DataFacts) -> bool:
    """True when scikit-learn's dense eigensolver runs (ARPACK starts from random_state): on
    dense data with eigen_solver="dense", or "auto" with n_samples <= 200 or r + 1 >= 10.
    Sparse data always take the sparse path's ARPACK solver."""
    if data.sparse:
        return False
    r = data.n_features if p["n_components"] is None else int(p["n_components"])
    dense_auto = data.n_samples <= 200 or r + 1 >= 10
    return p["eigen_solver"] == "dense" or (p["eigen_solver"] == "auto" and dense_auto)


#: Locally linear embedding: deterministic when the dense eigensolver runs.
_LLE = ReducerPlan(
    defaults={"eigen_solver": "auto"},
    deterministic=_lle_dense,
    max_components=None,  # the class also checks LLE is feasible on this shape and sparsity
)


def _ridge_key(p: Mapping, data: DataFacts) -> tuple:
    if p["scores"] == "approximate":
        return ("ridge_leverage_sketch", p["n_clusters"], p["eps"])
    # Dense: LeverageScoreSampler's and SVDFeatures' key, one thin SVD serves all three.
    return ("gram_svd",) if data.sparse else ("thin_svd",)


#: Ridge leverage sampling: exact scores share one thin SVD; approximate ones draw a sketch.
_RIDGE_LEVERAGE = ReducerPlan(
    defaults={"scores": "exact", "eps": 1 / 3},
    shared_key=_ridge_key,
    shared_deterministic=lambda p, data: p["scores"] == "exact",
    unread=_eps_unread("scores", "approximate", "reducer=ridge_leverage_approx"),
)

#: The baseline: k-means on all of A, nothing drawn.
_IDENTITY = ReducerPlan(deterministic=always)

#: The reducers that draw their whole reduction from random_state, with nothing shared across r
#: (one plan each: each has its own compat_version).
#: Each draws an operator from the shape alone and maps every row on its own, so it runs on row
#: blocks (``row_blocks``: rowwise) with the in-memory operator.


def _rowwise(params: Mapping) -> str:
    return ROWWISE


_SIGN = ReducerPlan(row_blocks=_rowwise)
_ACHLIOPTAS = ReducerPlan(row_blocks=_rowwise)
_GAUSSIAN = ReducerPlan(row_blocks=_rowwise)
_SPARSE_EMBEDDING = ReducerPlan(row_blocks=_rowwise)


def _sparsified_rows(params: Mapping) -> str | None:
    # the two-pass variant reads every original row again after clustering the sketch
    return None if params["second_pass"] else ROWWISE


_SPARSIFIED = ReducerPlan(
    defaults={"preconditioner": "dct", "second_pass": False, "rules": "kmdr"},
    max_components=lambda p, n, d: padded_dimension(d, p["preconditioner"]),
    row_blocks=_sparsified_rows,
)
_SRHT = ReducerPlan(max_components=lambda p, n, d: next_power_of_two(d), row_blocks=_rowwise)


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
        plan=_LEVERAGE,
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
        plan=_LEVERAGE,
    ),
    "sign": ReducerEntry(
        _M + "projections:SignRandomProjection",
        "RP",
        paper="bzmd14 Alg. 2",
        style=LineStyle("#d62728", "^"),
        aliases=("rp",),
        time_includes="drawing the d × r sign matrix and C = A R",
        plan=_SIGN,
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
        plan=_SVD_FEATURES,
    ),
    "svd_approx": ReducerEntry(
        _M + "svd:SVDFeatures",
        "ApprSVD",
        {"svd": "approximate"},
        "bzmd14 Alg. 3 + Lemma 4",
        style=LineStyle("#bcbd22", "v"),
        aliases=("appr_svd", "approx_svd"),
        time_includes="its own FastFrobeniusSVD at rank r per cell and C = A Z",
        plan=_SVD_FEATURES,
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
        plan=_LAPLACIAN,
    ),
    "sparse_embedding": ReducerEntry(
        _M + "sparse_embedding:SparseEmbedding",
        "SE",
        paper="lst17 Alg. 1",
        style=LineStyle("#ff7f0e", "*"),
        aliases=("se",),
        time_includes="drawing the sparse embedding (one nonzero per row of S) and C = A S",
        plan=_SPARSE_EMBEDDING,
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
        plan=_LLE,
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
        plan=_SPARSIFIED,
    ),
    "none": ReducerEntry(
        _M + "identity:IdentityReducer",
        "kMeans",
        paper="bzmd14 baseline (all features)",
        style=LineStyle("black", "", "--"),
        time_includes="input validation only; the clustering is Lloyd's k-means on all of A",
        baseline=True,
        plan=_IDENTITY,
    ),
    "achlioptas": ReducerEntry(
        _M + "projections:AchlioptasProjection",
        "Achlioptas RP",
        paper="report; Achlioptas 2001",
        time_includes="drawing the sparse d × r Achlioptas matrix and C = A R",
        plan=_ACHLIOPTAS,
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
        plan=_RIDGE_LEVERAGE,
    ),
    "gaussian": ReducerEntry(
        _M + "projections:GaussianProjection",
        "Gaussian RP",
        paper="report (Gaussian JL)",
        time_includes="drawing the d × r Gaussian matrix (numpy's Generator) and C = A R",
        plan=_GAUSSIAN,
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
        plan=_RIDGE_LEVERAGE,
    ),
    "srht": ReducerEntry(
        _M + "srht:SRHTProjection",
        "SRHT",
        paper="Ailon & Chazelle 2006 (FJLT); course report",
        aliases=("fjlt",),
        time_includes=(
            "random signs, a Hadamard transform of each row padded to a power of two, r columns"
        ),
        plan=_SRHT,
    ),
}


def builtin_classes() -> dict[str, str]:
    """Class name -> the module under ``kmdr.reducers`` that defines it, for every built-in
    class (what ``from kmdr.reducers import SVDFeatures`` imports on first access)."""
    out = {}
    for entry in BUILTIN_ENTRIES.values():
        module, name = entry.cls.split(":")
        out[name] = module.removeprefix(_M)
    return out


def declared_plan(module: str, name: str) -> ReducerPlan:
    """The plan declared for the built-in class ``module:name`` (the class's ``plan``)."""
    plans = {id(e.plan): e.plan for e in BUILTIN_ENTRIES.values() if e.cls == f"{module}:{name}"}
    if len(plans) != 1:
        raise LookupError(
            f"{module}:{name} has {len(plans)} plans declared in kmdr.reducers._builtins; "
            "declare its entries with one ReducerPlan"
        )
    return next(iter(plans.values()))
