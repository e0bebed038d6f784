"""Datasets: NIPS and RCV1 on small files of the real formats written here, and the generators."""

from __future__ import annotations

import bz2
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import requests
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.datasets import dump_svmlight_file

import kmdr.datasets as kd
from _cases import case
from _data import pin
from _nips_fixture import (
    random_counts,
    real_docnames,
    write_nips_mat,
    write_nips_mirror,
)
from kmdr.datasets import _registry

NIPS_MAT = "nips/nips_1-17.mat"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    def no_download(entry, cache_dir):
        raise requests.ConnectionError(f"network disabled in tests ({entry.url})")

    monkeypatch.setattr(_registry, "_download", no_download)


def accuracy(y, pred) -> float:
    """Best one-to-one matching of clusters to classes (Hungarian)."""
    k = max(y.max(), pred.max()) + 1
    m = np.zeros((k, k), dtype=np.int64)
    np.add.at(m, (y, pred), 1)
    r, c = linear_sum_assignment(-m)
    return m[r, c].sum() / y.size


# --- NIPS ------------------------------------------------------------------------------------

DOCS = ["1999/0012", "2001/CN01", "2001/AA03", "2001/LT01", "2002/NS07", "2002/CN02", "2003/VS01"]
WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]
# words x docs; "gamma" occurs only in unselected docs, "zeta" nowhere: both are dropped.
COUNTS = np.array(
    [
        [1, 2, 0, 0, 0, 1, 0],  # alpha
        [0, 0, 0, 3, 0, 0, 0],  # beta
        [5, 0, 4, 0, 0, 0, 9],  # gamma
        [0, 0, 0, 0, 7, 0, 0],  # delta
        [0, 1, 1, 1, 1, 0, 0],  # eps
        [0, 0, 0, 0, 0, 0, 0],  # zeta
    ]
)


def test_nips_selection_and_term_filter(tmp_path):
    path = write_nips_mat(tmp_path / "small.mat", COUNTS, WORDS, DOCS)
    X, y, terms = kd.build_nips(path, expected_sizes={"CN": 2, "LT": 1, "NS": 1})
    assert isinstance(X, sp.csr_matrix) and X.dtype == np.float64
    # Documents CN01, LT01, NS07, CN02 in file order; labels index ("CN", "LT", "NS").
    assert y.tolist() == [0, 1, 2, 0]
    assert terms.tolist() == ["alpha", "beta", "delta", "eps"]
    expected = COUNTS[[0, 1, 3, 4]][:, [1, 3, 4, 5]].T  # raw counts, docs x kept terms
    assert np.array_equal(X.toarray(), expected)


def test_nips_validation(tmp_path):
    path = write_nips_mat(tmp_path / "small.mat", COUNTS, WORDS, DOCS)
    with pytest.raises(ValueError, match="expected 184"):
        kd.build_nips(path)  # the default expectation is the paper's 50/68/66
    labels = ["--", "CN", "--", "LT", "NS", "CN", "--"]
    kd.build_nips(path, expected_sizes=None, reference_labels=labels)
    labels[2] = "CN"  # the metadata selects a document the names do not
    with pytest.raises(ValueError, match="reference labels"):
        kd.build_nips(path, expected_sizes=None, reference_labels=labels)
    bad = write_nips_mat(tmp_path / "bad.mat", COUNTS, WORDS, [*DOCS[:-1], "2003/CNLT"])
    with pytest.raises(ValueError, match="several sections"):
        kd.build_nips(bad, expected_sizes=None)


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="differ from those labelled",
            doing="data",
            cause="the NIPS counts file is not the published one: its document names are not "
            "those of the hashed label file, so the labelled documents cannot be selected",
            fix="delete the file the message names and fetch it again (`kmdr-data nips`)",
        )
    ],
)
def test_nips_real_code_path_with_real_document_names(says, tmp_path, monkeypatch):
    """load_dataset("nips") on a stand-in nips_1-17.mat with the real 2484 document names (from
    the hashed metadata) and random counts: mirror fetch, label cross-check, 184 = 50/68/66."""
    n_docs = len(real_docnames())
    words = [f"w{i}" for i in range(300)]
    mirror = write_nips_mirror(tmp_path / "mirror", random_counts(300, n_docs, seed=0), words)
    pin(monkeypatch, NIPS_MAT, mirror / NIPS_MAT)  # the real file's pin refuses this one

    with pytest.warns(UserWarning, match="bmd09 reports 6314"):
        ds = kd.load_dataset("nips", data_dir=tmp_path / "cache", mirror=mirror)
    assert ds.n_samples == 184 and ds.n_clusters == 3
    assert np.bincount(ds.y).tolist() == [50, 68, 66]
    assert isinstance(ds.X, sp.csr_matrix) and ds.is_sparse
    assert ds.feature_names.size == ds.n_features
    assert np.all(np.diff(ds.X.tocsc().indptr) > 0)  # every kept term occurs
    assert "pinned by its git blob id" in ds.description
    entry = kd.dataset_info("nips")  # the catalog's facts (d depends on the file: not fixed)
    assert (entry.n_samples, entry.n_clusters, entry.sparse) == (184, 3, True)
    assert entry.n_features is None
    # everything the loader fetched is in the cache now, the labels metadata included
    assert kd.availability("nips", data_dir=tmp_path / "cache") == ("cached", "")

    # A file with other document names fails the content validation, naming the file.
    write_nips_mat(mirror / "nips" / "nips_1-17.mat", COUNTS, WORDS, DOCS)
    pin(monkeypatch, NIPS_MAT, mirror / NIPS_MAT)
    with pytest.raises(kd.DatasetError, match="nips_1-17") as err:
        kd.load_dataset("nips", data_dir=tmp_path / "cache2", mirror=mirror)
    assert "\n" not in str(err.value) and says in str(err.value)


