"""The run config the runner's tests build on: the keys they all share, written once."""

from __future__ import annotations


def synth_run(results_dir, name: str, shape: tuple[int, int, int], **keys) -> dict:
    """A run config named ``name`` on a small synth dataset of ``shape`` (samples, features,
    clusters), writing under ``results_dir``: one worker, one BLAS thread, no figures, no progress
    bar. ``keys`` give the rest (reducers, r_grid, repeats, seed, kmeans, ...) and may override any
    of these."""
    n_samples, n_features, n_clusters = shape
    return {
        "name": name,
        "dataset": {
            "name": "synth",
            "params": {"n_samples": n_samples, "n_features": n_features, "n_clusters": n_clusters},
        },
        "n_jobs": 1,
        "blas_threads": 1,
        "results_dir": str(results_dir),
        "figures": False,
        "progress": False,
        **keys,
    }


def run_alone(experiment, execution=None, output=None, *, dataset=None):
    """Run ``experiment`` in a session of its own, as a script does (``with Session(execution)
    as session: session.run(experiment, output)``): its RunOutcome."""
    from kmdr.engine.session import Session

    with Session(execution) as session:
        return session.run(experiment, output, dataset=dataset)
