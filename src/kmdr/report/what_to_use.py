"""The report's "What to use" section: for each experiment, which method at which r gives the
best accuracy (or the lowest F) for the time it takes, read from the committed cells alone.

A point is one (method, r) of one experiment: the means over its repetitions of the accuracy,
of F (``objective``: the partition's k-means cost on A over ||A||²) and of the time per cell
(``total_seconds``: reduction and k-means), each with its 95% t-interval over the repetitions
(the unit of replication, as everywhere in the report). A point is on the accuracy front when no
other point of the experiment is at least as fast and more accurate, on the F front when none is
at least as fast with a lower F. Times are compared only within one experiment: other runs saw
another machine load. The short table names the most accurate point, the fastest point whose
accuracy is within :data:`MARGIN` of it (with the one-sided test that it is not worse by more,
:func:`kmdr.report.claims.significance.margin_test`), and the most accurate point within each
time budget of :data:`BUDGETS` (fractions of the no-reduction k-means's time per cell).

``python -m kmdr.report.what_to_use RESULTS`` writes, in
``RESULTS/what_to_use/<experiment>_pareto/``, ``<experiment>.png`` (the two fronts) and
``<experiment>_front.csv`` (every point, flagged where it is on a front);
:func:`section_what_to_use` writes the section from the cells and links those files.
"""

from __future__ import annotations

import io
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.report._text import md_table, number
from kmdr.report.claims.significance import ALPHA, Sample, margin_test, p_text, replicates
from kmdr.report.experiments import Experiment, load_all

__all__ = [
    "BUDGETS",
    "FOLDER",
    "HEADING",
    "MARGIN",
    "fronts",
    "main",
    "points",
    "section_what_to_use",
    "write_what_to_use",
]

#: The section's heading (the page's first links go to it).
HEADING = "What to use"
#: The folder of the results holding the section's figures and CSVs.
FOLDER = "what_to_use"
#: How far below the best mean accuracy a point may be and still count as "as accurate".
MARGIN = 0.02
#: The time budgets of the table, as fractions of the no-reduction k-means's mean time per cell.
BUDGETS = (0.25, 1.0)
#: The measures of a point: (column, its name in the section, +1 higher is better / -1 lower).
MEASURES = (("accuracy", "accuracy", 1), ("objective", "F", -1))
TIME = "total_seconds"
_LEVEL = 0.95


def _interval(values: pd.Series) -> tuple[float, float, float]:
    """Mean and 95% t-interval over the repetitions (the mean alone when they do not vary)."""
    from scipy import stats

    v = values.dropna().to_numpy(dtype=float)
    mean = float(v.mean()) if v.size else math.nan
    if v.size < 2 or np.ptp(v) == 0:
        return mean, mean, mean
    half = stats.t.ppf(0.5 + _LEVEL / 2, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size)
    return mean, mean - half, mean + half


