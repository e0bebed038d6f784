"""Which rows of an experiment's store are current: computed by this code, on the current data.

Readers (aggregates, figures, report) and ``kmdr-prune`` split the rows of a store the same way:

- *older code*: a row whose ``code_tag`` is not the one this installation gives its reducer
  (:func:`kmdr.results.cells.code_tag`: the cell format and the reducer's ``compat_version``),
  and every legacy row written before rows carried a checksum and a tag. The runner computes such
  a cell again when it is planned; the old row stays in cells.csv until pruned.
- *other data*: a row whose ``data_fingerprint`` is not the current one of its dataset and
  dataset parameters: the fingerprint the newest run sidecar recorded for them (without any
  sidecar that says, the newest row's, by run id).
- *another experiment*: a row whose ``experiment`` is not the folder's.

Such rows are never drawn, averaged or counted with the current ones; figures and the report say
how many were left out and how to remove them (:func:`exclusion_note`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

__all__ = [
    "OLDER_CODE",
    "OTHER_DATA",
    "OTHER_EXPERIMENT",
    "current_expected",
    "exclusion_note",
    "split_current",
]

OLDER_CODE = "older code"
OTHER_DATA = "other data"
OTHER_EXPERIMENT = "another experiment"
#: The kmdr-prune option that removes each kind of row.
_PRUNE_OPTION = {
    OLDER_CODE: "--older-code",
    OTHER_DATA: "--other-data",
    OTHER_EXPERIMENT: "--foreign",
}


def _params_text(value) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value
    return json.dumps(value if value is not None else {}, sort_keys=True)


def current_fingerprints(runs: list[dict], cells: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(dataset, dataset_params JSON) -> the current data fingerprint (see the module docstring)."""
    from_sidecars: dict[tuple[str, str], str] = {}
    for run in runs:  # in run-id order: the newest last, and it wins
        data = run.get("dataset")
        if isinstance(data, dict) and data.get("fingerprint") and data.get("name"):
            key = (str(data["name"]), _params_text(data.get("params")))
            from_sidecars[key] = str(data["fingerprint"])
    from_rows: dict[tuple[str, str], str] = {}
    if len(cells) and {"data_fingerprint", "run_id"} <= set(cells.columns):
        ordered = cells.dropna(subset=["data_fingerprint"]).sort_values("run_id", kind="stable")
        for dataset, params, fingerprint in ordered[
            ["dataset", "dataset_params", "data_fingerprint"]
        ].itertuples(index=False):
            from_rows[(str(dataset), _params_text(params))] = str(fingerprint)
    return {**from_rows, **from_sidecars}


def split_current(
    frame: pd.DataFrame, runs: list[dict], experiment: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(current, excluded)``: the rows of a store's frame (:meth:`CellStore.frame`, with its
    ``record`` column) that are current, and the others with an ``excluded`` column saying why
    (:data:`OLDER_CODE`, :data:`OTHER_DATA`, :data:`OTHER_EXPERIMENT`)."""
    from kmdr.results.cells import code_tag

    if not len(frame):
        return frame, frame.assign(excluded=pd.Series(dtype="string"))
    why = pd.Series(pd.NA, index=frame.index, dtype="string")
    record = frame["record"] if "record" in frame.columns else pd.Series("valid", frame.index)
    experiments = frame.get("experiment", pd.Series(experiment, index=frame.index))
    why[(record == "foreign") | (experiments.astype(str) != experiment)] = OTHER_EXPERIMENT
    tags = frame.get("code_tag", pd.Series(pd.NA, index=frame.index))
    names = frame.get("reducer_name", frame.get("reducer", pd.Series("", index=frame.index)))
    wanted = {name: code_tag(str(name)) for name in names.dropna().unique()}
    current_tag = names.map(wanted)
    older = (record == "legacy") | tags.isna()
    older |= current_tag.notna() & (tags.astype("string") != current_tag.astype("string"))
    why[why.isna() & older.fillna(True).astype(bool)] = OLDER_CODE
    ok = why.isna()
    fingerprints = current_fingerprints(runs, frame[ok])
    if fingerprints:
        params = frame.get("dataset_params", pd.Series("{}", index=frame.index))
        keys = [(str(d), _params_text(p)) for d, p in zip(frame["dataset"], params, strict=True)]
        current_fp = pd.Series([fingerprints.get(k) for k in keys], index=frame.index)
        other = current_fp.notna() & (frame["data_fingerprint"].astype(str) != current_fp)
        why[ok & other] = OTHER_DATA
    excluded = frame[why.notna()].assign(excluded=why[why.notna()])
    return frame[why.isna()], excluded


def exclusion_note(excluded: pd.DataFrame, experiment_dir: str | Path) -> str:
    """One line on the rows left out (e.g. "705 rows of older code not shown; `kmdr-prune DIR
    --older-code --remove` removes them"), or "" when none were."""
    if not len(excluded):
        return ""
    counts = excluded["excluded"].value_counts()
    kinds = [k for k in (OLDER_CODE, OTHER_DATA, OTHER_EXPERIMENT) if k in counts]
    what = " and ".join(f"{int(counts[k])} rows of {k}" for k in kinds)
    options = " ".join(_PRUNE_OPTION[k] for k in kinds)
    return f"{what} not shown; `kmdr-prune {experiment_dir} {options} --remove` removes them"


def current_expected(expected: pd.DataFrame, runs: list[dict]) -> pd.DataFrame:
    """The expected cells (sidecars) without those of older code or other data. A column a
    legacy sidecar does not give (unknown, <NA>) is not held against it: completeness matches it
    to the cells present."""
    from kmdr.results.cells import code_tag

    if not len(expected):
        return expected
    keep = pd.Series(True, index=expected.index)
    if "code_tag" in expected.columns:
        tags = expected["code_tag"]
        wanted = expected["reducer_name"].map(lambda n: code_tag(str(n)) if pd.notna(n) else None)
        known = tags.notna() & wanted.notna()
        keep &= ~(known & (tags.astype("string") != wanted.astype("string"))).fillna(False)
    fingerprints = current_fingerprints(runs, expected.iloc[0:0])
    if fingerprints and "data_fingerprint" in expected.columns:
        params = expected.get("dataset_params", pd.Series("{}", index=expected.index))
        current = pd.Series(
            [
                fingerprints.get((str(d), _params_text(p)))
                for d, p in zip(expected["dataset"], params, strict=True)
            ],
            index=expected.index,
        )
        fp = expected["data_fingerprint"]
        known = fp.notna() & current.notna()
        keep &= ~(known & (fp.astype("string") != current.astype("string"))).fillna(False)
    return expected[keep.astype(bool)]
