"""ss22's real datasets: each reader on a small file of its real format (the files themselves
are not here), what kmdr says of each file offline, and the preset that runs them."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from omegaconf import OmegaConf

import kmdr
import kmdr.datasets as kd
from _data import pin
from kmdr.datasets._validate import check_dataset
from kmdr.papers.ss22 import datasets as D

#: Rows of each small file: at least k = 10, as a loaded dataset needs.
N = 12
#: Covertype: N rows of 54 attributes then the cover type (UCI's covtype.data, gzipped).
COVTYPE = "".join(
    ",".join(str(v) for v in [*range(10 * i, 10 * i + 54), i % 7 + 1]) + "\n" for i in range(N)
)
#: USCensus1990: a header (caseid, then 68 attributes) and N rows whose caseid is 10000 + i.
CENSUS = (
    ",".join(["caseid", *(f"a{j}" for j in range(68))])
    + "\n"
    + "".join(",".join(str(v) for v in [10000 + i, *range(i, i + 68)]) + "\n" for i in range(N))
)
#: Tower: 3 N numbers, one a line: N points of 3.
TOWER = "".join(f"{v}\n" for v in range(100, 100 + 3 * N))
#: A UCI bag of words: N documents, 5 words; document i (1-based) holds word i mod 5 + 1 i times
#: and word 1 once more where i is odd (their sum where i mod 5 + 1 is 1), document 2 none.
_TRIPLES = [
    (i, w, c)
    for i in range(1, N + 1) if i != 2
    for w, c in sorted({**({1: 1} if i % 2 else {}), i % 5 + 1: i}.items())
]  # fmt: skip
BAG = f"{N}\n5\n{len(_TRIPLES)}\n" + "".join(f"{d} {w} {c}\n" for d, w, c in _TRIPLES)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode()
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    return path


def _dense(X) -> np.ndarray:
    return X.toarray() if sp.issparse(X) else X


def _expected_bag() -> np.ndarray:
    X = np.zeros((N, 5))
    for d, w, c in _TRIPLES:
        X[d - 1, w - 1] = c
    return X


#: name, reader, registry path, a small file of its format, the matrix it holds
CASES = [
    pytest.param(
        "ss22_covertype", D.read_covertype, D.COVERTYPE_FILE, COVTYPE,
        np.array([range(10 * i, 10 * i + 54) for i in range(N)], dtype=float), id="covertype",
    ),
    pytest.param(
        "ss22_census", D.read_census, D.CENSUS_FILE, CENSUS,
        np.array([range(i, i + 68) for i in range(N)], dtype=float), id="census",
    ),
    pytest.param(
        "ss22_tower", D.read_tower, D.TOWER_FILE, TOWER,
        np.arange(100, 100 + 3 * N, dtype=float).reshape(N, 3), id="tower",
    ),
    pytest.param(
        "ss22_nytimes", D.read_bag_of_words, D.NYTIMES_FILE, BAG, _expected_bag(), id="nytimes",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "read", "rel", "text", "expected"), CASES)
def test_each_reader_reads_its_format(tmp_path, name, read, rel, text, expected):
    X = read(_write(tmp_path / Path(rel).name, text))
    entry = kd.dataset_info(name)
    assert sp.issparse(X) == entry.sparse and X.dtype == np.float64
    assert X.shape == expected.shape and X.shape[1] in (entry.n_features, expected.shape[1])
    np.testing.assert_array_equal(_dense(X), expected)
    if sp.issparse(X):
        assert X.format == "csr" and X.nnz == len(_TRIPLES) and X.has_sorted_indices
        assert X[1].nnz == 0  # a document without words is an empty row, not dropped
    else:
        assert X.flags.c_contiguous


SMALL_BAG = "3\n5\n4\n1 1 2\n1 3 1\n3 2 1\n3 5 7\n"
#: reader, a file that is not of its format, what the one-line error says
BAD = [
    pytest.param(D.read_covertype, "covtype.data.gz", "1,2,3\n", "3 columns, expected 55",
                 id="covertype-columns"),
    pytest.param(D.read_census, "USCensus1990.data.txt", CENSUS.replace("caseid", "id", 1),
                 "expected 'caseid'", id="census-header"),
    pytest.param(D.read_census, "USCensus1990.data.txt", "caseid,a\n1,2\n",
                 "2 columns, expected 69", id="census-columns"),
    pytest.param(D.read_tower, "Tower.txt", "1\n2\n3\n4\n", "4 numbers, not a whole number",
                 id="tower-points"),
    pytest.param(D.read_bag_of_words, "docword.x.txt.gz", SMALL_BAG.replace("\n4\n", "\n5\n"),
                 "4 triples, its header says NNZ = 5", id="bag-nnz"),
    pytest.param(D.read_bag_of_words, "docword.x.txt.gz", SMALL_BAG.replace("3 5 7", "3 6 7"),
                 "outside its header's 1..3 and 1..5", id="bag-word-id"),
]  # fmt: skip


@pytest.mark.parametrize(("read", "filename", "text", "says"), BAD)
def test_a_file_not_of_its_format_is_one_line_naming_it(tmp_path, read, filename, text, says):
    path = _write(tmp_path / filename, text)
    with pytest.raises(ValueError, match=says) as err:
        read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("name", "read", "rel", "text", "expected"), CASES)
def test_a_pinned_copy_loads_unlabeled_at_k_10(tmp_path, monkeypatch, name, read, rel, text,
                                               expected):  # fmt: skip
    """What a user who pinned a checked copy gets: the loader fetches it from the cache and
    reads it (the entry's sizes are the real files', so its loader is called directly)."""
    pin(monkeypatch, rel, _write(tmp_path / rel, text))
    ds = check_dataset(kd.dataset_info(name).loader(data_dir=tmp_path, mirror=None), name, "")
    np.testing.assert_array_equal(_dense(ds.X), expected)
    assert ds.n_clusters == D.REAL_K == 10 and not ds.labeled
    assert kd.registry()[rel].url in ds.description


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """An empty data cache and an empty mirror: the real ones are not read."""
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv(kd.DATA_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(kd.MIRROR_ENV, str(tmp_path / "mirror"))
    return tmp_path


@pytest.mark.parametrize(
    ("name", "rel"),
    [("ss22_census", D.CENSUS_FILE), ("ss22_tower", D.TOWER_FILE),
     ("ss22_nytimes", D.NYTIMES_FILE)],
)  # fmt: skip
def test_a_file_without_a_public_checksum_is_refused(offline, name, rel):
    assert kd.registry()[rel].known_hash is None
    assert kd.availability(name) == (
        "unavailable", f"{name}: {rel} has no pinned hash in the data registry"
    )  # fmt: skip
    # refused before anything is read or downloaded, in one line
    with pytest.raises(kd.DatasetUnavailable, match="has no pinned hash") as err:
        kd.load_dataset(name)
    assert rel in str(err.value) and "\n" not in str(err.value)


def test_covertype_is_pinned_by_scikit_learns_checksum_and_downloaded(offline):
    from sklearn.datasets._covtype import ARCHIVE

    entry = kd.registry()[D.COVERTYPE_FILE]
    assert (entry.known_hash, entry.url) == (ARCHIVE.checksum, ARCHIVE.url)
    assert kd.availability("ss22_covertype") == (
        "download", f"ss22_covertype: {D.COVERTYPE_FILE} to download from {ARCHIVE.url}"
    )  # fmt: skip


PRESET = Path(D.__file__).parent / "conf" / "experiment" / "ss22_real.yaml"


def test_the_preset_sweeps_the_real_datasets_out_of_make_reproduce():
    cfg = OmegaConf.load(PRESET)
    swept = cfg.hydra.sweeper.params.dataset.split(",")
    assert swept == list(D.REAL) == ["ss22_covertype", "ss22_census", "ss22_tower", "ss22_nytimes"]
    assert cfg.preset.reproduce == "none" and cfg.kind == "coresets"


@pytest.mark.slow
def test_a_run_of_the_preset_is_skipped_with_kmdrs_one_line(offline):
    """One job of ``kmdr -m experiment=ss22_real``, offline: skipped with the line that names
    the file without a pinned hash."""
    with pytest.raises(kmdr.RunError) as err:
        kmdr.run(["experiment=ss22_real", "dataset=ss22_tower"], results_dir=offline / "r")
    assert str(err.value).startswith(
        f"ss22_tower skipped: ss22_tower: {D.TOWER_FILE} has no pinned hash"
    )
    assert "\n" not in str(err.value)


def test_the_guide_states_the_declared_sizes():
    guide = Path(__file__).resolve().parents[3] / "docs" / "guide" / "ss22.md"
    text = guide.read_text(encoding="utf-8")
    for name, entry in D.REAL.items():
        assert f"| `{name}` | {entry.n_samples:,} x {entry.n_features:,}" in text, name
    assert "`kmdr -m experiment=ss22_real '+reducers={svd: {name: svd}}'`" in text


@pytest.mark.slow
def test_the_multirun_ends_with_one_skip_line_a_dataset(offline):
    """``kmdr -m experiment=ss22_real`` offline, over the datasets without a published checksum
    (Covertype's job would try the network): a skip line each, and the multirun's exit 0."""
    from _command import run_kmdr

    names = ["ss22_census", "ss22_tower", "ss22_nytimes"]
    args = ["-m", "experiment=ss22_real", f"dataset={','.join(names)}", f"results_dir={offline}"]
    proc = run_kmdr(args, offline)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    skipped = [line for line in lines if line.startswith("kmdr: ") and " skipped: " in line]
    assert [line.split(" skipped: ")[0] for line in skipped] == [f"kmdr: {n}" for n in names]
    assert all("has no pinned hash in kmdr's data registry" in line for line in skipped)
    assert lines[-1] == "[kmdr] multirun: 3 jobs: 3 skipped"
