"""bzmd14 Lemma 6 (bmd09 Lemma 1 states the same kind of bound): the singular values of
``V_k^T Omega S`` for leverage-score sampling with rescaling, against the lemma's ``1 +- eps(r)``.

Two ways to compute it:

* ``python -m kmdr.papers.bzmd14.sampling_lemma --results DIR`` (``make reproduce``): on the
  datasets of the report (:data:`LEMMA_DATASETS`) over a grid of r (:data:`R_GRID`) and several
  seeds, into ``DIR/theory/sampling_lemma.csv`` and ``DIR/theory/sampling_lemma.png``, which the
  report's theory section reads (:mod:`kmdr.papers.bzmd14.lemma_section`);
* ``kind: sampling_lemma``, an experiment kind, on one dataset: for every r of the r-grid and
  ``repeats`` seeds, into ``<results_dir>/<name>/sampling_lemma.csv`` with its figure::

      kmdr kind=sampling_lemma name=lemma_orl dataset=orl 'r_grid=[50,500,5000]' repeats=10

The draws are kmdr's own leverage sampler's (:func:`_project_sampler`) where it can be driven,
else the reference sampler of bzmd14 Definition 5 (:func:`leverage_sample`).
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._errors import CommandParser
from kmdr._io import atomic_write_text
from kmdr.config.checks import check_rank

__all__ = [
    "LEMMA6_DELTA",
    "LEMMA_COLUMNS",
    "LEMMA_DATASETS",
    "R_GRID",
    "R_GRID_QUICK",
    "SAMPLING_LEMMA",
    "SamplingLemmaKind",
    "lemma6_eps",
    "lemma6_min_r",
    "leverage_probabilities",
    "leverage_sample",
    "main",
    "plot_sampling_lemma",
    "run_sampling_lemma",
    "sampled_singular_values",
    "sampling_lemma_table",
    "top_right_singular_vectors",
]

#: Failure probability used for the sampling lemma's eps(r).
LEMMA6_DELTA = 0.1


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
    """Compute the lemma table on every dataset that loads, write CSVs and the figure; with one
    BLAS/OpenMP thread, as cells are (the singular values' last bits depend on the count)."""
    from kmdr.engine.worker import process_state

    with process_state().threads(1):
        return _run_sampling_lemma(results, quick, datasets, loader)


def _run_sampling_lemma(results: Path, quick: bool, datasets, loader) -> pd.DataFrame:
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
    parser = CommandParser(
        prog="python -m kmdr.papers.bzmd14.sampling_lemma",
        description="Compute the sampling lemma's singular values into RESULTS/theory/.",
    )
    parser.add_argument("--results", default="results", type=Path)
    parser.add_argument("--quick", action="store_true", help="fewer r values and seeds")
    parser.add_argument("--datasets", nargs="*", default=list(LEMMA_DATASETS))
    args = parser.parse_args(argv)
    table = run_sampling_lemma(args.results, quick=args.quick, datasets=args.datasets)
    print(f"theory: {len(table)} rows -> {args.results / 'theory' / 'sampling_lemma.csv'}")
    return 0


class SamplingLemmaKind:
    """The ``sampling_lemma`` experiment kind."""

    name = "sampling_lemma"
    writes_cells = False
    #: Every r of the grid with ``repeats`` draws, seeded 0 to repeats - 1 (not by ``seed``):
    #: no reducers or k-means.
    reads = ("dataset", "r_grid", "repeats", "blas_threads")

    def check_against_data(self, spec, n_samples, n_features, n_clusters, *, sparse=False):
        """The data's top k singular vectors are taken: k at most min(n, d)."""
        check_rank(spec, n_samples, n_features, n_clusters, "the sampling lemma")

    def run(self, ctx) -> None:
        spec = ctx.experiment
        # computed in the run's process with the experiment's blas_threads, which the runner
        # pins before a kind runs and gives back after (the last bits depend on the count)
        table = sampling_lemma_table(
            ctx.X, ctx.n_clusters, spec.r_grid, range(spec.repeats), dataset=spec.dataset.name
        )
        atomic_write_text(ctx.store.root / "sampling_lemma.csv", table.to_csv(index=False))
        if ctx.output.figures:
            plot_sampling_lemma(table, ctx.store.root / "figures" / f"{spec.name}.png")
        ctx.record.update(
            expected_cells=[],
            cells_done=[],
            sampling_lemma={
                "rows": len(table),
                "within_bound": int(table["within_bound"].sum()),
                "lemma_applies": int(table["lemma6_applies"].sum()),
            },
        )


SAMPLING_LEMMA = SamplingLemmaKind()


if __name__ == "__main__":
    raise SystemExit(main())
