"""The theorems behind the reducers, checked where our data can check them.

Three things live here:

* :data:`BOUNDS`: each quality-of-approximation theorem (bmd09 Thm 1, bzmd14 Thms 11-13,
  lst17 Thm 1) with its factor, the number of dimensions r it needs, its success probability, and
  :func:`bound_applies` to say whether one of our r values meets that requirement;
* :func:`approximation_ratios`: the empirical ratio F(partition found on C) / F(best partition
  of A known) per method and r, from ``cells.csv`` (the lowest F of any cell of that dataset and
  setting), with :func:`estimated_gamma`, the approximation factor of each k-means run on C
  estimated from ``objective_reduced``;
* the sampling lemma (bzmd14 Lemma 6): the singular values of ``V_k^T Ω S`` for leverage-score
  sampling with rescaling, against ``1 ± eps(r)``. ``python -m kmdr.report.theory --results DIR``
  computes them on the available datasets over a grid of r and several seeds and writes
  ``DIR/theory/sampling_lemma.csv`` and ``DIR/theory/sampling_lemma.png``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._io import atomic_write_text

#: The accuracy bzmd14's experiments fix for the approximate SVD (§7.1); bounds are quoted at it.
EPS_EXPERIMENTS = 1.0 / 3.0
#: Failure probability used for the sampling lemma's eps(r).
LEMMA6_DELTA = 0.1


# --------------------------------------------------------------------------------------------
# The theorems
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bound:
    """One quality-of-approximation theorem: ``F(partition from C) <= factor * F_opt``.

    ``factor(eps, gamma)`` is the theorem's factor for a gamma-approximate k-means on C;
    ``r_required(k, eps)`` the r the theorem needs, or None when its constants are unspecified;
    ``r_equals_k`` marks theorems that are about exactly r = k features.
    """

    key: str
    title: str
    methods: tuple[str, ...]
    factor_text: str
    factor: Callable[[float, float], float]
    r_text: str
    r_required: Callable[[int, float], float] | None
    probability: str
    notes: str = ""
    r_equals_k: bool = False


def _r_thm11(k: int, eps: float) -> float:
    # bzmd14 Algorithm 1 step 2: r = c1 * 4 k ln(200 k) / eps^2, c1 = 16 * 10^6 (end of the proof).
    return 16e6 * 4 * k * math.log(200 * k) / eps**2


def _r_thm12(k: int, eps: float) -> float:
    # bzmd14 Algorithm 2 step 1: r = c2 k / eps^2, c2 = 3330 * 15^2 (end of the proof).
    return 3330 * 15**2 * k / eps**2


BOUNDS: tuple[Bound, ...] = (
    Bound(
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
    ),
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
        r_required=_r_thm11,
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
        r_required=_r_thm12,
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
    Bound(
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
    ),
)


def bounds_for(method: str) -> list[Bound]:
    """The theorems that speak about ``method`` (a label as in ``cells.csv``)."""
    return [b for b in BOUNDS if method in b.methods]


def bound_applies(bound: Bound, r: int, k: int, eps: float = EPS_EXPERIMENTS) -> str:
    """Whether ``r`` meets ``bound``'s requirement: 'yes', 'no (...)' or 'unknown (...)'."""
    if bound.r_required is None:
        return "unknown (constants unspecified)"
    need = bound.r_required(k, eps)
    if bound.r_equals_k:
        return "yes" if int(r) == int(k) else f"no (theorem is for r = k = {k})"
    if r >= need:
        return "yes"
    return f"no (needs r ≥ {need:.3g})"


# --------------------------------------------------------------------------------------------
# Empirical approximation ratio
# --------------------------------------------------------------------------------------------

#: Above this estimated γ no bound is judged: a factor 1 + (2 + ε)γ is already > 5, and the
#: ratio then measures Lloyd's local optimum rather than the reduction.
GAMMA_LARGE = 2.0

RATIO_COLUMNS = [
    "experiment",
    "setting",
    "dataset",
    "method",
    "baseline",
    "r",
    "k",
    "n_repetitions",
    "ratio_max",
    "ratio_median",
    "ratio_min",
    "gamma_defined",
    "gamma_at_worst",
    "gamma_max",
    "f_best",
    "f_best_method",
]


