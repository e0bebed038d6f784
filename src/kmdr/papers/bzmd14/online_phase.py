"""bzmd14's k-means had an online phase; kmdr's has one only on request: the diagnostic's text.

bzmd14 ran MATLAB's ``kmeans``, whose default then followed every restart's batch (Lloyd) phase
with an online phase of single-point moves (:func:`kmdr.kmeans.online_phase.online_phase`); kmdr's
k-means
(scikit-learn's Lloyd) has none unless ``kmeans.online_phase=true``. The diagnostic presets
``bzmd14_online_phase_synth`` and ``bzmd14_online_phase_orl`` repeat ``bzmd14_synth`` and
``bzmd14_orl`` with it. Their cells have the same seeds as those of the presets they repeat
(a cell's seed does not depend on the k-means settings), and each restart's batch phase draws the
same start, so each cell pairs with one cell of the paper's preset: the same execution without
and with the online phase.

An execution is *stuck* when it ends far below the other repetitions of its point: its accuracy P
more than :data:`STUCK_MARGIN` below the best repetition of the same method and r. On Synth the
stuck executions are those that merge two of the five Gaussians and split another (P = 0.8 or
lower where the others reach 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

__all__ = [
    "DEVIATION",
    "PAIRS",
    "STUCK_MARGIN",
    "StuckCount",
    "online_phase_finding",
    "online_phase_note",
    "stuck",
    "stuck_count",
]

#: The sentence for the list of deviations, wherever bzmd14's protocol is described.
DEVIATION = (
    "bzmd14 ran MATLAB's kmeans, whose default followed each restart's batch (Lloyd) phase with "
    "an online phase that moves single points while a move lowers the objective; kmdr's k-means "
    "(scikit-learn's Lloyd) has no online phase unless `kmeans.online_phase=true` (the "
    "`bzmd14_online_phase_*` diagnostics)."
)

#: Diagnostic preset -> the paper's preset it repeats with the online phase.
PAIRS = {
    "bzmd14_online_phase_synth": "bzmd14_synth",
    "bzmd14_online_phase_orl": "bzmd14_orl",
}

#: An execution whose P is more than this below the best repetition of its point is stuck.
STUCK_MARGIN = 0.1

#: What pairs a cell of the diagnostic with one of the paper's preset.
_PAIR_KEY = ["reducer", "r", "repetition", "seed"]


def stuck(cells: pd.DataFrame) -> pd.Series:
    """Per cell: its accuracy more than :data:`STUCK_MARGIN` below the best repetition of the
    same method and r."""
    acc = pd.to_numeric(cells["accuracy"], errors="coerce")
    best = acc.groupby([cells["reducer"], cells["r"]]).transform("max")
    return (acc < best - STUCK_MARGIN).astype(bool)


@dataclass(frozen=True)
class StuckCount:
    """Paired cells of the paper's preset (off) and its online-phase diagnostic (on).

    ``pairs``: cells present in both; ``off``/``on``: stuck without/with the online phase;
    ``rescued``: stuck off, not on; ``new``: stuck on, not off; ``p``: the exact two-sided
    McNemar test (a binomial test of ``rescued`` among the ``rescued + new`` discordant pairs),
    NaN when there is no discordant pair; ``mean_gain``: mean of P(on) - P(off) over the pairs.
    """

    pairs: int
    off: int
    on: int
    rescued: int
    new: int
    p: float
    mean_gain: float


def stuck_count(off_cells: pd.DataFrame, on_cells: pd.DataFrame) -> StuckCount:
    """Pair the cells of the two runs on (reducer, r, repetition, seed) and count the stuck ones
    (each judged within its own run)."""
    from scipy.stats import binomtest

    def tagged(cells):
        out = cells[_PAIR_KEY].astype(str).copy()
        out["stuck"] = stuck(cells).to_numpy()
        out["accuracy"] = pd.to_numeric(cells["accuracy"], errors="coerce").to_numpy()
        return out

    both = tagged(off_cells).merge(tagged(on_cells), on=_PAIR_KEY, suffixes=("_off", "_on"))
    rescued = int((both["stuck_off"] & ~both["stuck_on"]).sum())
    new = int((~both["stuck_off"] & both["stuck_on"]).sum())
    p = binomtest(rescued, rescued + new).pvalue if rescued + new else float("nan")
    return StuckCount(
        pairs=len(both),
        off=int(both["stuck_off"].sum()),
        on=int(both["stuck_on"].sum()),
        rescued=rescued,
        new=new,
        p=float(p),
        mean_gain=float((both["accuracy_on"] - both["accuracy_off"]).mean()),
    )


def online_phase_note(results_dir: str | Path, experiment: str) -> str | None:
    """The diagnostic's text for ``experiment`` (a key of :data:`PAIRS`), computed from the
    current cells of it and of the preset it repeats; None when either has no cells."""
    from kmdr.results.summary import read_experiment

    paper = PAIRS[experiment]
    on = read_experiment(Path(results_dir) / experiment).cells
    off = read_experiment(Path(results_dir) / paper).cells
    return online_phase_finding(experiment, on, off)


def online_phase_finding(
    experiment: str, on: pd.DataFrame | None, off: pd.DataFrame | None
) -> str | None:
    """:func:`online_phase_note` from the two experiments' current cells (``on``: the
    diagnostic's, ``off``: the paper preset's); None when either has none."""
    paper = PAIRS[experiment]
    if on is None or off is None or on.empty or off.empty:
        return None
    c = stuck_count(off, on)
    if not c.pairs:
        return None
    p = "no discordant pair" if c.p != c.p else f"exact McNemar p = {c.p:.2g}"
    change = (
        "changes how often an execution gets stuck"
        if c.p == c.p and c.p < 0.05
        else "does not measurably change how often an execution gets stuck"
    )
    return (
        f"`{experiment}` repeats `{paper}` with MATLAB's online phase after every restart "
        f"(`kmeans.online_phase=true`); each of its {c.pairs} cells has the seed, and so the "
        f"starts, of one cell of `{paper}`. Stuck (P more than {STUCK_MARGIN:g} below the best "
        f"repetition of the same method and r): {c.off} of {c.pairs} executions without the "
        f"online phase, {c.on} with it; {c.rescued} stuck ones freed, {c.new} newly stuck "
        f"({p}); mean change of P {c.mean_gain:+.3f}. The online phase {change}."
    )


def online_phase_deviation(results) -> str:
    """The deviation as the report lists it: :data:`DEVIATION`, then what each diagnostic found
    (``results``: the report's view of the experiments, :class:`kmdr.report.deviations.Results`)."""
    found = [
        online_phase_finding(name, results.cells(name), results.cells(paper))
        for name, paper in PAIRS.items()
    ]
    return " ".join([DEVIATION, *(f for f in found if f)])
