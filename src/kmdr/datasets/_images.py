"""Pixel datasets: ORL (64x64 and the raw 112x92 PGMs), COIL20, USPS and PIE.

Each loader reads the registered file as its source publishes it (variable names,
orientation, label coding) and checks the shape and classes it expects. Pixel values are returned
as float64 in the file's own scale, except USPS, which bzmd14 scales to [0, 1].
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ._base import Dataset
from ._registry import fetch, registry

ORL_FACES_DIR = "orl/orl_faces"
#: The 400 PGMs in row order (s1/1..s1/10, s2/1, ..., s40/10), then the README: every file of the
#: orl_faces manifest.
ORL_FACES_FILES = (
    *(f"{ORL_FACES_DIR}/s{s}/{i}.pgm" for s in range(1, 41) for i in range(1, 11)),
    f"{ORL_FACES_DIR}/README",
)


def _loadmat(path: Path, *names: str) -> dict[str, np.ndarray]:
    import scipy.io as sio

    mat = sio.loadmat(path, variable_names=names)
    missing = [n for n in names if n not in mat]
    if missing:
        raise ValueError(f"{path}: variables {missing} not found")
    return {n: mat[n] for n in names}


def _expect(path: Path, what: str, actual, expected) -> None:
    if actual != expected:
        raise ValueError(f"{path}: {what} is {actual}, expected {expected}")


def _labels(path: Path, gnd: np.ndarray, n: int, k: int, per_class: int) -> np.ndarray:
    """Check a 1..k label column (``per_class`` each) and return it as int64 0..k-1."""
    gnd = np.asarray(gnd).ravel()
    _expect(path, "number of labels", gnd.size, n)
    _expect(path, "label values", (int(gnd.min()), int(gnd.max())), (1, k))
    counts = np.bincount(gnd.astype(np.int64) - 1, minlength=k)
    if not np.all(counts == per_class):
        raise ValueError(f"{path}: class sizes {counts.tolist()}, expected {per_class} each")
    return gnd.astype(np.int64) - 1


def load_orl(*, data_dir=None, mirror=None) -> Dataset:
    """ORL/AT&T faces, Deng Cai's 64x64 version: 400 x 4096, 40 subjects x 10, pixels 0..255."""
    path = fetch("orl/ORL_64x64.mat", dataset="orl", data_dir=data_dir, mirror=mirror)
    m = _loadmat(path, "fea", "gnd")
    X = m["fea"].astype(np.float64)
    _expect(path, "fea shape", X.shape, (400, 4096))
    y = _labels(path, m["gnd"], 400, 40, 10)
    return Dataset(
        name="orl",
        X=X,
        y=y,
        n_clusters=40,
        feature_names=None,
        description="ORL/AT&T faces 64x64 (Deng Cai's ORL_64x64.mat via "
        "github fandahao17/K-means-with-dimension-reduction@84ffa69), raw pixels 0..255",
        image_shape=(64, 64),
        image_order="F",
    )


def read_pgm(path: str | Path) -> np.ndarray:
    """Read an 8-bit binary (P5) PGM as a ``height x width`` uint8 array, with Pillow.

    Only 8-bit grey images with maxval 255 are accepted: Pillow rescales a smaller maxval to
    0..255 and widens a larger one to 16 or 32 bits, either of which would change the pixel values
    the file holds. Anything else, a truncated raster included, is a :class:`ValueError` naming
    the file.
    """
    from PIL import Image

    def unreadable(err: Exception) -> ValueError:
        return ValueError(f"{path}: not a readable 8-bit binary PGM ({err})")

    try:
        image = Image.open(path, formats=["PPM"])
    except (OSError, SyntaxError, ValueError) as err:  # not a PGM, or a broken header
        raise unreadable(err) from None
    with image:
        # Pillow reads P5 with maxval 255 (and only that) as mode L with its raw decoder.
        decoders = [tile[0] for tile in image.tile]
        if image.mode != "L" or decoders != ["raw"]:
            raise ValueError(
                f"{path}: not an 8-bit binary PGM ({image.get_format_mimetype()}, "
                f"mode {image.mode}, decoder {decoders})"
            )
        try:
            return np.asarray(image, dtype=np.uint8)
        except (OSError, ValueError) as err:  # a truncated raster (which one: Pillow's version)
            raise unreadable(err) from None


