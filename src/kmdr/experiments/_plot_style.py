"""One color, marker and display name per method, the same in every figure of kmdr."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

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
    "kmeans": "kMeans",
}

# For methods the papers do not have (the report's variants, user reducers): a stable pick.
_EXTRA_COLORS = ["#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"]
_EXTRA_MARKERS = ["p", "<", ">", "d", "H", "8", "1"]

#: How lst17 labels the methods it shares with bzmd14.
LST17_NAMES: dict[str, str] = {"kMeans": "k-means", "LapScores": "LS"}


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


def display(method: str, figure_style: str = "bzmd14") -> str:
    """The label a figure shows: the paper's own name for the method."""
    name = canonical(method)
    if figure_style == "lst17":
        return LST17_NAMES.get(name, name)
    return name


def sort_key(method: str) -> tuple[int, str]:
    name = canonical(method)
    return (METHOD_ORDER.index(name) if name in METHOD_ORDER else len(METHOD_ORDER), name)
