"""The guides quote results/bench/ from its CSVs: each marked table is the one
scripts/bench/bench_tables.py makes from its CSV, and the numbers the prose repeats are the
CSVs'."""

import importlib.util
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "results" / "bench"


def _script():
    spec = importlib.util.spec_from_file_location(
        "bench_tables", ROOT / "scripts" / "bench" / "bench_tables.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_marked_table_is_made_from_its_csv():
    tables = _script()
    for guide in tables.GUIDES:
        text = guide.read_text(encoding="utf-8")
        assert tables.rewritten(text) == text, (
            f"{guide.name}: run python scripts/bench/bench_tables.py"
        )
    names = {m.group(2) for g in tables.GUIDES for m in tables._BLOCK.finditer(g.read_text())}
    assert names == set(tables.tables())  # each table is in a guide, the papers' too


def test_the_prose_repeats_the_csvs_numbers():
    text = (ROOT / "docs" / "guide" / "benchmarks.md").read_text(encoding="utf-8")
    dist = pd.read_csv(BENCH / "distributed.csv")
    cell = dist[(dist.side == "chunked") & (dist.step == "cell")]
    workers = cell[cell.process.str.startswith("worker")].groupby("reducer").peak_mib.max()
    driver = cell[cell.process == "driver"].groupby("reducer").peak_mib.max()
    # the whole cell's worker peak (the reduce step's alone was once quoted as the cell's)
    assert f"at {workers.min():.0f}-{workers.max():.0f} MiB of their 2,048" in text
    assert f"({driver.min():,.0f}-{driver.max():,.0f} MiB\nat its peak)" in text
    scale = pd.read_csv(BENCH / "scale.csv")
    runs = scale[(scale.n == scale.n.max()) & (scale.step == "run n_jobs=1")]
    se, rp = (runs[runs.reducer == r].peak_mib.iloc[0] / 1024 for r in ("sparse_embedding", "sign"))
    assert f"peaks at {se:.3g} GiB through SE and {rp:.3g} GiB through RP" in text.replace(
        "\n", " "
    )
