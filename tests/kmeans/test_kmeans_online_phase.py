"""MATLAB's online phase of k-means (``kmeans.online_phase``): checked against a brute-force
enumeration of single-point moves and a literal transcription of the documented rule; off, every
result and every cell id are what they were without the option."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

import _command as command
from kmdr.kmeans.lloyd import kmeans
from kmdr.kmeans.online_phase import online_phase
from kmdr.results.records import identity_id


def _objective(X, labels, k):
    """Sum of squared distances to the centroids, computed from scratch."""
    return sum(
        ((X[labels == j] - X[labels == j].mean(axis=0)) ** 2).sum()
        for j in range(k)
        if (labels == j).any()
    )


def _tiny(seed, n=14, d=2, k=3):
    """Random points and a random partition with no empty cluster."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    labels = rng.integers(0, k, n)
    labels[:k] = np.arange(k)
    return X, labels, k


def _matlab_reference(X, labels, k, max_passes):
    """The documented rule, transcribed as stated: at every step, compute for EVERY point the
    change of the objective of moving it to each cluster (n_j/(n_j+1)|x-c_j|^2 against the
    n_i/(n_i-1)|x-c_i|^2 of leaving its own), take among the points whose best move lowers it the
    first one after the last moved (cyclically), move it, update both centroids; a pass ends when
    the cycle wraps. Returns the labels, the moves (point, from, to) and the objective after each
    (computed from scratch)."""
    labels = labels.copy()
    n = len(labels)
    counts = np.bincount(labels, minlength=k).astype(float)
    centers = np.array([X[labels == j].mean(axis=0) for j in range(k)])
    last, passes, history = -1, 1, []
    while True:
        sq = ((X[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        delta = counts / (counts + 1) * sq
        for i in range(n):
            own = labels[i]
            if counts[own] > 1:
                delta[i, own] = counts[own] / (counts[own] - 1) * sq[i, own]
        best = delta.argmin(axis=1)
        improving = [i for i in range(n) if delta[i, labels[i]] > delta[i, best[i]]]
        if not improving:
            return labels, history, passes, True
        after = [i for i in improving if i > last]
        i = after[0] if after else improving[0]
        if i <= last:  # wrapped: a new pass
            if passes == max_passes:
                return labels, history, passes, False
            passes += 1
        own, new = labels[i], best[i]
        counts[new] += 1
        counts[own] -= 1
        centers[new] += (X[i] - centers[new]) / counts[new]
        centers[own] -= (X[i] - centers[own]) / counts[own]
        labels[i] = new
        last = i
        history.append((i, own, new, _objective(X, labels, k)))


@pytest.mark.parametrize("seed", range(12))
def test_no_single_move_lowers_the_objective_at_the_end(seed):
    X, start, k = _tiny(seed)
    result = online_phase(X, start, k, max_passes=100)
    assert result.converged
    final = _objective(X, result.labels, k)
    assert final <= _objective(X, start, k) + 1e-12
    # Brute force: every point to every other cluster (a point alone in its cluster stays, as
    # MATLAB keeps k clusters).
    for i in range(len(X)):
        if (result.labels == result.labels[i]).sum() == 1:
            continue
        for j in range(k):
            if j != result.labels[i]:
                moved = result.labels.copy()
                moved[i] = j
                assert _objective(X, moved, k) >= final - 1e-9, (i, j)
    # the centers returned are the centroids of the labels returned
    for j in range(k):
        np.testing.assert_allclose(result.cluster_centers[j], X[result.labels == j].mean(axis=0))


@pytest.mark.parametrize("seed", range(12))
def test_same_moves_as_the_literal_rule_and_the_objective_only_falls(seed):
    X, start, k = _tiny(seed, n=16, d=3, k=4)
    labels, history, _passes, converged = _matlab_reference(X, start, k, max_passes=100)
    result = online_phase(X, start, k, max_passes=100)
    np.testing.assert_array_equal(result.labels, labels)
    assert result.n_moves == len(history)
    assert result.converged == converged
    objective = [_objective(X, start, k)] + [h[3] for h in history]
    assert all(b < a for a, b in itertools.pairwise(objective)), objective
    assert all(old != new for _, old, new, _ in history)
    # input labels are not modified
    assert not np.shares_memory(result.labels, start)


def test_some_starts_do_move():
    # The tests above would pass for a phase that never moves: on these starts it must.
    moves = [online_phase(*_tiny(s)[:2], 3, max_passes=100).n_moves for s in range(12)]
    assert sum(m > 0 for m in moves) >= 6


def test_pass_budget_stops_it():
    X, start, k = _tiny(3, n=30, d=2, k=4)
    full = _matlab_reference(X, start, k, max_passes=100)
    assert full[2] >= 2  # needs more than one pass
    capped = online_phase(X, start, k, max_passes=1)
    ref = _matlab_reference(X, start, k, max_passes=1)
    assert not capped.converged and not ref[3]
    np.testing.assert_array_equal(capped.labels, ref[0])
    assert online_phase(X, start, k, max_passes=0).n_moves == 0


def test_sparse_input_gives_the_dense_result():
    X, _y = make_blobs(120, centers=4, n_features=6, cluster_std=4.0, random_state=1)
    X[np.abs(X) < 2] = 0.0
    start = np.random.default_rng(0).integers(0, 4, 120)
    dense = online_phase(X, start, 4, max_passes=50)
    sparse = online_phase(sp.csr_matrix(X), start, 4, max_passes=50)
    assert dense.n_moves > 0
    np.testing.assert_array_equal(dense.labels, sparse.labels)
    a = kmeans(X, 4, init="random", tol=0, random_state=3, online_phase=True)
    b = kmeans(sp.csr_matrix(X), 4, init="random", tol=0, random_state=3, online_phase=True)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.inertia == pytest.approx(b.inertia, rel=1e-12)


@pytest.fixture(scope="module")
def overlapping():
    X, _ = make_blobs(300, centers=6, n_features=5, cluster_std=3.0, random_state=0)
    return X


def test_each_restart_ends_no_worse_than_its_batch_phase(overlapping):
    # The restarts draw the starts in scikit-learn's order: each restart's batch phase is that of
    # the fit without the online phase, and the online phase only lowers it.
    for seed in range(5):
        off = kmeans(overlapping, 6, init="random", tol=0, random_state=seed)
        on = kmeans(overlapping, 6, init="random", tol=0, random_state=seed, online_phase=True)
        assert on.inertia <= off.inertia * (1 + 1e-12)
        assert on.inertia == pytest.approx(_objective(overlapping, on.labels, 6), rel=1e-10)
        assert on.converged
    gains = [
        kmeans(overlapping, 6, init="random", tol=0, random_state=s).inertia
        - kmeans(overlapping, 6, init="random", tol=0, random_state=s, online_phase=True).inertia
        for s in range(5)
    ]
    assert max(gains) > 0  # it does something on overlapping clusters


def test_best_restart_chosen_on_the_final_objective(overlapping):
    # Recompute the five restarts by hand (same draws), each with its online phase.
    from sklearn.cluster import KMeans
    from sklearn.utils import check_random_state

    from kmdr.kmeans.online_phase import _centroids

    state = check_random_state(11)
    finals = []
    for _ in range(5):
        est = KMeans(6, init="random", n_init=1, tol=0, max_iter=500, random_state=state)
        est.fit(overlapping)
        res = online_phase(overlapping, est.labels_, 6, max_passes=500 - est.n_iter_)
        finals.append((_objective(overlapping, res.labels, 6), res.labels))
    got = kmeans(overlapping, 6, n_init=5, init="random", tol=0, random_state=11, online_phase=True)
    lowest = min(f for f, _ in finals)
    assert got.inertia == pytest.approx(lowest, rel=1e-12)
    # One of the restarts at the lowest objective (several may reach it, labelled differently,
    # their objectives equal up to the order of the sums).
    assert any(
        np.array_equal(got.labels, labels) for f, labels in finals if f <= lowest * (1 + 1e-12)
    )
    assert max(f for f, _ in finals) > lowest  # the choice mattered
    np.testing.assert_allclose(got.cluster_centers, _centroids(overlapping, got.labels, 6)[0])


def test_off_is_scikit_learns_lloyd_bit_for_bit(overlapping):
    from sklearn.cluster import KMeans

    est = KMeans(6, init="random", n_init=5, max_iter=500, tol=0, random_state=7).fit(overlapping)
    for res in (
        kmeans(overlapping, 6, init="random", tol=0, random_state=7),
        kmeans(overlapping, 6, init="random", tol=0, random_state=7, online_phase=False),
    ):
        np.testing.assert_array_equal(res.labels, est.labels_)
        assert res.inertia == est.inertia_
        assert res.cluster_centers.tobytes() == est.cluster_centers_.tobytes()


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_online_phase_must_be_a_bool(overlapping, value):
    with pytest.raises(
        ValueError, match=r"The .online_phase. parameter of kmeans must be an instance of .bool."
    ):
        kmeans(overlapping, 3, online_phase=value)


# ----- the identity of a cell


def test_off_is_left_out_of_the_cell_id():
    fields = {"dataset": "synth", "r": "5", "blas_threads": "1"}
    assert identity_id({**fields, "kmeans_online_phase": "False"}) == identity_id(fields)
    assert identity_id({**fields, "kmeans_online_phase": ""}) == identity_id(fields)
    assert identity_id({**fields, "kmeans_online_phase": "True"}) != identity_id(fields)


def _spec(*overrides, preset="bzmd14_synth"):
    import kmdr

    return kmdr.compose(f"experiment={preset}", *overrides)


def test_config_field_and_cells():
    from kmdr.results.cells import make_cell

    off, on = _spec(), _spec("kmeans.online_phase=true")
    assert off.kmeans.online_phase is False and on.kmeans.online_phase is True
    red = off.reducers[0]
    a = make_cell(off, red, 5, 0, data_fingerprint="f")
    b = make_cell(on, red, 5, 0, data_fingerprint="f")
    assert "kmeans_online_phase" not in a.identity() and "online_phase" not in a.kmeans
    assert b.identity()["kmeans_online_phase"] is True and b.kmeans["online_phase"] is True
    assert a.cell_id != b.cell_id and a.seed == b.seed
    # the diagnostic preset is bzmd14_synth with the online phase
    preset = _spec(preset="bzmd14_online_phase_synth")
    assert preset.kmeans.online_phase is True
    assert preset.kmeans.n_init == off.kmeans.n_init and preset.kmeans.init == off.kmeans.init
    assert [r.id for r in preset.reducers] == [r.id for r in off.reducers]


def test_bad_value_is_one_line(tmp_path, capsys):

    with pytest.raises(SystemExit) as exc:
        command.kmdr(["kmeans.online_phase=maybe", f"results_dir={tmp_path}", "dataset=synth"])
    assert exc.value.code == 1  # Hydra's type check, as Hydra reports it
    err = capsys.readouterr().err
    assert "kmeans.online_phase" in err and "Traceback" not in err, err
    assert not any(tmp_path.iterdir())
