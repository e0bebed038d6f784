"""kmdr's own datasets, each declared once (loader, kind, display name, files, facts).

The order of :data:`BUILTIN` is the order datasets are listed in (``kmdr-list``, ``kmdr-data``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ._entry import DatasetEntry
from ._generated import generated_blocks
from ._images import (
    ORL_FACES_FILES,
    load_coil20,
    load_orl,
    load_orl_raw,
    load_pie,
    load_usps,
    orl_faces_manifest_sha256,
)
from ._mixture import make_mixture
from ._openml import OPENML_PARAMS, load_openml
from ._shards import load_shards, shard_blocks
from ._sparse_text import make_sparse_text
from ._synthetic import (
    MIXTURE_DEFAULTS,
    SPARSE_TEXT_DEFAULTS,
    SYNTH_DEFAULTS,
    MixtureParams,
    SparseTextParams,
    SynthParams,
    make_synth,
)
from ._text import (
    NIPS_FILE,
    NIPS_METADATA_FILES,
    RCV1_FILE,
    RCV1_SHAPE,
    load_nips,
    load_rcv1,
)
from ._user_file import FILE_PARAMS, load_file

__all__ = ["BUILTIN", "PARAM_SCHEMAS", "recorded_params"]

_BUILTIN: tuple[DatasetEntry, ...] = (
    DatasetEntry(
        "orl", load_orl, "file", "ORL", ("orl/ORL_64x64.mat",),
        n_samples=400, n_features=4096, n_clusters=40, sparse=False,
        description="ORL/AT&T faces, 64x64 (Deng Cai's version)",
    ),
    DatasetEntry(
        "orl_raw", load_orl_raw, "file", "ORL (112x92)", ORL_FACES_FILES,
        n_samples=400, n_features=10304, n_clusters=40, sparse=False,
        digest=orl_faces_manifest_sha256,
        description="ORL/AT&T faces, the original 112x92 PGMs",
    ),
    DatasetEntry(
        "coil20", load_coil20, "file", "COIL20", ("coil20/COIL20.mat",),
        n_samples=1440, n_features=1024, n_clusters=20, sparse=False,
        description="COIL-20 objects, 32x32",
    ),
    DatasetEntry(
        "usps", load_usps, "file", "USPS", ("usps/USPS_11000x256_uint8.mat",),
        n_samples=11000, n_features=256, n_clusters=10, sparse=False,
        description="USPS handwritten digits, 16x16, 1100 per digit",
    ),
    DatasetEntry(
        "pie", load_pie, "file", "PIE", ("pie/PIE_2856x1024.mat",),
        n_samples=2856, n_features=1024, n_clusters=68, sparse=False,
        description="CMU PIE faces, 68 people x 42 illuminations, 32x32",
    ),
    DatasetEntry(
        "synth", make_synth, "synthetic", "Synth",
        n_samples=SYNTH_DEFAULTS["n_samples"], n_features=SYNTH_DEFAULTS["n_features"],
        n_clusters=SYNTH_DEFAULTS["n_clusters"], sparse=False,
        params=SYNTH_DEFAULTS, added_params=MappingProxyType({"tile_rows": 0}),
        blocks=generated_blocks,
        description="SYNTHETIC Gaussian mixture of bzmd14 §7.3",
    ),
    DatasetEntry(
        "nips", load_nips, "file", "NIPS", (NIPS_FILE,), NIPS_METADATA_FILES,
        n_samples=184, n_features=None, n_clusters=3, sparse=True,  # d: terms found in the docs
        description="NIPS 2001-2003 papers of sections CN/LT/NS, word counts (bmd09)",
    ),
    DatasetEntry(
        "rcv1", load_rcv1, "file", "RCV1", (RCV1_FILE,),
        n_samples=RCV1_SHAPE[0], n_features=RCV1_SHAPE[1], n_clusters=None, sparse=True,  # k:
        # the classes present in the file (LIBSVM's training split holds 51 of its 53 labels)
        description="RCV1 multiclass training split (LIBSVM), tf-idf",
    ),
    DatasetEntry(
        "sparse_text", make_sparse_text, "synthetic", "sparse_text (RCV1 stand-in)",
        n_samples=SPARSE_TEXT_DEFAULTS["n_samples"],
        n_features=SPARSE_TEXT_DEFAULTS["n_features"],
        n_clusters=SPARSE_TEXT_DEFAULTS["n_clusters"], sparse=True,
        params=SPARSE_TEXT_DEFAULTS, blocks=generated_blocks,
        description="SYNTHETIC sparse document-term matrix with RCV1's shape and density",
    ),
    DatasetEntry(
        "mixture", make_mixture, "synthetic", "Mixture (imbalanced)",
        n_samples=MIXTURE_DEFAULTS["n_samples"], n_features=MIXTURE_DEFAULTS["n_features"],
        n_clusters=MIXTURE_DEFAULTS["n_clusters"], sparse=False,
        params=MIXTURE_DEFAULTS, blocks=generated_blocks,
        description="SYNTHETIC imbalanced Gaussian mixture, cluster sizes falling geometrically",
    ),
    DatasetEntry(
        "shards", load_shards, "folder", "shards",
        params=MappingProxyType({"path": None}), blocks=shard_blocks,
        description="a folder of row shards (npz, with a manifest of sha256), one block a shard",
    ),
    DatasetEntry(
        "file", load_file, "folder", "file",
        params=FILE_PARAMS,
        description="your data file: .npy, .npz, .csv, .parquet, .mat or svmlight (path=...)",
    ),
    DatasetEntry(
        "openml", load_openml, "fetched", "OpenML",
        params=OPENML_PARAMS,
        description="a dataset of OpenML by its id, fetched by scikit-learn (data_id=...)",
    ),
)  # fmt: skip
#: Dataset name -> declaration, in listing order.
BUILTIN: Mapping[str, DatasetEntry] = MappingProxyType({e.name: e for e in _BUILTIN})
#: Dataset name -> the dataclass of its parameters (:class:`~._params.GeneratorParams`): names,
#: types, defaults and checks, and the schema of ``dataset.params`` (kmdr.config.schema).
PARAM_SCHEMAS: Mapping[str, type] = MappingProxyType(
    {"synth": SynthParams, "sparse_text": SparseTextParams, "mixture": MixtureParams}
)


def recorded_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` of dataset ``name`` as a cell records them: checked against the dataset's
    :class:`GeneratorParams` when it declares one (``DatasetError``, one line, for a bad one),
    else as given."""
    from ._registry import DatasetError

    schema = PARAM_SCHEMAS.get(name)
    if schema is None:
        return dict(params)
    try:
        return schema.checked(params).recorded()
    except ValueError as err:
        defaults = ", ".join(f"{k}={v!r}" for k, v in schema.defaults().items())
        raise DatasetError(f"dataset {name!r}: {err}; defaults: {defaults}") from None
