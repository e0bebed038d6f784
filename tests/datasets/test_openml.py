"""``dataset=openml``, tested as scikit-learn tests ``fetch_openml``: OpenML's answers are stored
responses (tests/datasets/data/openml, written by make_responses.py there) served in place of
the network, ``urlopen`` monkeypatched; nothing is downloaded."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import sklearn.datasets._openml as sk_openml

import kmdr.datasets as kd
from _bad_data import kmdr_fails, one_line
from _cases import case
from _command import run_kmdr

STORED = Path(__file__).parent / "data" / "openml"
DATA_ID = 990001


class _Response(io.BytesIO):
    """A stored response as urlopen returns it: gzipped, and said to be."""

    def info(self):
        return {"Content-Encoding": "gzip"}


def serve(monkeypatch, version: int | Path) -> list[str]:
    """Serve upload ``version``'s stored responses (or those of a folder laid out as
    scikit-learn's tests lay theirs); the URLs asked for are returned."""
    folder = version if isinstance(version, Path) else STORED / f"v{version}"
    asked: list[str] = []

    def urlopen(request, *args, **kwargs):
        url = getattr(request, "full_url", request)
        asked.append(url)
        # scikit-learn asks www.openml.org since 1.7, api.openml.org before
        path = url.removeprefix("https://www.openml.org/").removeprefix("https://api.openml.org/")
        if path.startswith("api/v1/json/data/features/"):
            name = f"api-v1-jdf-{path.rsplit('/', 1)[1]}.json.gz"
        elif path.startswith("api/v1/json/data/qualities/"):
            name = f"api-v1-jdq-{path.rsplit('/', 1)[1]}.json.gz"
        elif path.startswith("api/v1/json/data/"):
            name = f"api-v1-jd-{path.rsplit('/', 1)[1]}.json.gz"
        elif path.startswith("data/v1/download/"):
            name = f"data-v1-dl-{path.split('/')[3]}.arff.gz"
        else:
            raise AssertionError(f"unexpected OpenML URL {url}")
        return _Response((folder / name).read_bytes())

    monkeypatch.setattr(sk_openml, "urlopen", urlopen)
    return asked


def test_fetched_into_the_cache_with_version_and_checksum(monkeypatch, tmp_path):
    asked = serve(monkeypatch, 1)
    ds = kd.load_dataset("openml", data_dir=tmp_path, data_id=DATA_ID)
    assert ds.X.shape == (12, 3) and ds.n_clusters == 3
    np.testing.assert_array_equal(np.bincount(ds.y), [4, 4, 4])
    description = json.loads(__import__("gzip").open(STORED / "v1" / f"api-v1-jd-{DATA_ID}.json.gz")
                             .read())["data_set_description"]  # fmt: skip
    assert "version 1" in ds.description and description["md5_checksum"] in ds.description
    assert ds.fingerprint.startswith(f"openml:{DATA_ID}:")
    assert (tmp_path / "openml" / "openml.org").is_dir()  # sklearn's cache, in kmdr's
    # fetched again: from the cache, no request
    n_asked = len(asked)
    again = kd.load_dataset("openml", data_dir=tmp_path, data_id=DATA_ID)
    assert len(asked) == n_asked and again.fingerprint == ds.fingerprint


@pytest.mark.parametrize(
    "says",
    [
        case(says="this fetch differs from the first (version 1 -> 2", doing="data",
             cause="dataset=openml pins an id's version and file checksum at its first fetch; "
             "a later fetch (after the data cache was emptied, or on another machine sharing the "
             "cache's pins) gave another upload of the dataset",
             fix="restore the data cache, or delete the pin the message names to use the new "
             "data (its cells are new ones: the fingerprint changes)"),
    ],
)  # fmt: skip
def test_a_later_fetch_that_differs_is_refused(says, monkeypatch, tmp_path):
    import shutil

    serve(monkeypatch, 1)
    kd.load_dataset("openml", data_dir=tmp_path, data_id=DATA_ID)
    shutil.rmtree(tmp_path / "openml")  # the cache refilled: OpenML now serves version 2
    serve(monkeypatch, 2)
    with pytest.raises(kd.DatasetError) as err:
        kd.load_dataset("openml", data_id=DATA_ID, data_dir=tmp_path)
    message = one_line(str(err.value))
    assert says in message
    assert f"openml-pins/{DATA_ID}.json to use the new data" in message


def test_n_clusters_and_a_bad_id(monkeypatch, tmp_path):
    serve(monkeypatch, 1)
    ds = kd.load_dataset("openml", data_dir=tmp_path, data_id=DATA_ID, n_clusters=2)
    assert ds.n_clusters == 2
    with pytest.raises(kd.DatasetError, match="give OpenML's id of the dataset"):
        kd.load_dataset("openml", data_dir=tmp_path, data_id=0)


def test_missing_data_id_is_refused_in_one_line(capsys, tmp_path):
    err = one_line(kmdr_fails(["dataset=openml", "reducer=[sign,svd]"], capsys, tmp_path / "o"))
    assert "data_id" in err


@pytest.mark.slow  # computes cells
def test_kmdr_runs_it_and_records_version_and_checksum(monkeypatch, tmp_path):
    serve(monkeypatch, 1)
    args = ["dataset=openml", f"dataset.params.data_id={DATA_ID}", "reducer=[sign,svd]",
            "r_grid=[1,2]", "repeats=1", "n_jobs=1", "progress=false", "figures=false",
            f"data_dir={tmp_path / 'cache'}", "results_dir=out"]  # fmt: skip
    proc = run_kmdr(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    (record,) = (tmp_path / "out" / "custom" / "runs").glob("*.json")
    dataset = json.loads(record.read_text())["dataset"]
    assert "version 1" in dataset["description"] and "md5" in dataset["description"]
