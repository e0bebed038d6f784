"""``kind: leverage_scores``: bmd09 Figure 1, the leverage scores of every feature (term) and the
features drawn by one leverage-score sample of ``leverage.r`` columns.

Writes ``<results_dir>/<experiment>/leverage_scores.csv`` with columns ``term``, ``score`` (the
leverage score ``||Z_(i)||^2``, Z the top-k right singular vectors; they sum to k),
``times_drawn`` (how often feature i was drawn in the one sample; draws are with replacement),
then ``probability`` (``score / k``) and ``feature`` (the column index). Rows are in the
data's column order.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pandas as pd

from kmdr._io import atomic_write_text
from kmdr.config.checks import check_rank
from kmdr.config.seeds import cell_seed, stream_seeds

__all__ = ["LEVERAGE_SCORES", "LeverageScoresKind", "leverage_scores_table"]


def leverage_scores_table(
    X, n_clusters: int, r: int, *, reducer: str = "leverage", seed: int = 0, feature_names=None
) -> tuple[pd.DataFrame, float]:
    """The table of ``leverage_scores.csv`` and the seconds the fit took."""
    from kmdr.reducers import make_reducer

    red_seed, _ = stream_seeds(seed)
    sampler = make_reducer(reducer, r, n_clusters=n_clusters, random_state=red_seed)
    start = time.perf_counter()
    sampler.fit(X)
    seconds = time.perf_counter() - start
    d = X.shape[1]
    names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(d)]
    table = pd.DataFrame(
        {
            "term": names,
            "score": np.asarray(sampler.leverage_scores_, dtype=float),
            "times_drawn": np.bincount(np.asarray(sampler.selected_features_), minlength=d),
            "probability": np.asarray(sampler.probabilities_, dtype=float),
            "feature": np.arange(d),
        }
    )
    return table, seconds


class LeverageScoresKind:
    """The ``leverage_scores`` experiment kind (bmd09 Figure 1)."""

    name = "leverage_scores"
    writes_cells = False
    #: One leverage-score sample of ``leverage.r`` columns drawn with ``leverage.reducer``: no
    #: reducers, grid, repetitions or k-means.
    reads = ("dataset", "seed", "leverage", "blas_threads")

    def check_against_data(self, spec, n_samples, n_features, n_clusters, *, sparse=False):
        """The data's top k singular vectors are taken: k at most min(n, d)."""
        check_rank(spec, n_samples, n_features, n_clusters, "leverage scores")

    def run(self, ctx) -> None:
        spec = ctx.experiment
        seed = cell_seed(spec.seed, spec.dataset.name, spec.leverage.reducer, spec.leverage.r, 0)
        # computed in the run's process with the experiment's blas_threads, which the runner
        # pins before a kind runs and gives back after (the last bits depend on the count)
        table, seconds = leverage_scores_table(
            ctx.X,
            ctx.n_clusters,
            spec.leverage.r,
            reducer=spec.leverage.reducer,
            seed=seed,
            feature_names=getattr(ctx.dataset, "feature_names", None),
        )
        buf = io.StringIO()
        table.to_csv(buf, index=False)
        atomic_write_text(ctx.store.root / "leverage_scores.csv", buf.getvalue())
        top = table.sort_values("score", ascending=False).head(15)
        ctx.record.update(
            expected_cells=[],
            cells_done=[],
            leverage_scores={
                "reducer": spec.leverage.reducer,
                "r": spec.leverage.r,
                "seed": seed,
                "fit_seconds": seconds,
                "distinct_drawn": int((table["times_drawn"] > 0).sum()),
                "top_terms": top["term"].tolist(),
            },
        )


LEVERAGE_SCORES = LeverageScoresKind()