def orl_faces_manifest_sha256() -> str:
    """The sha256 of ``orl_faces.SHA256SUMS`` rebuilt from the registry (``sha256sum`` format,
    paths sorted): one hash standing for the 401 verified files."""
    prefix = "orl/"
    lines = [f"{registry()[p].known_hash}  {p[len(prefix) :]}\n" for p in sorted(ORL_FACES_FILES)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def load_orl_raw(*, data_dir=None, mirror=None) -> Dataset:
    """The original AT&T 112x92 PGMs: 400 x 10304, rows s1/1..s1/10, s2/1, ..., s40/10."""
    missing = [p for p in ORL_FACES_FILES if p not in registry()]
    if missing:
        raise RuntimeError(f"ORL files missing from the data registry: {missing[:3]} ...")
    # Every file of the manifest is fetched (so verified), the README too: the manifest's sha256
    # then stands for what was read.
    paths = [fetch(p, dataset="orl_raw", data_dir=data_dir, mirror=mirror) for p in ORL_FACES_FILES]
    images = [read_pgm(p) for p in paths if p.suffix == ".pgm"]
    shapes = {im.shape for im in images}
    if shapes != {(112, 92)}:
        raise ValueError(f"{ORL_FACES_DIR}: image shapes {shapes}, expected 112x92")
    X = np.stack(images).reshape(400, -1).astype(np.float64)
    y = np.repeat(np.arange(40, dtype=np.int64), 10)
    return Dataset(
        name="orl_raw",
        X=X,
        y=y,
        n_clusters=40,
        feature_names=None,
        description="ORL/AT&T faces, original 112x92 PGMs s1..s40 (github "
        "fandahao17/K-means-with-dimension-reduction@84ffa69), raw pixels 0..255",
        image_shape=(112, 92),
        image_order="C",
    )


def load_coil20(*, data_dir=None, mirror=None) -> Dataset:
    """COIL-20, 32x32: 1440 x 1024 in [0, 1], 20 objects x 72 poses."""
    path = fetch("coil20/COIL20.mat", dataset="coil20", data_dir=data_dir, mirror=mirror)
    m = _loadmat(path, "X", "Y")
    X = np.asarray(m["X"], dtype=np.float64)
    _expect(path, "X shape", X.shape, (1440, 1024))
    y = _labels(path, m["Y"], 1440, 20, 72)
    return Dataset(
        name="coil20",
        X=X,
        y=y,
        n_clusters=20,
        feature_names=None,
        description="COIL-20 32x32 (scikit-feature COIL20.mat via github "
        "jundongl/scikit-feature@48cffad), pixels in [0, 1]",
        image_shape=(32, 32),
        image_order="F",
    )


def load_usps(*, data_dir=None, mirror=None) -> Dataset:
    """USPS digits, 1100 per digit: 11000 x 256 scaled to [0, 1] (uint8 / 255); y = the digit.

    The file codes labels as ``gnd = digit + 1`` (gnd 1 is the digit 0), so ``y = gnd - 1``.
    """
    path = fetch("usps/USPS_11000x256_uint8.mat", dataset="usps", data_dir=data_dir, mirror=mirror)
    m = _loadmat(path, "fea", "gnd")
    _expect(path, "fea dtype", m["fea"].dtype, np.dtype(np.uint8))
    X = m["fea"].astype(np.float64) / 255.0
    _expect(path, "fea shape", X.shape, (11000, 256))
    y = _labels(path, m["gnd"], 11000, 10, 1100)  # gnd - 1 = the digit
    return Dataset(
        name="usps",
        X=X,
        y=y,
        n_clusters=10,
        feature_names=None,
        description="USPS digits 16x16, 1100 per digit (Roweis usps_all content, fea/gnd form, via "
        "github se2/cis602-01-a3@009320f), uint8/255 in [0, 1], label = digit",
        image_shape=(16, 16),
        image_order="C",
    )


def load_pie(*, data_dir=None, mirror=None) -> Dataset:
    """CMU PIE, 68 people x 42 illuminations, 32x32: 2856 x 1024 (the file stores it transposed)."""
    path = fetch("pie/PIE_2856x1024.mat", dataset="pie", data_dir=data_dir, mirror=mirror)
    m = _loadmat(path, "fea", "gnd")
    _expect(path, "fea shape (stored images-as-columns)", m["fea"].shape, (1024, 2856))
    X = np.ascontiguousarray(m["fea"].T, dtype=np.float64)
    y = _labels(path, m["gnd"], 2856, 68, 42)
    return Dataset(
        name="pie",
        X=X,
        y=y,
        n_clusters=68,
        feature_names=None,
        description="CMU PIE 32x32, 68 people x 42 illuminations (PIE.mat via github "
        "louloupiano/PCPSNMF@ba49a41, transposed), raw pixels 0..255",
        image_shape=(32, 32),
        image_order="F",
    )
