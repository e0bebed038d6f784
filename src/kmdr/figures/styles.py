"""The look shared by every figure of kmdr: one color, marker and display name per method, the
matplotlib settings, dataset display names, and how a figure says it is incomplete."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

#: The papers' method names, in legend order (bzmd14 names first, then lst17's extras).
METHOD_ORDER: list[str] = [
    "Sampl/SVD",
    "Sampl/ApproxSVD",
    "RP",
    "SVD",
    "ApprSVD",
    "LapScores",
    "SE",
    "LLE",
    "PD",
    "kMeans",
]


#: The name whose style (black, dashed, no marker) every no-reduction baseline is drawn in; the
#: figures find the baseline by ``reducer_name == "none"``, never by this label.
BASELINE = "kMeans"


@dataclass(frozen=True)
class Style:
    color: str
    marker: str
    linestyle: str = "-"


_STYLES: dict[str, Style] = {
    "Sampl/SVD": Style("#1f77b4", "o"),
    "Sampl/ApproxSVD": Style("#17becf", "s"),
    "RP": Style("#d62728", "^"),
    "SVD": Style("#2ca02c", "D"),
    "ApprSVD": Style("#bcbd22", "v"),
    "LapScores": Style("#9467bd", "P"),
    "SE": Style("#ff7f0e", "*"),
    "LLE": Style("#8c564b", "X"),
    "PD": Style("#e377c2", "h"),
    "kMeans": Style("black", "", "--"),
}

# Aliases a runner or a user config may write, normalized (lower case, letters and digits only).
# No alias names the baseline by role ("none", "All"): it is found by reducer_name and keeps its
# own label.
_ALIASES: dict[str, str] = {
    "samplsvd": "Sampl/SVD",
    "leverage": "Sampl/SVD",
    "samplapproxsvd": "Sampl/ApproxSVD",
    "samplapprsvd": "Sampl/ApproxSVD",
    "rp": "RP",
    "sign": "RP",
    "svd": "SVD",
    "apprsvd": "ApprSVD",
    "approxsvd": "ApprSVD",
    "svdapprox": "ApprSVD",
    "lapscores": "LapScores",
    "laplacianscore": "LapScores",
    "laplacianscores": "LapScores",
    "ls": "LapScores",
    "se": "SE",
    "sparseembedding": "SE",
    "lle": "LLE",
    "pd": "PD",
    "sparsified": "PD",
    "kmeans": "kMeans",
}

# For methods the papers do not have (the report's variants, user reducers): a stable pick.
_EXTRA_COLORS = ["#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"]
_EXTRA_MARKERS = ["p", "<", ">", "d", "H", "8", "1"]
# matplotlib's tab20 light shades and a few darker ones, used once the extra colors run out.
_SPARE_COLORS = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
                 "#dbdb8d", "#9edae5", "#5254a3"]  # fmt: skip

#: How lst17 labels the methods it shares with bzmd14.
LST17_NAMES: dict[str, str] = {"kMeans": "k-means", "LapScores": "LS"}
#: Legend notes every figure adds to a method's name: PD's r is not a number of dimensions.
LEGEND_NOTES: dict[str, str] = {"PD": "PD (r = entries kept per row)"}


def canonical(method: str) -> str:
    """The papers' name for a method label or alias (unknown labels are returned unchanged)."""
    key = re.sub(r"[^a-z0-9]", "", str(method).lower())
    return _ALIASES.get(key, str(method))


def style(method: str) -> Style:
    """Color, marker and line style of a method; stable for methods the papers do not name."""
    name = canonical(method)
    if name in _STYLES:
        return _STYLES[name]
    h = zlib.crc32(name.encode())
    return Style(
        _EXTRA_COLORS[h % len(_EXTRA_COLORS)], _EXTRA_MARKERS[(h // 7) % len(_EXTRA_MARKERS)]
    )


def styles_for(methods) -> dict[str, Style]:
    """The style of every method drawn in one figure: the papers' methods keep their own; the
    others (the report's variants, later methods, your reducers) get colors and markers no other
    method of the figure has, in a stable order, so that no two curves look alike."""
    methods = list(dict.fromkeys(methods))
    out = {m: _STYLES[canonical(m)] for m in methods if canonical(m) in _STYLES}
    taken = {st.color for st in out.values()}
    free = [c for c in (*_EXTRA_COLORS, *_SPARE_COLORS) if c not in taken]
    markers = [m for m in (*_EXTRA_MARKERS, "o", "s", "^", "D", "v", "P", "*", "X")]
    others = sorted((m for m in methods if m not in out), key=lambda m: canonical(m))
    for i, method in enumerate(others):
        if i < len(free):
            out[method] = Style(free[i], markers[i % len(markers)])
        else:  # more methods than colors: fall back to the stable hash
            out[method] = style(method)
    return out


def display(method: str, figure_style: str = "bzmd14") -> str:
    """The label a figure shows: the paper's own name for the method."""
    name = canonical(method)
    if figure_style == "lst17":
        name = LST17_NAMES.get(name, name)
    return LEGEND_NOTES.get(name, name)


def sort_key(method: str) -> tuple[int, str]:
    name = canonical(method)
    return (METHOD_ORDER.index(name) if name in METHOD_ORDER else len(METHOD_ORDER), name)


#: Display names of the datasets in panel titles.
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
    """How a panel title names a dataset: its display name in the dataset catalog (its own name
    when the catalog does not know it, e.g. a dataset only a paper had)."""
    from kmdr.datasets import DatasetUnavailable, dataset_info

    try:
        return dataset_info(str(dataset)).display_name
    except (KeyError, ValueError, DatasetUnavailable):
        return str(dataset)


def incomplete_note(summary: pd.DataFrame) -> str:
    """``incomplete: n/N cells`` for summary rows resting on fewer cells than expected, else ""."""
    n, m = int(summary["n_cells"].sum()), int(summary["n_expected"].sum())
    return "" if n >= m else f"incomplete: {n}/{m} cells"


def suptitle(exp_dir: Path, title: str, what: str) -> str:
    """The preset's title, then the experiment's name when the title is not it."""
    name = exp_dir.name
    return f"{title} ({what})" if title == name else f"{title} ({name}; {what})"