def points(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per (method, r) of one experiment's cells: ``n`` repetitions, and for accuracy,
    objective and time their mean with ``_low`` / ``_high`` 95% bounds; ``baseline`` marks the
    no-reduction k-means."""
    df = replicates(cells)
    rows = []
    for (method, r), part in df.groupby(["method", "r"], sort=True):
        per_rep = part.groupby("repetition")[[TIME, *(m for m, *_ in MEASURES)]].mean()
        row = {"method": method, "reducer_name": str(part["reducer_name"].iloc[0]), "r": int(r)}
        row["n"] = len(per_rep)
        row["baseline"] = bool(part["is_baseline"].all())
        for column in (*(m for m, *_ in MEASURES), TIME):
            row[column], row[f"{column}_low"], row[f"{column}_high"] = _interval(per_rep[column])
        rows.append(row)
    return pd.DataFrame(rows)


def fronts(pts: pd.DataFrame) -> pd.DataFrame:
    """``pts`` with ``front_accuracy`` and ``front_F``: whether each point is on the Pareto front
    of its measure against the mean time (no other point at least as fast and better)."""
    out = pts.copy()
    for column, name, sense in MEASURES:
        score = sense * out[column]
        ordered = out.assign(_s=score).sort_values([TIME, "_s"], ascending=[True, False])
        best_before = ordered["_s"].cummax().shift(fill_value=-np.inf)
        on = ordered["_s"].notna() & (ordered["_s"] > best_before)
        out[f"front_{name}"] = on.reindex(out.index).fillna(False).astype(bool)
    return out


def _per_rep(cells: pd.DataFrame, method: str, r: int, column: str) -> Sample:
    """``column`` of one point's cells, one value per repetition (its seeds for pairing)."""
    df = replicates(cells)
    part = df[(df["method"] == method) & (df["r"] == r)]
    by_rep = part.groupby("repetition")
    values = by_rep[column].mean()
    seeds = by_rep["seed"].agg(lambda x: " ".join(sorted(map(str, x)))) if "seed" in part else None
    return Sample(
        values.to_numpy(dtype=float),
        tuple(values.index),
        None if seeds is None else tuple(seeds.reindex(values.index)),
    )


def _point_text(row) -> str:
    return f"{row['method']}" if row["baseline"] else f"{row['method']} at r = {row['r']}"


def _acc(row) -> str:
    return (
        f"{number(row['accuracy'])} [{number(row['accuracy_low'])}, {number(row['accuracy_high'])}]"
    )


def _time(row) -> str:
    return f"{row[TIME]:.3g} s"


def choices(cells: pd.DataFrame, pts: pd.DataFrame) -> list[list[str]]:
    """The short table's rows: (question, point, accuracy [95% interval], time per cell, note)."""
    pts = pts[pts["accuracy"].notna()]
    if pts.empty:
        return []
    best = pts.loc[pts["accuracy"].idxmax()]
    rows = [["most accurate", _point_text(best), _acc(best), _time(best), ""]]
    near = pts[pts["accuracy"] >= best["accuracy"] - MARGIN]
    fast = near.loc[near[TIME].idxmin()]
    note = "the most accurate itself"
    if fast["method"] != best["method"] or fast["r"] != best["r"]:
        a = _per_rep(cells, fast["method"], fast["r"], "accuracy")
        b = _per_rep(cells, best["method"], best["r"], "accuracy")
        inside, t = margin_test(a, b, -MARGIN, math.inf)
        # neither side varying is still a test whose p accounts for n (the exact sign test)
        within = "within" if inside and t.p < ALPHA else "not shown within"
        evidence = f"{p_text(t.p, why=t.why or 'no test')}, one-sided"
        name = "no spread: exact sign test" if t.exact else "paired" if t.paired else "Welch"
        note = (
            f"{best[TIME] / fast[TIME]:.3g}× faster; {within} {MARGIN:g} of it "
            f"({evidence}, n = {t.n_a}, {name})"
        )
    rows.append([f"fastest within {MARGIN:g} of the most accurate", _point_text(fast),
                 _acc(fast), _time(fast), note])  # fmt: skip
    base = pts[pts["baseline"]]
    reference = float(base[TIME].iloc[0]) if len(base) else float(pts[TIME].median())
    what = "k-means on all features" if len(base) else "the median point"
    for share in BUDGETS:
        budget = share * reference
        within = pts[pts[TIME] <= budget]
        label = f"most accurate within {share:g}× the time of {what} ({budget:.3g} s)"
        if within.empty:
            rows.append([label, "none", "—", "—", "no point is that fast"])
            continue
        pick = within.loc[within["accuracy"].idxmax()]
        rows.append([label, _point_text(pick), _acc(pick), _time(pick), ""])
    return rows


# --------------------------------------------------------------------------------------------
# Files: one figure and one CSV per experiment
# --------------------------------------------------------------------------------------------


def draw(pts: pd.DataFrame, title: str):
    """The figure of one experiment: accuracy and F against the mean time per cell, each point
    with its 95% intervals, the Pareto front drawn as a step line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    from kmdr.figures import appearance

    with plt.rc_context(appearance.RC):
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        lines = pts.sort_values("method")[["reducer_name", "method"]].drop_duplicates()
        methods = list(lines["method"])
        styles = appearance.styles_for(lines.itertuples(index=False))
        for ax, (column, name, sense) in zip(axes, MEASURES, strict=True):
            for method in methods:
                own = pts[pts["method"] == method]
                key = (str(own["reducer_name"].iloc[0]), method)
                style = appearance.baseline_style() if own["baseline"].all() else styles[key]
                ax.errorbar(
                    own[TIME], own[column],
                    xerr=[own[TIME] - own[f"{TIME}_low"], own[f"{TIME}_high"] - own[TIME]],
                    yerr=[own[column] - own[f"{column}_low"], own[f"{column}_high"] - own[column]],
                    fmt=style.marker or "o", color=style.color, ms=4, lw=0.8, alpha=0.85,
                    label=method,
                )  # fmt: skip
            front = pts[pts[f"front_{name}"]].sort_values(TIME)
            ax.step(front[TIME], front[column], where="post", color="black", lw=1.2, alpha=0.6,
                    label="Pareto front")  # fmt: skip
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("mean time per cell (s, reduction + k-means)")
            better = "higher" if sense > 0 else "lower"
            ax.set_ylabel(f"mean {name} ({better} is better)")
            ax.set_title(f"{name} against time")
        axes[1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
        fig.suptitle(f"{title}: each (method, r), 95% intervals over the repetitions")
        fig.tight_layout()
    return fig


def _own_folder(experiment: str) -> str:
    """The folder of one experiment's figure and CSV, in :data:`FOLDER`: one each, so the page
    lists its two files under its figure; never named as the experiment, whose name the page
    gives to the experiment's own folder."""
    return f"{experiment}_pareto"


def write_what_to_use(root: str | Path, exps: dict[str, Experiment] | None = None) -> list[Path]:
    """Write ``<root>/what_to_use/<experiment>_pareto/<experiment>.png`` and ``_front.csv``
    for every experiment with cells; returns the files written."""
    import matplotlib.pyplot as plt

    from kmdr._io import atomic_write_bytes, atomic_write_text

    root = Path(root)
    exps = load_all(root) if exps is None else exps
    written = []
    for name, exp in exps.items():
        if not exp.has_cells:
            continue
        pts = fronts(points(exp.cells))
        folder = root / FOLDER / _own_folder(name)
        csv = folder / f"{name}_front.csv"
        atomic_write_text(csv, pts.to_csv(index=False, float_format="%.6g"))
        fig = draw(pts, exp.preset.get("title") or name)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight", dpi=110, metadata={})
        plt.close(fig)
        png = folder / f"{name}.png"
        atomic_write_bytes(png, buffer.getvalue())
        written += [png, csv]
    return written


# --------------------------------------------------------------------------------------------
# The section
# --------------------------------------------------------------------------------------------


def section_what_to_use(root: Path, exps: dict[str, Experiment]) -> str:
    """The "What to use" section: the rules, then per experiment its figure, CSV and table."""
    out = [
        f"## {HEADING}",
        "",
        "Which reducer, at which r, for data like these? No paper answers it; every experiment "
        "below holds every method's accuracy, F and time on the same data, under the same "
        "protocol, in the same run. Each point is one method at one r: the means over its "
        f"repetitions, with 95% t-intervals over them. The black step line is the Pareto front: "
        "no other point is at least as fast and better. Rules: times are compared only within "
        "one experiment (other runs saw another machine load); the fronts come from the "
        f'committed cells alone; "as accurate" means a mean accuracy within {MARGIN:g} of the '
        "most accurate point, with the one-sided test (TOST side) that it is not worse by more "
        "(the exact sign test where neither point's accuracy varies, whose p weighs n); "
        "the time budgets are fractions of k-means on all features' mean time per cell. The "
        "CSV beside each figure lists every point, flagged where it is on a front.",
    ]
    with_cells = sorted(
        (e for e in exps.values() if e.has_cells), key=lambda e: (e.preset["order"], e.name)
    )
    for exp in with_cells:
        pts = fronts(points(exp.cells))
        title = exp.preset.get("title") or exp.name
        out += ["", f"### What to use: {exp.name}", "", f"{title}."]
        where = f"{FOLDER}/{_own_folder(exp.name)}"
        png, csv = (root / where / f"{exp.name}{s}" for s in (".png", "_front.csv"))
        if png.exists():
            out += ["", f"![What to use: {exp.name}]({where}/{png.name})"]
        else:
            out += [
                "",
                f"(No figure yet: `python -m kmdr.report.what_to_use {root.name}` draws it.)",
            ]
        if csv.exists():
            out += ["", f"The front as a CSV: [{where}/{csv.name}]({where}/{csv.name})."]
        rows = choices(exp.cells, pts)
        if rows:
            out += ["", md_table(["question", "point", "accuracy [95%]", "time per cell", "note"],
                                 rows)]  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """``python -m kmdr.report.what_to_use [RESULTS]``: write the section's figures and CSVs."""
    from kmdr._errors import CommandParser

    parser = CommandParser(prog="python -m kmdr.report.what_to_use", description=__doc__)
    parser.add_argument("results", nargs="?", default="results", type=Path)
    args = parser.parse_args(argv)
    written = write_what_to_use(args.results)
    print(f"wrote {len(written)} files under {args.results / FOLDER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
