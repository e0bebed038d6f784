"""pb17's two variants of PD, declared for its :class:`~kmdr.plugins.Paper`.

PD itself (``sparsified``: preconditioning, then sparsified k-means) is a kmdr built-in, since
lst17 draws it as a baseline; the variants only pb17's experiments run are declared here, as the
same class with one parameter fixed, and share PD's plan (so its compat version): PD without the
preconditioning, and PD followed by the paper's second pass over the original data. pb17's presets
run all three by the authors' rules (``rules="authors"``: their stored entries, sparse first
centers, start, update, empty-cluster action and stop) and draw kmdr's own rules beside them under
labels of their own.
"""

from __future__ import annotations

from kmdr.reducers import BUILTIN_REDUCERS, LineStyle, ReducerEntry

__all__ = ["SPARSIFIED_RAW", "SPARSIFIED_TWO_PASS"]

_PD = BUILTIN_REDUCERS["sparsified"]

#: PD without preconditioning: r raw entries kept per row.
SPARSIFIED_RAW = ReducerEntry(
    _PD.cls,
    label="PD (no precond.)",
    fixed={"preconditioner": "none"},
    paper="Pourkamali-Anaraki & Becker 2017 (sparsification without preconditioning)",
    style=LineStyle("#ad494a", "x"),
    aliases=("pd_raw",),
    time_includes=(
        "keeping r raw entries per row (no signs, no transform); its clustering time is "
        "sparsified k-means on that sketch"
    ),
    plan=_PD.plan,
)

#: PD, then the second pass over the original data.
SPARSIFIED_TWO_PASS = ReducerEntry(
    _PD.cls,
    label="PD 2-pass",
    fixed={"second_pass": True},
    paper="Pourkamali-Anaraki & Becker 2017 (two-pass sparsified k-means)",
    style=LineStyle("#e7ba52", "o"),
    aliases=("pd_two_pass",),
    time_includes=(
        "the same sketch as PD (preconditioning, r entries kept per row); its clustering "
        "time is sparsified k-means plus the second pass over the original data (nearest "
        "center and exact cluster means)"
    ),
    plan=_PD.plan,
)
