"""ORL's PGM images, read with Pillow: the pixels are the file's raster bytes, and a file that is
not an 8-bit binary PGM is a one-line error naming it."""

import numpy as np
import pytest

import kmdr.datasets as kd
from _cases import case
from _data import real_dataset, real_file
from kmdr.datasets._images import ORL_FACES_FILES


@pytest.mark.slow
def test_every_orl_face_is_its_raster_bytes():
    # A P5 file with maxval 255 ends with its height x width raster, one byte per pixel: an
    # oracle independent of any header parsing.
    pgms = [p for p in ORL_FACES_FILES if p.endswith(".pgm")]
    for rel in pgms:
        path = real_file(rel, "orl_raw")
        image = kd.read_pgm(path)
        assert image.dtype == np.uint8 and image.shape == (112, 92), rel
        raster = np.frombuffer(path.read_bytes()[-112 * 92 :], dtype=np.uint8)
        assert np.array_equal(image.ravel(), raster), rel
    ds = real_dataset("orl_raw")
    first = real_file(pgms[0], "orl_raw")
    assert np.array_equal(ds.X[0], np.frombuffer(first.read_bytes()[-112 * 92 :], np.uint8))


def _pgm(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


BAD_PGMS = {
    "sixteen_bit": b"P5\n2 2\n65535\n" + bytes(8),
    "maxval_below_255": b"P5\n2 2\n15\n" + bytes([0, 5, 10, 15]),
    "ascii_pgm": b"P2\n2 2\n255\n0 1 2 3\n",
    "truncated_raster": b"P5\n4 4\n255\n" + bytes(5),
    "colour_ppm": b"P6\n1 1\n255\n" + bytes(3),
    "not_an_image": b"hello, not a picture",
    "broken_header": b"P5\n",
}


# No pixel value is rescaled or guessed: another format is refused, whatever Pillow could read.
_OTHER_FORMAT = dict(
    says="not an 8-bit binary PGM",
    doing="data",
    cause="kmdr.datasets.read_pgm (which reads ORL's faces) was given an image in another "
    "format: 16-bit, a maximum value below 255, ASCII (P2) or colour",
    fix="convert it to an 8-bit binary PGM (P5, maximum 255), e.g. with Pillow: "
    "`Image.open(path).convert('L').save('face.pgm')`",
)
_UNREADABLE = dict(
    says="not a readable 8-bit binary PGM",
    doing="data",
    cause="the image file is cut short, has a broken header or is not an image at all",
    fix="fetch the file again (`kmdr-data orl_raw` for ORL's faces), or write it again",
)
_KINDS = dict.fromkeys(("truncated_raster", "not_an_image", "broken_header"), _UNREADABLE)


@pytest.mark.parametrize(
    ("kind", "says"),
    [case(kind, **_KINDS.get(kind, _OTHER_FORMAT), id=kind) for kind in sorted(BAD_PGMS)],
)
def test_a_bad_pgm_is_one_line_naming_the_file(tmp_path, kind, says):
    path = _pgm(tmp_path, f"{kind}.pgm", BAD_PGMS[kind])
    with pytest.raises(ValueError) as err:
        kd.read_pgm(path)
    message = str(err.value)
    assert message.startswith(f"{path}: {says} (") and "\n" not in message


def test_a_good_pgm_with_trailing_bytes_reads_its_raster(tmp_path):
    raster = np.arange(12, dtype=np.uint8)
    path = _pgm(tmp_path, "x.pgm", b"P5 4 3 255\n" + raster.tobytes() + b"extra")
    assert np.array_equal(kd.read_pgm(path), raster.reshape(3, 4))