def _setting_columns(cells: pd.DataFrame) -> list[str]:
    from kmdr.results.points import SETTING_COLUMNS

    return [c for c in SETTING_COLUMNS if c in cells.columns and c != "dataset"]


def clusters_itself(reducer_name) -> bool:
    """Whether the registry reducer ``reducer_name`` clusters its own output (a ``cluster``
    method, as sparsified k-means): its partition is not a k-means run on C, so γ̂ is not
    defined for it. Unknown names (a plug-in not installed) are taken as clustered by k-means."""
    from kmdr.reducers._registry import REDUCERS

    try:
        cls = REDUCERS[str(reducer_name)].cls
    except (KeyError, ValueError, TypeError):
        return False
    return callable(getattr(cls, "cluster", None))


def estimated_gamma(cells: pd.DataFrame) -> pd.Series:
    """Per row, γ̂ = F on C of its partition / the lowest F on C among the rows of its
    (method, r): the approximation factor of the k-means run on the reduced data, estimated
    against the best partition of that reduced data we know (``objective_reduced``).

    The best known is ≥ the optimum, so γ̂ is a *lower* estimate of γ. For a deterministic
    reducer every repetition reduces to the same C, and γ̂ compares partitions of one matrix; for
    a randomized one each repetition has its own C, and γ̂ also carries that variation. NaN where
    ``objective_reduced`` is missing, the group holds a single repetition (nothing to compare), or
    the reducer clusters its own output (:func:`clusters_itself`: no k-means run on C to rate).
    """
    if "objective_reduced" not in cells:
        return pd.Series(np.nan, index=cells.index)
    f = cells["objective_reduced"].astype(float)
    keys = ["method", "r"]
    best = f.groupby([cells[c] for c in keys]).transform("min")
    count = f.groupby([cells[c] for c in keys]).transform("count")
    gamma = f / best
    defined = _gamma_defined(cells)
    return gamma.where((count >= 2) & (best > 0) & np.isfinite(best) & defined)


def _gamma_defined(cells: pd.DataFrame) -> pd.Series:
    """Per row: whether γ̂ means anything (its partition is a k-means run on C)."""
    if "reducer_name" not in cells:
        return pd.Series(True, index=cells.index)
    names = cells["reducer_name"].astype(str)
    own = {n: clusters_itself(n) for n in names.unique()}
    return ~names.map(own).astype(bool)


def approximation_ratios(cells: pd.DataFrame) -> pd.DataFrame:
    """F(partition from C) / F(best partition of A known), per (experiment, setting, dataset,
    method, r), with the estimated γ of each k-means run beside it.

    The denominator is the lowest ``objective`` (F measured on A) of ANY cell of the same
    experiment, setting (the columns of :data:`kmdr.results.points.SETTING_COLUMNS`: a
    multirun may hold several) and dataset: any method, any r, any repetition, the kMeans
    baseline included. No ratio is therefore below 1, and each is a lower estimate of F / F_opt:
    it can understate the true ratio, never overstate it, so a ratio within a bound does not
    confirm the bound. ``gamma_at_worst`` is :func:`estimated_gamma` of the repetition giving
    ``ratio_max`` (the worst one), ``gamma_max`` the largest over the repetitions;
    ``gamma_defined`` is False where γ̂ has no meaning (the reducer clusters its own output);
    ``baseline`` marks kMeans on A.
    """
    if cells is None or len(cells) == 0 or "objective" not in cells:
        return pd.DataFrame(columns=RATIO_COLUMNS)
    cells = cells.copy()
    if "experiment" not in cells:
        cells["experiment"] = ""
    setting_cols = _setting_columns(cells)
    from kmdr.results.points import setting_labels

    labels = setting_labels(cells) if setting_cols else None
    cells["_setting"] = "" if labels is None else labels.fillna("")
    rows = []
    group_keys = ["experiment", "_setting", "dataset", *setting_cols]
    for key, group in cells.groupby(group_keys, sort=True, dropna=False):
        exp, setting, ds = key[:3]
        f_all = group["objective"].astype(float)
        if not f_all.notna().any() or not np.isfinite(f_all.min()) or f_all.min() <= 0:
            continue
        f_best = float(f_all.min())
        best_method = str(group.loc[f_all.idxmin(), "method"])
        gamma = estimated_gamma(group)
        defined = _gamma_defined(group)
        baseline = group.get("reducer_name", pd.Series("", index=group.index)) == "none"
        for (method, r), g in group.groupby(["method", "r"], sort=True):
            ratio = g["objective"].astype(float) / f_best
            if not ratio.notna().any():
                continue
            k = int(g["n_clusters"].iloc[0]) if "n_clusters" in g else -1
            rows.append(
                {
                    "experiment": exp,
                    "setting": setting,
                    "dataset": ds,
                    "method": method,
                    "baseline": bool(baseline.loc[g.index].all()),
                    "r": int(r),
                    "k": k,
                    "n_repetitions": int(ratio.notna().sum()),
                    "ratio_max": float(ratio.max()),
                    "ratio_median": float(ratio.median()),
                    "ratio_min": float(ratio.min()),
                    "gamma_defined": bool(defined.loc[g.index].all()),
                    "gamma_at_worst": float(gamma.loc[ratio.idxmax()]),
                    "gamma_max": float(gamma.loc[g.index].max()),
                    "f_best": f_best,
                    "f_best_method": best_method,
                }
            )
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)


