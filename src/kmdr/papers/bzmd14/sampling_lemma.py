"""``kind: sampling_lemma``: bzmd14 Lemma 6 (bmd09 Lemma 1) on one dataset.

For every r of the r-grid and ``repeats`` seeds, the singular values of ``V_k^T Omega S`` (the
top-k right singular vectors, sampled and rescaled by kmdr's own leverage sampler) against the
lemma's ``1 +- eps(r)``; written to ``<results_dir>/<name>/sampling_lemma.csv`` with its figure.
``python -m kmdr.report.theory`` computes the same table over the report's datasets.

    kmdr kind=sampling_lemma name=lemma_orl dataset=orl 'r_grid=[50,500,5000]' repeats=10
"""

from __future__ import annotations

from kmdr._io import atomic_write_text

__all__ = ["SAMPLING_LEMMA", "SamplingLemmaKind"]


class SamplingLemmaKind:
    """The ``sampling_lemma`` experiment kind."""

    name = "sampling_lemma"
    writes_cells = False

    def run(self, ctx) -> None:
        from threadpoolctl import threadpool_limits

        from kmdr.report.theory import plot_sampling_lemma, sampling_lemma_table

        spec = ctx.spec
        with threadpool_limits(limits=ctx.parallelism.blas_threads):
            table = sampling_lemma_table(
                ctx.X, ctx.n_clusters, spec.r_grid, range(spec.repeats), dataset=spec.dataset
            )
        atomic_write_text(ctx.store.root / "sampling_lemma.csv", table.to_csv(index=False))
        if spec.figures:
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
