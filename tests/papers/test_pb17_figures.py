"""pb17's figures: the paper's figure draws the paper's methods alone; kmdr's variant of each is
drawn beside it in a diagnostic figure of its own, with the intervals of the means."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kmdr.papers.pb17.figures import STYLE, VARIANT, variant_lines, write_variants_figure


def _summary(methods):
    """A summary of the columns the figures read: each method at m = 1, 6, 19 over 50 cells."""
    rows = []
    for label, name in methods:
        for r in (1, 6, 19):
            mean = 0.4 + r / 40
            rows.append({"method": label, "reducer": label, "reducer_name": name, "r": r,
                         "n_cells": 50, "accuracy_mean": mean, "accuracy_std": 0.05})  # fmt: skip
    return pd.DataFrame(rows)


PAPER = [("PD", "sparsified"), ("PD (no precond.)", "sparsified_raw"), ("kMeans", "none")]
BESIDE = ("PD" + VARIANT, "sparsified")


@pytest.mark.parametrize(
    ("methods", "variants"),
    [
        ([*PAPER, BESIDE], {"PD" + VARIANT}),
        # a variant whose method did not run stays in the paper's figure: nothing to set it beside
        ([BESIDE, ("kMeans", "none")], set()),
        (PAPER, set()),
    ],
)
def test_variant_lines_are_those_beside_a_method_that_ran(methods, variants):
    summary = _summary(methods)
    assert set(summary.loc[variant_lines(summary), "method"]) == variants


def test_variants_figure_sets_each_method_beside_its_variant(tmp_path):
    exp = tmp_path / "pb17_digits"
    summary = _summary([*PAPER, BESIDE, ("PD (no precond.)" + VARIANT, "sparsified")])
    written = write_variants_figure(exp, summary)
    assert [p.name for p in written] == ["pb17_digits_variants.png", "pb17_digits_variants.pdf"]
    # the same rows give the same files (no date in them)
    first = [p.read_bytes() for p in written]
    assert [p.read_bytes() for p in write_variants_figure(exp, summary)] == first
    # without a variant beside its method there is no diagnostic figure
    assert write_variants_figure(tmp_path / "none", _summary(PAPER)) == []


def test_variants_figure_draws_the_interval_of_each_mean(tmp_path):
    from kmdr.papers.pb17.figures import _variants_figure

    summary = _summary([*PAPER, BESIDE])
    fig = _variants_figure(tmp_path, summary)
    (ax,) = fig.axes
    assert ax.get_title() == STYLE.display("PD", "sparsified")
    # the authors' line and the variant's, each with its band: mean ± t(49) sd / sqrt(50)
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    half = 2.0096 * 0.05 / np.sqrt(50)
    assert band.max() == pytest.approx(0.4 + 19 / 40 + half, abs=1e-3)
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[:2] == ["authors' rules", "kmdr's variant"]