def bound_at_gamma(bound: Bound, gamma: float, eps: float = EPS_EXPERIMENTS) -> str:
    """The bound's factor at the estimated γ, or why it cannot be judged (γ unknown or large)."""
    if not np.isfinite(gamma):
        return "γ unknown"
    if gamma > GAMMA_LARGE:
        return f"cannot apply: γ̂ = {gamma:.3g} > {GAMMA_LARGE:g}"
    return f"{bound.factor(eps, gamma):.3g}"


# --------------------------------------------------------------------------------------------
# The sampling lemma
# --------------------------------------------------------------------------------------------


def lemma6_min_r(k: int, delta: float = LEMMA6_DELTA) -> float:
    """bzmd14 Lemma 6 needs ``4 k ln(2k/δ) < r`` (and ``r <= d``)."""
    return 4 * k * math.log(2 * k / delta)


def lemma6_eps(k: int, r: int, delta: float = LEMMA6_DELTA) -> float:
    """bzmd14 Lemma 6: w.p. ≥ 1 − δ, ``1 − eps <= σ_i²(V_k^T Ω S) <= 1 + eps``, eps as returned."""
    return math.sqrt(4 * k * math.log(2 * k / delta) / r)


def leverage_probabilities(V: np.ndarray) -> np.ndarray:
    """bzmd14 Definition 5: ``p_i = ||V_(i)||² / ||V||_F²`` (= ||V_(i)||²/k, V orthonormal)."""
    row = np.einsum("ij,ij->i", V, V)
    return row / row.sum()


