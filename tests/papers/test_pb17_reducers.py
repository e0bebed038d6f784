"""pb17's reducer variants (Pourkamali-Anaraki and Becker 2017): sparsification without
preconditioning, the two-pass algorithm, and the row-block path of the sparsification."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from kmdr.datasets.blocks import bounds_of_rows, even_bounds
from kmdr.kmeans.lloyd import KMeansResult
from kmdr.kmeans.sparsified import second_pass
from kmdr.reducers import (
    BUILTIN_REDUCERS,
    REDUCERS,
    PreconditionedSparsification,
    make_reducer,
    reducer_entry,
    reducer_label,
)


def _blobs(n=400, d=64, k=4, seed=0):
    return make_blobs(n, n_features=d, centers=k, cluster_std=2.0, random_state=seed)


def _dense(C):
    """The kept (position, value) pairs of each row of a sketch, as a dict per row."""
    C = sp.csr_matrix(C)
    return [dict(zip(C.indices[a:b], C.data[a:b], strict=True))
            for a, b in zip(C.indptr[:-1], C.indptr[1:], strict=True)]  # fmt: skip


# -- the declarations --------------------------------------------------------------------------


def test_variants_are_declared_once_each_in_pb17s_package_with_the_class_of_pd():
    from kmdr.papers.pb17 import PAPER

    pd_cls = BUILTIN_REDUCERS["sparsified"].cls
    raw, two = reducer_entry("sparsified_raw"), reducer_entry("sparsified_two_pass")
    # pb17's own, listed beside kmdr's as built-ins, found through its Paper
    assert (
        "sparsified_raw" not in BUILTIN_REDUCERS and "sparsified_two_pass" not in BUILTIN_REDUCERS
    )
    assert PAPER.reducers == {"sparsified_raw": raw, "sparsified_two_pass": two}
    assert REDUCERS.is_own("sparsified_raw") and REDUCERS.is_own("pd_two_pass")
    assert raw.cls == pd_cls and two.cls == pd_cls  # not imported to be read
    assert raw.fixed == {"preconditioner": "none"}
    assert two.fixed == {"second_pass": True}
    # one plan for the class: PD's compat_version (its cells' identity) is untouched
    assert raw.plan is BUILTIN_REDUCERS["sparsified"].plan
    assert BUILTIN_REDUCERS["sparsified"].plan.compat_version == 1
    assert reducer_label("sparsified_raw") == "PD (no precond.)"
    assert reducer_label("pd_two_pass") == "PD 2-pass"
    pd_ = make_reducer("sparsified", 3, random_state=0)
    assert pd_.preconditioner == "dct" and pd_.second_pass is False  # PD's defaults unchanged


# -- no preconditioning ------------------------------------------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
def test_no_preconditioning_keeps_the_raw_entries(sparse):
    X, _ = _blobs()
    X = sp.csr_matrix(np.where(np.abs(X) > 3, X, 0.0)) if sparse else X
    dense = X.toarray() if sparse else X
    red = make_reducer("sparsified_raw", 9, random_state=4)
    C = red.fit_transform(X)
    assert C.shape == X.shape and np.all(np.diff(C.indptr) == 9)
    for i, kept in enumerate(_dense(C)):
        assert len(kept) == 9
        for j, v in kept.items():
            assert v == dense[i, j]  # the entry itself, not a transform of the row
    np.testing.assert_array_equal(red.signs_, 1.0)
    np.testing.assert_array_equal(red.inverse_precondition(dense[:3]), dense[:3])


def test_no_preconditioning_keeps_the_same_positions_as_pd():
    """For one random_state the variants draw the same kept positions: they differ only by the
    preconditioning, so their comparison is paired."""
    X, _ = _blobs()
    raw = make_reducer("sparsified_raw", 5, random_state=11).fit_transform(X)
    pd_ = make_reducer("sparsified", 5, random_state=11).fit_transform(X)
    np.testing.assert_array_equal(raw.indices, pd_.indices)
    assert not np.allclose(raw.data, pd_.data)


def test_preconditioning_helps_on_spiky_data():
    """The paper's point: data whose energy sits in a few coordinates (MNIST's strokes) lose
    most of it to uniform sampling unless preconditioned. Three clusters each living on its own
    6 of 300 coordinates: at 15 kept entries in 300 preconditioned sampling separates them,
    raw sampling mostly sees 0 (measured: 1.00 against 0.50)."""
    rng = np.random.default_rng(0)
    n, d, k = 600, 300, 3
    y = np.repeat(np.arange(k), n // k)
    X = 0.05 * rng.standard_normal((n, d))
    for c in range(k):
        X[y == c, c * 6 : c * 6 + 6] += 5.0
    from kmdr.metrics import clustering_accuracy

    acc = {}
    for name in ("sparsified", "sparsified_raw"):
        scores = []
        for seed in range(3):
            red = make_reducer(name, 15, random_state=seed)
            res = red.cluster(red.fit_transform(X), k, n_init=3, random_state=seed)
            scores.append(clustering_accuracy(y, res.labels))
        acc[name] = np.mean(scores)
    assert acc["sparsified"] > 0.95 and acc["sparsified"] > acc["sparsified_raw"] + 0.3


# -- two passes --------------------------------------------------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
def test_two_pass_centers_are_exact_means_of_the_original_points(sparse):
    X, _ = _blobs(n=300, d=40, k=3, seed=2)
    X = sp.csr_matrix(X) if sparse else X
    dense = X.toarray() if sparse else X
    red = make_reducer("sparsified_two_pass", 4, random_state=0)
    res = red.cluster(red.fit_transform(X), 3, n_init=2, random_state=1)
    assert isinstance(res, KMeansResult) and res.cluster_centers.shape == (3, 40)
    for c in range(3):
        members = dense[res.labels == c]
        assert len(members) > 0
        np.testing.assert_allclose(res.cluster_centers[c], members.mean(axis=0), atol=1e-10)
    sse = sum(((dense[res.labels == c] - res.cluster_centers[c]) ** 2).sum() for c in range(3))
    assert res.inertia == pytest.approx(sse, rel=1e-9)


def test_two_pass_labels_are_the_nearest_one_pass_centers_in_the_original_space():
    X, _ = _blobs(n=300, d=40, k=3, seed=5)
    one = make_reducer("sparsified", 3, random_state=7)
    two = make_reducer("sparsified_two_pass", 3, random_state=7)
    C1, C2 = one.fit_transform(X), two.fit_transform(X)
    assert (C1 != C2).nnz == 0  # the same sketch: the second pass only adds the pass
    r1 = one.cluster(C1, 3, n_init=1, random_state=3)
    r2 = two.cluster(C2, 3, n_init=1, random_state=3)
    centers = one.inverse_precondition(r1.cluster_centers)
    nearest = np.argmin(((X[:, None, :] - centers[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(r2.labels, nearest)
    assert r2.n_iter == r1.n_iter


def test_two_pass_fixes_a_coarse_sketch():
    """At one kept entry in 40 the one-pass labels are noisy; the exact second assignment
    recovers well-separated blobs (the paper's two-pass curve near k-means' already at small
    γ)."""
    from kmdr.metrics import clustering_accuracy

    X, y = make_blobs(900, n_features=200, centers=3, cluster_std=3.0, random_state=3)
    acc = {"sparsified": [], "sparsified_two_pass": []}
    for seed in range(3):
        for name, scores in acc.items():
            red = make_reducer(name, 5, random_state=seed)
            res = red.cluster(red.fit_transform(X), 3, random_state=seed)
            scores.append(clustering_accuracy(y, res.labels))
    one, two = acc["sparsified"], acc["sparsified_two_pass"]
    assert np.mean(two) >= np.mean(one) and np.mean(two) > 0.99


def test_second_pass_needs_the_original_data_in_one_line():
    X, _ = _blobs(n=100, d=20, k=2)
    red = PreconditionedSparsification(3, second_pass=True, random_state=0).fit(X)
    C = red.transform(X)
    with pytest.raises(ValueError, match=r"original data.*got shape \(50, 20\)") as err:
        red.cluster(C, 2, X=X[:50])
    assert "\n" not in str(err.value)
    blocks = PreconditionedSparsification(3, second_pass=True, random_state=0)
    with pytest.raises(ValueError, match="cannot run on row blocks") as err:
        blocks.fit_rows(*X.shape)  # its second pass would need every original row again
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=r"finite \(n_clusters, 20\)"):
        second_pass(X, np.zeros((2, 5)))


# -- row blocks --------------------------------------------------------------------------------


def _split(n, how):
    if how == "one":
        return even_bounds(n, 1)
    if how == "three":
        return even_bounds(n, 3)
    return bounds_of_rows(n, 37)  # uneven: 37-row blocks, the last one shorter


@pytest.mark.parametrize("how", ["one", "three", "uneven"])
@pytest.mark.parametrize("kind", ["dct", "hadamard", "none"])
def test_transform_rows_equals_transform(how, kind):
    X, _ = _blobs(n=205, d=50)
    whole = PreconditionedSparsification(6, preconditioner=kind, random_state=3).fit(X)
    full = whole.transform(X)
    bounds = _split(len(X), how)
    # blocks in order, with no positions-only pass
    inorder = PreconditionedSparsification(6, preconditioner=kind, random_state=3)
    inorder.fit_rows(*X.shape)
    parts = [inorder.transform_rows(X[lo:hi], lo) for lo, hi in bounds]
    assert (sp.vstack(parts).tocsr() != full).nnz == 0
    # blocks in any order after the positions-only pass over the starts
    anyorder = PreconditionedSparsification(6, preconditioner=kind, random_state=3)
    anyorder.fit_rows(*X.shape, starts=[lo for lo, _ in bounds])
    for lo, hi in reversed(bounds):
        block = anyorder.transform_rows(X[lo:hi], lo)
        np.testing.assert_array_equal(block.indices, full[lo:hi].indices)
        np.testing.assert_array_equal(block.data, full[lo:hi].data)


def test_transform_rows_of_sparse_rows_and_unrecorded_starts():
    X = sp.random(120, 300, density=0.02, random_state=4, format="csr")
    full = PreconditionedSparsification(5, random_state=1).fit(X).transform(X)
    red = PreconditionedSparsification(5, random_state=1).fit_rows(*X.shape)
    # a start nobody recorded: drawn forward from row 0, positions only
    block = red.transform_rows(X[70:95], 70)
    assert abs(block - full[70:95]).max() < 1e-12
    np.testing.assert_array_equal(block.indices, full[70:95].indices)


def test_a_fit_rows_replaces_the_row_count_of_a_former_one():
    X, _ = _blobs(n=150, d=20)
    red = PreconditionedSparsification(3, random_state=0).fit_rows(100, 20)
    red.fit_rows(*X.shape)  # the whole matrix: 150 rows, no bound from the former fit_rows
    full = PreconditionedSparsification(3, random_state=0).fit(X).transform(X)
    np.testing.assert_array_equal(red.transform_rows(X[100:], 100).indices, full[100:].indices)


def test_row_blocks_bad_input_fails_in_one_line():
    red = PreconditionedSparsification(4, random_state=0).fit_rows(100, 30)
    for call, match in (
        (lambda: red.transform_rows(np.zeros((5, 30)), -1), "outside the fitted 100 rows"),
        (lambda: red.transform_rows(np.zeros((5, 30)), 98), "outside the fitted 100 rows"),
        (lambda: red.transform_rows(np.zeros((5, 29)), 0), "features"),
        (lambda: PreconditionedSparsification(4).fit_rows(0, 30), "must have rows and columns"),
        (lambda: PreconditionedSparsification(4).fit_rows(10, 30, starts=[12]), "starts must"),
        (lambda: PreconditionedSparsification(40).fit_rows(10, 30), "n_components=40"),
    ):
        with pytest.raises(ValueError, match=match) as err:
            call()
        assert "\n" not in str(err.value)
