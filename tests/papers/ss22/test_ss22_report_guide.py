"""The ss22 guide quotes the committed table: its marked table is the one
:func:`kmdr.papers.ss22.published.guide_table` makes from it, and the numbers its prose
repeats are the table's."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from kmdr.papers.ss22 import claims as S
from kmdr.papers.ss22 import published as P

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "guide" / "ss22.md"
TABLE = pd.read_csv(ROOT / "results" / P.TABLE)
_BLOCK = re.compile(r"<!-- ss22-table: (\w+) k=(\d+) -->\n(.*?)<!-- end ss22-table -->", re.S)


def _text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def test_the_guides_table_is_made_from_the_committed_table():
    blocks = _BLOCK.findall(_text())
    assert blocks
    for dataset, k, body in blocks:
        assert body.strip() == P.guide_table(TABLE, dataset, int(k)).strip()


def test_the_prose_repeats_the_tables_numbers():
    text = " ".join(_text().split())
    bico = TABLE[TABLE["algorithm"] == "BICO"].groupby("dataset")["distortion_median"].median()
    assert (
        f"The median of BICO's cell medians, {bico['NYTimes']:.3g} on NYTimes and "
        f"{bico['NYTimes+PCA']:.3f} on NYTimes+PCA, is therefore two different measures" in text
    )
    assert f"({int(TABLE['n_runs'].sum()):,} runs" in text
    assert f"×(1 ± {S.MARGIN:g})" in text
    bench = TABLE[TABLE["dataset"] == "Benchmark"]
    good = bench[bench["algorithm"].isin(["Sensitivity Sampling", "Group Sampling"])]
    assert f"reach about {good['distortion_median'].median():.2f} on the Benchmark" in text


def test_the_guide_is_in_the_sites_contents():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "\nguide/ss22\n" in index