def leverage_sample(
    V: np.ndarray, r: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Reference RandomizedSampling(V, r): r i.i.d. draws with replacement, scales 1/sqrt(r p_i)."""
    p = leverage_probabilities(V)
    selected = rng.choice(V.shape[0], size=r, replace=True, p=p)
    return selected, 1.0 / np.sqrt(r * p[selected])


def sampled_singular_values(V: np.ndarray, selected, scales) -> np.ndarray:
    """Singular values (descending) of ``V^T Ω S``: column t is ``scales[t] * V[selected[t]]``."""
    selected = np.asarray(selected, dtype=int)
    scales = np.asarray(scales, dtype=float)
    M = V[selected, :].T * scales[None, :]
    return np.linalg.svd(M, compute_uv=False)


def top_right_singular_vectors(X, k: int) -> np.ndarray:
    """V_k (d x k, orthonormal columns) of X, dense or sparse.

    Uses the eigenvectors of the smaller Gram matrix (d x d, or n x n mapped back through X^T and
    re-orthonormalized), which is much cheaper than a full SVD when one side is small.
    """
    if hasattr(X, "toarray"):
        X = X.toarray()
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    if d <= n:
        _, vecs = np.linalg.eigh(X.T @ X)
        return vecs[:, ::-1][:, :k].copy()
    _, u = np.linalg.eigh(X @ X.T)
    v, _ = np.linalg.qr(X.T @ u[:, ::-1][:, :k])
    return v


def _project_sampler(X, k: int):
    """kmdr's own leverage reducer as ``(draw, V_k)``: ``draw(r, seed) -> (selected, scales)``.

    The reducer samples from the same ``V_k`` (d x k) the singular values are computed with.
    Returns None when the reducer or the attributes it is expected to expose are missing; the
    caller then uses :func:`leverage_sample`.
    """
    try:
        from kmdr.reducers import SharedWork, SVDResult, make_reducer

        probe = make_reducer("leverage", 2, n_clusters=k, random_state=0)
        key = probe.shared_key(X)
    except Exception:
        return None
    # The reducer reads only the top k right singular vectors from its shared SVD; a rank-k
    # decomposition from the cheaper Gram route is handed to it through the shared-work contract.
    V = top_right_singular_vectors(X, k)
    shared = SharedWork(
        key=key, value=SVDResult(np.ones(k), np.ascontiguousarray(V.T)), seconds=0.0
    )

    def draw(r: int, seed: int):
        red = make_reducer("leverage", r, n_clusters=k, random_state=seed)
        red.fit(X, shared=shared)
        return np.asarray(red.selected_features_), np.asarray(red.scales_)

    try:
        draw(3, 0)
    except Exception:
        return None
    return draw, V


LEMMA_COLUMNS = [
    "dataset",
    "n_samples",
    "n_features",
    "k",
    "r",
    "seed",
    "sampler",
    "sigma_min",
    "sigma_max",
    "sigma2_min",
    "sigma2_max",
    "delta",
    "eps_lemma6",
    "lemma6_applies",
    "within_bound",
]


def sampling_lemma_table(
    X, k: int, r_grid, seeds, dataset: str = "", use_project_sampler: bool = True
) -> pd.DataFrame:
    """Singular values of ``V_k^T Ω S`` for every r in ``r_grid`` and seed in ``seeds``.

    ``within_bound`` says whether every σ_i² lies in ``[1 − eps, 1 + eps]`` with bzmd14 Lemma 6's
    eps(r) at δ = :data:`LEMMA6_DELTA`; ``lemma6_applies`` whether ``4k ln(2k/δ) < r <= d``.
    """
    project = _project_sampler(X, k) if use_project_sampler else None
    if project is not None:
        draw, V = project
        sampler = "kmdr.reducers leverage"
    else:
        draw, V = None, top_right_singular_vectors(X, k)
        sampler = "reference (bzmd14 Def. 5)"
    d = V.shape[0]
    rows = []
    for r in r_grid:
        r = int(r)
        eps = lemma6_eps(k, r)
        applies = lemma6_min_r(k) < r <= d
        for seed in seeds:
            if draw is not None:
                sel, scales = draw(r, int(seed))
            else:
                sel, scales = leverage_sample(V, r, np.random.default_rng(int(seed)))
            s = sampled_singular_values(V, sel, scales)
            s = np.concatenate([s, np.zeros(max(0, k - s.size))])[:k]
            s2 = s**2
            rows.append(
                {
                    "dataset": dataset,
                    "n_samples": int(X.shape[0]),
                    "n_features": int(d),
                    "k": int(k),
                    "r": r,
                    "seed": int(seed),
                    "sampler": sampler,
                    "sigma_min": float(s.min()),
                    "sigma_max": float(s.max()),
                    "sigma2_min": float(s2.min()),
                    "sigma2_max": float(s2.max()),
                    "delta": LEMMA6_DELTA,
                    "eps_lemma6": eps,
                    "lemma6_applies": bool(applies),
                    "within_bound": bool(s2.min() >= 1 - eps and s2.max() <= 1 + eps),
                }
            )
    return pd.DataFrame(rows, columns=LEMMA_COLUMNS)


#: Datasets the lemma is computed on (kmdr registry names), in the order they are reported.
LEMMA_DATASETS = ("synth", "usps", "coil20", "orl", "pie")
R_GRID = (5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000)
R_GRID_QUICK = (5, 20, 100, 500, 2000, 10000)


def _load(name: str):
    from kmdr.datasets import load_dataset

    ds = load_dataset(name)
    return ds.X, int(ds.n_clusters)


def plot_sampling_lemma(table: pd.DataFrame, path: Path) -> None:
    """One panel per dataset: σ²_min and σ²_max of V_k^T Ω S over r (median, range over seeds)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(table["dataset"]))
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(3.2 * len(datasets), 3.0), squeeze=False, sharey=True
    )
    for ax, ds in zip(axes[0], datasets, strict=True):
        t = table[table["dataset"] == ds]
        g = t.groupby("r")
        r = np.array(sorted(g.groups))
        for col, label, colour in (
            ("sigma2_max", "σ²_max", "tab:red"),
            ("sigma2_min", "σ²_min", "tab:blue"),
        ):
            med = g[col].median().reindex(r)
            ax.fill_between(
                r, g[col].min().reindex(r), g[col].max().reindex(r), color=colour, alpha=0.2
            )
            ax.plot(r, med, "o-", ms=3, color=colour, label=label)
        eps = g["eps_lemma6"].first().reindex(r)
        ax.plot(r, 1 + eps, "k--", lw=1, label="1 ± eps (Lemma 6)")
        ax.plot(r, 1 - eps, "k--", lw=1)
        k = int(t["k"].iloc[0])
        d = int(t["n_features"].iloc[0])
        ax.axvline(lemma6_min_r(k), color="grey", lw=0.8, ls=":")
        ax.axvline(d, color="grey", lw=0.8, ls="-.")
        ax.set_xscale("log")
        ax.set_ylim(-0.1, 3.0)
        ax.set_title(f"{ds} (k = {k}, d = {d})", fontsize=9)
        ax.set_xlabel("r")
    axes[0][0].set_ylabel("σ_i² of V_kᵀ Ω S")
    axes[0][0].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_sampling_lemma(
    results: Path, quick: bool = False, datasets=LEMMA_DATASETS, loader=_load
) -> pd.DataFrame:
    """Compute the lemma table on every dataset that loads, write CSVs and the figure."""
    out = Path(results) / "theory"
    out.mkdir(parents=True, exist_ok=True)
    r_grid = R_GRID_QUICK if quick else R_GRID
    seeds = range(3) if quick else range(10)
    tables, skipped = [], []
    for name in datasets:
        start = time.perf_counter()
        try:
            X, k = loader(name)
        except Exception as exc:  # DatasetUnavailable, ImportError, ...
            skipped.append({"dataset": name, "reason": f"{type(exc).__name__}: {exc}"})
            print(f"theory: {name} skipped ({type(exc).__name__}: {exc})", file=sys.stderr)
            continue
        tables.append(sampling_lemma_table(X, k, r_grid, seeds, dataset=name))
        print(f"theory: {name} done in {time.perf_counter() - start:.1f}s", file=sys.stderr)
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=LEMMA_COLUMNS)
    atomic_write_text(out / "sampling_lemma.csv", table.to_csv(index=False))
    skipped_table = pd.DataFrame(skipped, columns=["dataset", "reason"])
    atomic_write_text(out / "sampling_lemma_skipped.csv", skipped_table.to_csv(index=False))
    if len(table):
        plot_sampling_lemma(table, out / "sampling_lemma.png")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kmdr.report.theory",
        description="Compute the sampling lemma's singular values into RESULTS/theory/.",
    )
    parser.add_argument("--results", default="results", type=Path)
    parser.add_argument("--quick", action="store_true", help="fewer r values and seeds")
    parser.add_argument("--datasets", nargs="*", default=list(LEMMA_DATASETS))
    args = parser.parse_args(argv)
    table = run_sampling_lemma(args.results, quick=args.quick, datasets=args.datasets)
    print(f"theory: {len(table)} rows -> {args.results / 'theory' / 'sampling_lemma.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
