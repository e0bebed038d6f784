"""pb17's figure style: assignment accuracy, and the clustering time (log), against m, the
entries kept per row (the paper plots accuracy against γ = m/p), with the paper's names for its
four methods.

The paper's figure draws the paper's methods alone: a line labelled as kmdr's variant of one of
them (its label, then :data:`VARIANT`) is left out of it wherever that method itself ran (the
style's ``apart``), and drawn instead beside it in a diagnostic figure of its own
(``figures/<experiment>_variants.png`` and ``.pdf``, written with ``summary.csv``): one panel
per method, the authors' rules and kmdr's variant of them, accuracy against m with the 95 %
interval of each mean over the repetitions.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr.figures.style import FigureStyle, Panel

__all__ = ["STYLE", "VARIANT", "variant_lines", "write_variants_figure"]

#: The end of the label of kmdr's variant of a method, after that method's own label.
VARIANT = ", kmdr's variant"


def variant_lines(summary: pd.DataFrame) -> pd.Series:
    """Which rows of ``summary`` are kmdr's variant of a method that also ran: the rows whose
    label is another row's label followed by :data:`VARIANT`."""
    labels = summary["method"].astype(str)
    stems = labels.str.removesuffix(VARIANT)
    return (stems != labels) & stems.isin(set(labels))


def _interval(rows: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """The 95 % t interval of each row's mean of ``metric`` over its repetitions."""
    from kmdr.stats import t_half_width

    n = rows["n_cells"].to_numpy(dtype=float)
    mean = rows[f"{metric}_mean"].to_numpy(dtype=float)
    half = t_half_width(rows[f"{metric}_std"].to_numpy(dtype=float), np.maximum(n, 2))
    return mean - half, mean + half


def _variants_figure(exp_dir: Path, summary: pd.DataFrame):
    """One panel per method that has kmdr's variant: the method (its authors' rules) and the
    variant, accuracy against m with the 95 % interval of each mean; k-means on all features
    as a horizontal line. None when no variant ran beside its method."""
    import matplotlib.pyplot as plt

    from kmdr.figures import appearance

    variants = variant_lines(summary)
    if not variants.any():
        return None
    methods = [str(m).removesuffix(VARIANT) for m in dict.fromkeys(summary.loc[variants, "method"])]
    base = summary[summary["reducer_name"] == "none"]
    with plt.rc_context(appearance.RC):
        fig, axes = plt.subplots(
            1, len(methods), figsize=(4.2 * len(methods), 3.9), squeeze=False, sharey=True,
            layout="constrained",
        )  # fmt: skip
        reps = sorted({int(n) for n in summary["n_cells"]})
        for ax, method in zip(axes[0], methods, strict=True):
            for label, color, marker in (
                (method, "#1f77b4", "o"),
                (method + VARIANT, "#d62728", "s"),
            ):
                rows = summary[summary["method"] == label].sort_values("r")
                x = rows["r"].to_numpy(dtype=float)
                lo, hi = _interval(rows, "accuracy")
                shown = "authors' rules" if label == method else "kmdr's variant"
                ax.plot(x, rows["accuracy_mean"], color=color, marker=marker, ms=4.5, lw=1.4,
                        label=shown)  # fmt: skip
                ax.fill_between(x, lo, hi, color=color, alpha=0.18, lw=0)
            for _, b in base.iterrows():
                ax.axhline(b["accuracy_mean"], color="0.2", ls="--", lw=1.2,
                           label="K-means, all p entries")  # fmt: skip
            ax.set_title(STYLE.display(method, _registry_name(summary, method)))
            ax.set_xlabel(STYLE.xlabel)
        axes[0, 0].set_ylabel("Assignment accuracy")
        axes[0, 0].legend(loc="lower right", fontsize=8.5, frameon=False)
        fig.suptitle(
            f"{Path(exp_dir).name}: each sparsified k-means by its authors' rules and as kmdr's "
            f"variant (diagnostic, not a paper figure)\nline: mean; shaded: 95 % interval of the "
            f"mean over {'/'.join(map(str, reps))} repetitions",
            fontsize=10.5,
            fontweight="bold",
        )
    return fig


def _registry_name(summary: pd.DataFrame, label: str) -> str | None:
    names = summary.loc[summary["method"] == label, "reducer_name"]
    return str(names.iloc[0]) if len(names) else None


def write_variants_figure(exp_dir: Path, summary: pd.DataFrame) -> list[Path]:
    """Write the diagnostic figure of kmdr's variants (:func:`_variants_figure`) as
    ``figures/<experiment>_variants.png`` and ``.pdf``, with no date in them (the same cells
    give the same files); [] when no variant ran."""
    import matplotlib.pyplot as plt

    from kmdr._io import atomic_write_bytes
    from kmdr.figures import appearance

    fig = _variants_figure(Path(exp_dir), summary)
    if fig is None:
        return []
    paths = []
    try:
        with plt.rc_context(appearance.RC):
            for ext, metadata in (("png", {}), ("pdf", {"CreationDate": None})):
                buffer = io.BytesIO()
                fig.savefig(buffer, bbox_inches="tight", format=ext, metadata=metadata)
                path = Path(exp_dir) / "figures" / f"{Path(exp_dir).name}_variants.{ext}"
                atomic_write_bytes(path, buffer.getvalue())
                paths.append(path)
    finally:
        plt.close(fig)
    return paths


STYLE = FigureStyle(
    panels=(
        Panel("accuracy", "Assignment accuracy", "Assignment accuracy", scale=1.0),
        Panel("cluster_seconds", "Clustering time", "Clustering time (in seconds)", log=True),
    ),
    xlabel="m, entries kept per row (γ = m/p)",
    reference="pb17 §VI (accuracy vs γ, one and two passes)",
    names={
        "none": "K-means",
        "sparsified": "Sparsified K-means",
        "sparsified_raw": "Sparsified K-means (no preconditioning)",
        "sparsified_two_pass": "Sparsified K-means, 2 pass",
    },
    baseline_note="; all p entries, no sketch",
    write_tables=write_variants_figure,
    apart=variant_lines,
)
