"""The look shared by every figure of kmdr: each method's color and marker and the legend order,
read from the reducer declarations (:data:`kmdr.reducers.REDUCERS`); the matplotlib settings;
dataset display names; how a figure says it is incomplete.

A row of results is matched to its reducer's declaration by its ``reducer_name`` (the registry
name), never by the spelling of its label. It is drawn as that declaration when its label is the
declared one, one of the declaration's aliases, or the name the figure style gives it (lst17 calls
the baseline "k-means"); a preset's own label for a variant (``Sampl/SVD (sqrt scores)``) is a
method of its own and gets a color no other line of the figure has.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from kmdr.reducers import REDUCERS, LineStyle, baseline_names, reducer_entry

__all__ = [
    "INCOMPLETE_COLOR",
    "RC",
    "LineStyle",
    "baseline_style",
    "dataset_label",
    "declared_label",
    "incomplete_note",
    "row_title",
    "sort_key",
    "style_of",
    "styles_for",
    "suptitle",
]

# For methods no declaration styles (the report's variants, user reducers): a stable pick.
_EXTRA_COLORS = ["#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"]
_EXTRA_MARKERS = ["p", "<", ">", "d", "H", "8", "1"]
# matplotlib's tab20 light shades and a few darker ones, used once the extra colors run out.
_SPARE_COLORS = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
                 "#dbdb8d", "#9edae5", "#5254a3"]  # fmt: skip
# How a baseline without a declared style is drawn.
_BASELINE_STYLE = LineStyle("black", "", "--")


def _entry(reducer_name):
    try:
        return reducer_entry(str(reducer_name))
    except ValueError:  # a plug-in no longer installed: the row keeps its own label
        return None


def declared_label(reducer_name, method, names: dict | None = None) -> str | None:
    """The declared label of the row's reducer when the row is that declaration: its label is
    the declared one, an alias, or ``names[reducer_name]`` (a figure style's name for it);
    None for a variant labelled by its preset, or an unknown reducer."""
    entry = _entry(reducer_name)
    if entry is None or reducer_name is None or pd.isna(reducer_name):
        return None
    own = {entry.label, *entry.aliases}
    if names and str(reducer_name) in names:
        own.add(names[str(reducer_name)])
    return entry.label if str(method) in own else None


def _styled_order() -> list[str]:
    """Registry names with a declared style, in declaration order (the legend order)."""
    return [n for n in REDUCERS.names() if (e := _entry(n)) is not None and e.style is not None]


def sort_key(reducer_name, method, names: dict | None = None) -> tuple[int, str]:
    """Legend order: the declared methods in declaration order, then the others by label."""
    order = _styled_order()
    if declared_label(reducer_name, method, names) is not None and str(reducer_name) in order:
        return (order.index(str(reducer_name)), str(method))
    return (len(order), str(method))


def baseline_style() -> LineStyle:
    """How the no-reduction baseline is drawn: the declared style of the baseline reducer."""
    for name in baseline_names():
        entry = _entry(name)
        if entry is not None and entry.style is not None:
            return entry.style
    return _BASELINE_STYLE


def _hashed(method: str) -> LineStyle:
    h = zlib.crc32(str(method).encode())
    return LineStyle(
        _EXTRA_COLORS[h % len(_EXTRA_COLORS)], _EXTRA_MARKERS[(h // 7) % len(_EXTRA_MARKERS)]
    )


def style_of(reducer_name, method, names: dict | None = None) -> LineStyle:
    """Color, marker and line style of one method: its declaration's, else a stable pick."""
    if declared_label(reducer_name, method, names) is not None:
        entry = _entry(reducer_name)
        if entry.style is not None:
            return entry.style
    return _hashed(method)


def styles_for(lines: Iterable[tuple[str, str]], names: dict | None = None) -> dict:
    """The style of every (reducer_name, method) drawn in one figure: declared methods keep
    their own; the others (the report's variants, later methods, your reducers) get colors and
    markers no other method of the figure has, in a stable order (by label), so that no two
    curves look alike."""
    lines = list(dict.fromkeys((str(n), str(m)) for n, m in lines))
    out = {}
    for name, method in lines:
        if declared_label(name, method, names) is not None and _entry(name).style is not None:
            out[(name, method)] = _entry(name).style
    taken = {st.color for st in out.values()}
    free = [c for c in (*_EXTRA_COLORS, *_SPARE_COLORS) if c not in taken]
    markers = [*_EXTRA_MARKERS, "o", "s", "^", "D", "v", "P", "*", "X"]
    others = sorted((key for key in lines if key not in out), key=lambda key: key[1])
    for i, key in enumerate(others):
        if i < len(free):
            out[key] = LineStyle(free[i], markers[i % len(markers)])
        else:  # more methods than colors: fall back to the stable hash
            out[key] = _hashed(key[1])
    return out


#: The colour of every 'incomplete' mark and note.
INCOMPLETE_COLOR = "#c0392b"
#: matplotlib settings of every figure.
RC = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "savefig.dpi": 130,
    "pdf.fonttype": 42,
}


def dataset_label(dataset: str) -> str:
    """How a panel title names a dataset: its declaration's display name (its own name when no
    dataset of that name is declared, e.g. a dataset only a paper had)."""
    from kmdr.datasets import DatasetUnavailable, dataset_info

    try:
        return dataset_info(str(dataset)).display_name
    except (KeyError, ValueError, DatasetUnavailable):
        return str(dataset)


def row_title(dataset: str, setting: str | None, points: pd.DataFrame) -> str:
    """How a row of panels is titled: the dataset's display name and the setting that tells it
    from the figure's other rows, with a dataset's parameters (a JSON text in the setting) said
    as a reader names them: a file of one's own by its file name (``wine.csv``, not
    ``file, dataset_params={"path": ...}``), other parameters as ``key=value``."""
    label = dataset_label(dataset)
    raw = str(points["dataset_params"].iloc[0]) if "dataset_params" in points.columns else ""
    said = f"dataset_params={raw}"
    if not setting or not raw or said not in setting:
        return label + (f", {setting}" if setting else "")
    try:
        params = json.loads(raw)
    except ValueError:
        return f"{label}, {setting}"
    rest = ", ".join(p for p in setting.replace(said, "").split(", ") if p.strip())
    if isinstance(params, dict) and params.get("path"):
        label = Path(str(params["path"])).name
    elif isinstance(params, dict):
        named = ", ".join(f"{k}={v}" for k, v in params.items() if v is not None)
        rest = ", ".join(filter(None, [named, rest]))
    return label + (f", {rest}" if rest else "")


def incomplete_note(summary: pd.DataFrame) -> str:
    """``incomplete: n/N cells`` for summary rows resting on fewer cells than expected, else ""."""
    n, m = int(summary["n_cells"].sum()), int(summary["n_expected"].sum())
    return "" if n >= m else f"incomplete: {n}/{m} cells"


def suptitle(exp_dir: Path, title: str, what: str) -> str:
    """The preset's title, then the experiment's name when the title is not it."""
    name = exp_dir.name
    return f"{title} ({what})" if title == name else f"{title} ({name}; {what})"