def test_nips_missing_is_unavailable(tmp_path, monkeypatch):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetUnavailable, match=r"download of .*S-AGM/d41858040a69.*failed"):
        kd.load_dataset("nips", data_dir=tmp_path)


# --- RCV1 ------------------------------------------------------------------------------------


def _write_svmlight_bz2(path: Path, X, labels) -> Path:
    plain = path.with_suffix("")
    dump_svmlight_file(X, labels, str(plain), zero_based=False)
    path.write_bytes(bz2.compress(plain.read_bytes()))
    plain.unlink()
    return path


@pytest.mark.parametrize(
    "says",
    [
        case(
            says="expected 15564",
            doing="data",
            cause="the RCV1 file reads as LIBSVM data but has another number of rows than the "
            "published training split: another file or another version",
            fix="delete the file the message names and fetch it again (`kmdr-data rcv1`)",
        )
    ],
)
def test_rcv1_reader_keeps_sparse_and_remaps_labels(says, tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    X = sp.random(40, 30, density=0.1, random_state=rng, format="csr")
    labels = rng.choice([3, 7, 11, 53], size=40)
    path = _write_svmlight_bz2(tmp_path / "small.multiclass.bz2", X, labels)
    Xr, y = kd.read_rcv1(path, n_features=30, expected_n_samples=40, expected_n_classes=53)
    assert isinstance(Xr, sp.csr_matrix) and Xr.dtype == np.float64 and Xr.shape == (40, 30)
    assert np.allclose(Xr.toarray(), X.toarray())
    assert y.dtype == np.int64 and set(y) == {0, 1, 2, 3}
    assert np.array_equal(y, np.searchsorted([3, 7, 11, 53], labels))

    # Through load_dataset: fetched from the mirror, then rejected by the content check.
    mirror = tmp_path / "mirror"
    (mirror / "rcv1").mkdir(parents=True)
    shutil.copyfile(path, mirror / "rcv1" / "rcv1_train.multiclass.bz2")
    pin(monkeypatch, "rcv1/rcv1_train.multiclass.bz2", path)
    with pytest.raises(kd.DatasetError, match=re.escape(says)) as err:
        kd.load_dataset("rcv1", data_dir=tmp_path / "cache", mirror=mirror)
    assert "\n" not in str(err.value) and "(kmdr-data rcv1)" in str(err.value)


def test_rcv1_missing_is_unavailable(tmp_path, monkeypatch):
    monkeypatch.delenv(kd.MIRROR_ENV, raising=False)
    with pytest.raises(kd.DatasetUnavailable, match=r"rcv1_train\.multiclass\.bz2"):
        kd.load_dataset("rcv1", data_dir=tmp_path)


# --- synth -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def synth():
    return kd.load_dataset("synth")


def test_synth_shape_and_kmeans_recovers_it(synth):
    assert synth.X.shape == (1000, 2000) and synth.X.dtype == np.float64
    assert np.bincount(synth.y).tolist() == [200] * 5 and synth.n_clusters == 5
    assert "SYNTHETIC" in synth.description
    assert synth.X.mean(axis=0).min() >= 0.0 and synth.X.mean(axis=0).max() <= 2000.0 + 1
    km = KMeans(5, init="k-means++", n_init=3, random_state=0).fit(synth.X)
    assert accuracy(synth.y, km.labels_) == 1.0


def test_synth_seeds(synth):
    assert np.array_equal(kd.load_dataset("synth", seed=0).X, synth.X)
    other = kd.load_dataset("synth", seed=1, n_samples=50, n_features=20, n_clusters=5)
    again = kd.load_dataset("synth", seed=1, n_samples=50, n_features=20, n_clusters=5)
    assert np.array_equal(other.X, again.X)
    assert not np.allclose(other.X, kd.load_dataset("synth", seed=2, n_samples=50, n_features=20).X)
    # within-cluster spread is the unit-variance Gaussian around each center
    centred = other.X - np.stack([other.X[other.y == c].mean(0) for c in range(5)])[other.y]
    assert 0.8 < centred.std() < 1.2


@pytest.mark.parametrize(
    ("name", "params", "word"),
    [
        ("synth", {"n_samples": 0}, "n_samples"),
        ("synth", {"n_features": -3}, "n_features"),
        ("synth", {"n_clusters": 2.5}, "n_clusters"),
        ("synth", {"std": -1.0}, "std"),
        ("synth", {"colour": 1}, "colour"),
        ("sparse_text", {"n_samples": 0}, "n_samples"),
        ("sparse_text", {"topic_weight": 1.5}, "topic_weight"),
        ("sparse_text", {"seed": -1}, "seed"),
        ("mixture", {"ratio": 0.0}, "parameter 'ratio' must be a number > 0.0 and <= 1.0, got 0.0"),
        ("mixture", {"ratio": 1.5}, "parameter 'ratio' must be a number > 0.0 and <= 1.0, got 1.5"),
        ("mixture", {"spread": 0}, "parameter 'spread' must be a number > 0.0"),
        ("mixture", {"std": -1.0}, "parameter 'std' must be a number >= 0.0"),
        ("mixture", {"n_samples": 10, "n_clusters": 11},
         "'n_clusters' (11) must be <= 'n_samples' (10)"),
        ("mixture", {"seed": 1.5}, "parameter 'seed' must be an integer >= 0"),
        ("mixture", {"side": 5.0}, "unknown parameters ['side']"),
    ],
)  # fmt: skip
def test_bad_params_name_the_parameter(name, params, word):
    with pytest.raises(ValueError, match=re.escape(word)) as err:
        kd.load_dataset(name, **params)
    assert "\n" not in str(err.value)  # one line


# --- mixture -------------------------------------------------------------------------------


# (n_samples, n_clusters, ratio): the defaults, a floor of one row that binds, one row each,
# equal sizes, and a ratio so small that every cluster but the first is its one row
@pytest.mark.parametrize(
    ("n", "k", "ratio"),
    [(1_000_000, 20, 0.8), (100, 20, 0.5), (20, 20, 0.3), (1001, 7, 1.0), (10**6, 4, 1e-9),
     (12345, 9, 0.95)],
)  # fmt: skip
def test_mixture_sizes_fall_geometrically_and_sum_to_n(n, k, ratio):
    from kmdr.datasets._mixture import mixture_cluster_sizes
    from kmdr.datasets._synthetic import MixtureParams

    sizes = mixture_cluster_sizes(
        MixtureParams.checked({"n_samples": n, "n_clusters": k, "ratio": ratio})
    )
    assert sizes.dtype == np.int64 and len(sizes) == k and sizes.sum() == n
    assert sizes.min() >= 1 and np.all(np.diff(sizes) <= 0)
    share = (n - k) * ratio ** np.arange(k) / (ratio ** np.arange(k)).sum()
    assert np.all(np.abs(sizes - 1 - share) < 1)  # one row each, then largest remainders
    if ratio == 1.0:
        assert sizes.max() - sizes.min() <= 1


@pytest.fixture(scope="module")
def small_mixture():
    return {"n_samples": 3000, "n_features": 30, "n_clusters": 6, "ratio": 0.6, "seed": 3}


def test_mixture_is_its_clusters(small_mixture):
    from kmdr.datasets._mixture import mixture_cluster_sizes
    from kmdr.datasets._synthetic import MixtureParams

    ds = kd.load_dataset("mixture", **small_mixture, std=2.0)
    assert ds.X.shape == (3000, 30) and ds.X.dtype == np.float64 and ds.n_clusters == 6
    assert ds.description.startswith("SYNTHETIC imbalanced Gaussian mixture: 3000 x 30")
    sizes = mixture_cluster_sizes(MixtureParams.checked(small_mixture))
    assert np.bincount(ds.y).tolist() == sizes.tolist()  # the label is the cluster's index
    assert np.array_equal(ds.y, np.sort(ds.y))  # rows grouped, the largest cluster first
    means = np.stack([ds.X[ds.y == c].mean(0) for c in range(6)])
    assert 1.8 < (ds.X - means[ds.y]).std() < 2.2  # std about the center
    assert 7 < means.std() < 13  # centers N(0, 10^2 I)
    # well separated: every point is nearest its own cluster's mean
    nearest = ((ds.X[:, None, :] - means[None]) ** 2).sum(-1).argmin(1)
    assert np.array_equal(nearest, ds.y)


@pytest.mark.parametrize(
    ("change", "same"),
    [({}, True), ({"seed": 4}, False), ({"spread": 5.0}, False), ({"ratio": 0.5}, False)],
)
def test_mixture_is_its_seed_and_params(small_mixture, change, same):
    a = kd.load_dataset("mixture", **small_mixture)
    b = kd.load_dataset("mixture", **{**small_mixture, **change})
    assert (a.X.tobytes() == b.X.tobytes()) is same
    assert (a.fingerprint == b.fingerprint) is same


# --- sparse_text -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sparse_text():
    return kd.load_dataset("sparse_text")


@pytest.mark.slow
def test_sparse_text_like_rcv1(sparse_text):
    ds = sparse_text
    assert isinstance(ds.X, sp.csr_matrix) and ds.X.dtype == np.float64 and ds.is_sparse
    assert ds.X.shape == (15564, 47236) and ds.n_clusters == 53
    assert np.bincount(ds.y, minlength=53).min() >= 1 and ds.y.max() == 52
    assert 0.0013 < ds.density < 0.0019  # RCV1: ~0.16%
    assert "SYNTHETIC" in ds.description
    assert np.allclose(sp.linalg.norm(ds.X, axis=1), 1.0)
    df = np.sort(np.bincount(ds.X.indices, minlength=ds.n_features))[::-1]
    assert df[0] > 50 * df[1000]  # skewed (Zipf-like) document frequencies


def test_sparse_text_has_planted_topics(sparse_text):
    ds = sparse_text
    # Nearest true centroid (cosine) recovers the topics: the clusters are there ...
    centroids = sp.csr_matrix(np.vstack([ds.X[ds.y == c].mean(axis=0) for c in range(53)]))
    pred = np.asarray((ds.X @ centroids.T).argmax(axis=1)).ravel()
    assert np.mean(pred == ds.y) > 0.9
    # ... but single documents are noisy: two of one topic share little (cosine well below 0.5),
    # though more than two of different topics.
    a, b = np.flatnonzero(ds.y == 0)[:100], np.flatnonzero(ds.y == 30)[:100]
    same = (ds.X[a] @ ds.X[a].T).toarray()[np.triu_indices(100, 1)].mean()
    cross = (ds.X[a] @ ds.X[b].T).toarray().mean()
    assert cross < same < 0.3


def test_sparse_text_seeds(sparse_text):
    small = {"n_samples": 300, "n_features": 2000, "n_clusters": 4, "nnz_per_row": 20.0}
    a = kd.load_dataset("sparse_text", seed=3, **small)
    b = kd.load_dataset("sparse_text", seed=3, **small)
    c = kd.load_dataset("sparse_text", seed=4, **small)
    assert (a.X != b.X).nnz == 0 and (a.X != c.X).nnz > 0
    assert isinstance(a.X, sp.csr_matrix) and a.X.shape == (300, 2000)


@pytest.mark.parametrize("fixture", ["synth", "sparse_text"])
def test_catalog_facts_of_generated_data(fixture, request):
    ds, entry = request.getfixturevalue(fixture), kd.dataset_info(fixture)
    facts = (entry.n_samples, entry.n_features, entry.n_clusters, entry.sparse)
    assert facts == (ds.n_samples, ds.n_features, ds.n_clusters, ds.is_sparse)
    assert kd.availability(fixture) == ("synthetic", "")
