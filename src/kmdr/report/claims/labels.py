"""How the report names a method whose cells keep an older label: kmdr's variant of the
authors' sparsified k-means (PD) is always shown as "PD, kmdr's variant", one name per
algorithm, even where its cells say "PD" (lst17's cells keep the label they were computed
under; a new label would rename the method of every cell already computed).

A method is kmdr's variant when its cells run :class:`kmdr.reducers.sparsified.
PreconditionedSparsification` (a reducer name starting with ``sparsified``) under kmdr's rules
(``rules``: its parameter, or the estimator's default when the cells do not set it).
"""

from __future__ import annotations

import inspect
import json

import pandas as pd

__all__ = ["VARIANT", "shown_names"]

#: The end of the name of kmdr's variant of a method, after that method's own label.
VARIANT = ", kmdr's variant"


def _default_rules() -> str:
    from kmdr.reducers.sparsified import PreconditionedSparsification

    return str(inspect.signature(PreconditionedSparsification).parameters["rules"].default)


def _rules(params) -> str | None:
    try:
        value = json.loads(params) if isinstance(params, str) and params else {}
    except ValueError:
        return None
    return value.get("rules") if isinstance(value, dict) else None


def shown_names(cells: pd.DataFrame) -> dict[str, str]:
    """{method label in the cells: the name the report shows} for every method of ``cells``
    that is kmdr's variant of PD without saying so (the others keep their label)."""
    needed = {"method", "reducer_name"}
    if cells.empty or not needed <= set(cells.columns):
        return {}
    default = None
    out = {}
    cols = ["method", "reducer_name"] + (["reducer_params"] if "reducer_params" in cells else [])
    for row in cells[cols].drop_duplicates().itertuples(index=False):
        method, name = str(row.method), str(row.reducer_name)
        if not name.startswith("sparsified") or VARIANT.strip(", ") in method:
            continue
        rules = _rules(getattr(row, "reducer_params", None))
        if rules is None:
            default = _default_rules() if default is None else default
            rules = default
        if rules == "kmdr":
            out[method] = f"{method}{VARIANT}"
    return out
