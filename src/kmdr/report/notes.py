"""Text about one specific experiment, keyed by its name: why it has no data, what to know before
reading its figure. Prose only: nothing in the report decides anything by an experiment's name."""

from __future__ import annotations

__all__ = ["FIGURE_NOTES", "NO_DATA_WHY", "TIME_INTRO"]

#: Why an experiment of the papers has no data here (shown when it did not run).
NO_DATA_WHY = {
    "bmd09_table1": (
        "the NIPS count matrix and the Bio microarray data could not be obtained (see Deviations)"
    ),
    "bmd09_fig1": "the NIPS count matrix could not be obtained (see Deviations)",
    "lst17_rcv1": "RCV1 could not be obtained here (see Deviations)",
}

#: What a reader must know before reading a figure's claims.
FIGURE_NOTES = {
    "bzmd14_synth": (
        "On Synth the curves mostly show Lloyd's starts, not the reductions: from MATLAB's "
        "'sample' start (k random points, the paper's protocol) a run often ends with two of the "
        "five far-apart clusters merged and one split (P = 0.8, F thousands of times the optimum) "
        "and cannot leave that local optimum; on the full data 11 of 40 single starts (seeds "
        "0-39) reached P = 1, so about a quarter of 5-restart executions stay stuck, whichever the "
        "method. The same grid with k-means++ starts follows."
    ),
    "bzmd14_synth_kmeanspp": (
        "Same data, reducers, r-grid and 5 repetitions as `bzmd14_synth`; only `kmeans.init` is "
        "k-means++. With starts that do not merge clusters, every method recovers the five "
        "clusters exactly: this is the paper's statement that r ≈ 20 (here already r = 5) "
        "suffices on well-separated data, seen without the noise of the starts."
    ),
    "report_orl_projections": (
        "The course-project report (a 2020 reproduction of bmd09 and of the random-projection "
        "paper) compares, on the raw 112×92 ORL images (10304 features), k-means on A with A V_k, "
        "A Ω S (leverage sampling: exact scores, a randomized SVD, square-root scores) and A R "
        "(sign projection), beside Gaussian, Achlioptas and FJLT (SRHT) projections. Its protocol "
        "is followed here: k-means starts from the **first image of each class** (a "
        "label-informed start kmdr offers for this reproduction only), 30 iterations, one run; "
        "we average 10 repetitions where the report ran once. No numbers of it are recorded "
        "here to check against; the figure is ours, for comparison with the report's."
    ),
    "report_orl_projections_kmeanspp": (
        "The same projections and grid as `report_orl_projections` with k-means++ starts (5 "
        "restarts × 500 iterations) instead of the report's label-informed start: a variant, "
        "not the report's protocol."
    ),
    "lst17_sparse_text": (
        "**This is a synthetic stand-in with RCV1's shape and sparsity, not RCV1. Its numbers "
        "are NOT a reproduction of lst17's RCV1 panel**; they only show whether the methods "
        "behave as the paper describes on sparse text-like data. lst17 could not run SVD, LLE "
        "and LS on RCV1; here the data stay sparse and every method that runs at this size is "
        "drawn, three of them on a sub-grid of r (times measured on 2 shared cores, one thread): "
        "**SVD** (the exact truncated SVD of the CSR matrix by ARPACK) only for r ≤ 200, its "
        "cost growing about as r² (1.2 s at r = 10, 9 s at 100, 35 s at 200, 108 s at 300, and "
        "every repetition is timed on its own reduction: r = 300 alone would add 9 CPU-"
        "minutes); **PD** only for r ≤ 200, its reduction O(nnz r) plus a sparsified k-means "
        "that grows with r (r = 300: 39 s + 26 s per repetition, over a minute per cell at r ≥ "
        "1000), at chance accuracy at every r tried (each center coordinate is seen through "
        "about n r / d points, under one at r = 100). **LS** runs the whole grid (its 5-NN "
        "graph on the sparse rows takes about 45 s per repetition). **LLE** only for r ≤ 100, "
        "through its sparse path (scikit-learn's standard LLE with its ARPACK solver, on a "
        "12-NN graph of the CSR rows and a sparse (I − W)ᵀ(I − W); X is never densified, "
        "where scikit-learn's own LLE would need it dense, 5.9 GB): each repetition "
        "recomputes the neighbour graph and the weights (about 30 CPU-s) and the eigenproblem, "
        "which grows with r (6 CPU-s at r = 10, 25 s at r = 100): a cell's reduction took "
        "43 s at r = 10, 99 s at r = 50 and 209 s at r = 100 (wall, mean of 5 repetitions on "
        "the shared machine), so r ≥ 200 would add tens of minutes to `make reproduce`."
    ),
}


#: How a cell's time is charged, said once before the per-method list (what each reducer's own
#: time covers is its declaration's ``time_includes``: :func:`kmdr.reducers.reducer_entry`).
TIME_INTRO = (
    "A cell's time = reduction time + clustering time, both wall-clock (`blas_threads` in "
    "cells.csv says how many BLAS threads). Work that several cells share (one factorisation "
    "serving every r; `shared_key` in cells.csv) is computed once per repetition but its time "
    "is charged *in full* to every cell of that repetition that uses it, so each cell costs "
    "what it would alone. Work that draws nothing (an exact SVD, Laplacian scores, a "
    "deterministic embedding) gives the same result in every repetition: it is computed once "
    "for the clustering, and run again in every further repetition only to be timed, so every "
    "repetition's time is a measurement of its own (`reduce_timing` in cells.csv) and the "
    "spread across repetitions is real. "
    "Clustering time is Lloyd's k-means on C with all its restarts (`kmeans.n_init`), unless "
    "the method brings its own clustering."
)
