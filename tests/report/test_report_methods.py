"""The report's two tables of methods (what ran, what each time includes): one row per
algorithm, under the report's one name for it, and its reducer as the cells and the config name
it, in both tables alike."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest

from kmdr.reducers import reducer_entry
from kmdr.report import header

KMDR = json.dumps({"rules": "kmdr"})
RAW_KMDR = json.dumps({"preconditioner": "none", "rules": "kmdr"})
TWO_PASS_KMDR = json.dumps({"second_pass": True, "rules": "kmdr"})


def _experiment(name: str, rows: list[tuple[str, str, str, str]]) -> SimpleNamespace:
    cells = pd.DataFrame(rows, columns=["method", "reducer", "reducer_name", "reducer_params"])
    return SimpleNamespace(name=name, has_cells=True, cells=cells)


#: pb17's kmdr variants run the one estimator under reducer ids of their own; lst17 runs kmdr's
#: variant under the plain id, labelled "PD".
EXPERIMENTS = {
    "pb17_digits": _experiment(
        "pb17_digits",
        [
            ("PD (no precond.), kmdr's variant", "sparsified_raw_kmdr", "sparsified", RAW_KMDR),
            ("PD 2-pass, kmdr's variant", "sparsified_two_pass_kmdr", "sparsified", TWO_PASS_KMDR),
            ("PD, kmdr's variant", "sparsified_kmdr", "sparsified", KMDR),
        ],
    ),
    "lst17_coil20": _experiment("lst17_coil20", [("PD", "sparsified", "sparsified", "{}")]),
}


def _rows(text: str) -> dict[str, list[str]]:
    out = {}
    for line in text.splitlines():
        cols = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and not set(cols[0]) <= {"-"} and cols[0] != "method":
            assert cols[0] not in out, f"{cols[0]} has two rows"
            out[cols[0]] = cols
    return out


@pytest.mark.parametrize(
    ("method", "reducers", "described_as"),
    [
        ("PD (no precond.), kmdr's variant", "`sparsified_raw_kmdr`", "sparsified_raw"),
        ("PD 2-pass, kmdr's variant", "`sparsified_two_pass_kmdr`", "sparsified_two_pass"),
        # one algorithm under two ids (lst17's and pb17's presets): one row naming both
        ("PD, kmdr's variant", "`sparsified`, `sparsified_kmdr`", "sparsified"),
    ],
)
def test_each_algorithm_has_one_row_and_the_same_reducers_in_both_tables(
    method, reducers, described_as
):
    run = _rows(header.section_methods(EXPERIMENTS))
    timed = _rows(header.section_time_includes(EXPERIMENTS))
    assert run[method][1] == reducers == timed[method][1]
    assert timed[method][2] == reducer_entry(described_as).time_includes
