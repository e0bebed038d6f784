"""The numbers the papers publish, kept in one place (no dependencies, safe to import anywhere).

Source: Boutsidis, Mahoney, Drineas, *Unsupervised Feature Selection for the k-means Clustering
Problem*, NIPS 2009: the P and F values of its Table 1 (leverage-score sampling, best of 30
trials by F, NIPS and Bio datasets) and the terms its Figure 1 names, transcribed from the paper.
bzmd14 and lst17 publish curves only, no numbers.
"""

from __future__ import annotations

#: Column labels of bmd09 Table 1, in the paper's order: r = 5k, 10k, 20k, and All features.
BMD09_TABLE1_COLUMNS: tuple[str, ...] = ("5k", "10k", "20k", "All")

#: Multiple of k behind each sampled column of Table 1 (``All`` = no reduction, r = d).
BMD09_TABLE1_R_OVER_K: dict[str, int] = {"5k": 5, "10k": 10, "20k": 20}

#: bmd09 Table 1 (leverage-score sampling, best of 30 trials by F): ``dataset -> column -> (P, F)``
#: with P the accuracy and F the normalized objective ``||A - X X^T A||_F^2 / ||A||_F^2``.
#: Keys are kmdr dataset names (lower case); both datasets have k = 3.
BMD09_TABLE1: dict[str, dict[str, tuple[float, float]]] = {
    "nips": {
        "5k": (0.847, 0.758),
        "10k": (0.847, 0.751),
        "20k": (0.859, 0.749),
        "All": (0.881, 0.747),
    },
    "bio": {"5k": (0.742, 0.764), "10k": (0.935, 0.726), "20k": (1.0, 0.709), "All": (1.0, 0.709)},
}

#: Display names of the Table 1 datasets, as the paper prints them.
BMD09_TABLE1_NAMES: dict[str, str] = {"nips": "NIPS (k = 3)", "bio": "Bio (k = 3)"}

#: The high-leverage NIPS terms bmd09 Figure 1 names, in the order of the figure's labels.
BMD09_FIG1_TERMS: list[str] = [
    "ruyter",
    "hand",
    "information",
    "code",
    "universality",
    "sources",
    "tishby",
    "naftali",
    "hebrew",
    "neural",
    "center",
]


def bmd09_table1_published(dataset: str) -> dict[str, tuple[float, float]] | None:
    """The published Table 1 row of ``dataset`` (case-insensitive), or None if it has none."""
    return BMD09_TABLE1.get(str(dataset).lower())
