"""The theory computations: approximation ratio, the sampling lemma, the bounds' requirements."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.linalg import hadamard

from _markdown import unpadded
from kmdr.papers.bzmd14 import sampling_lemma as L
from kmdr.report import theory as T


def _tiny_cells() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "experiment": "e",
            "dataset": "d",
            "method": ["kMeans", "kMeans", "RP", "RP", "RP", "SVD"],
            "reducer_name": ["none", "none", "sign", "sign", "sign", "svd"],
            "r": [50, 50, 5, 5, 10, 5],
            "repetition": [0, 1, 0, 1, 0, 0],
            "n_clusters": 3,
            "objective": [0.40, 0.50, 0.60, 0.44, 0.38, 0.40],
            "objective_reduced": [0.40, 0.50, 0.30, 0.10, 0.20, 0.35],
        }
    )


def test_approximation_ratio_denominator_is_the_best_cell_of_any_method():
    cells = _tiny_cells()
    out = T.approximation_ratios(cells).set_index(["method", "r"])
    # denominator: the lowest F of any cell (RP at r = 10: 0.38), not kMeans' best (0.40)
    assert list(out["f_best"].unique()) == [pytest.approx(0.38)]
    assert set(out["f_best_method"]) == {"RP"}
    assert out.loc[("RP", 5), "ratio_max"] == pytest.approx(0.60 / 0.38)
    assert out.loc[("RP", 5), "ratio_min"] == pytest.approx(0.44 / 0.38)
    assert out.loc[("RP", 10), "ratio_max"] == pytest.approx(1.0)
    assert out.loc[("kMeans", 50), "ratio_max"] == pytest.approx(0.50 / 0.38)
    assert bool(out.loc[("kMeans", 50), "baseline"]) and not bool(out.loc[("SVD", 5), "baseline"])
    assert (out["ratio_min"] >= 1.0).all()  # never below 1 now
    # a dataset without a kMeans baseline still has a best known partition
    assert not T.approximation_ratios(cells[cells["method"] != "kMeans"]).empty


def test_estimated_gamma_compares_partitions_of_the_same_method_and_r():
    out = T.approximation_ratios(_tiny_cells()).set_index(["method", "r"])
    # RP at r = 5: worst repetition (F = 0.60) has F on C 0.30 against the best 0.10 -> 3
    assert out.loc[("RP", 5), "gamma_at_worst"] == pytest.approx(3.0)
    assert out.loc[("RP", 5), "gamma_max"] == pytest.approx(3.0)
    assert out.loc[("kMeans", 50), "gamma_at_worst"] == pytest.approx(1.25)
    # a single repetition: nothing to compare with, gamma unknown
    assert np.isnan(out.loc[("SVD", 5), "gamma_at_worst"])
    bound = T.bounds_for("RP")[0]
    assert T.bound_at_gamma(bound, 3.0).startswith("cannot apply")
    assert T.bound_at_gamma(bound, float("nan")) == "γ unknown"
    assert T.bound_at_gamma(bound, 1.25) == f"{1 + (1 + T.EPS_EXPERIMENTS) * 1.25:.3g}"


def test_approximation_ratio_is_per_setting():
    a = _tiny_cells().assign(kmeans_init="random")
    b = _tiny_cells().assign(kmeans_init="k-means++")
    b["objective"] = b["objective"] * 2  # a worse setting must not borrow the other's best
    out = T.approximation_ratios(pd.concat([a, b], ignore_index=True))
    assert len(out) == 2 * len(T.approximation_ratios(a))
    assert sorted(out["setting"].unique()) == ["kmeans_init=k-means++", "kmeans_init=random"]
    assert sorted(out["f_best"].unique()) == [pytest.approx(0.38), pytest.approx(0.76)]
    assert (out["ratio_min"] >= 1.0).all()


def test_ratio_section_shows_gamma_and_says_when_no_bound_can_apply():
    from types import SimpleNamespace

    from kmdr.report.theory_sections import section_ratios

    rows = []
    for rep in range(3):
        # SVD at r = k = 3: repetition 2 is a bad local optimum on C (F on C 50x the best)
        bad = rep == 2
        rows.append(("SVD", "svd", 3, rep, 5.0 if bad else 1.01, 50.0 if bad else 0.5))
        rows.append(("RP", "sign", 3, rep, 1.2 + 0.01 * rep, 0.6 + 0.01 * rep))
        rows.append(("kMeans", "none", 40, rep, 1.0, 1.0))
    cells = pd.DataFrame(
        rows,
        columns=["method", "reducer_name", "r", "repetition", "objective", "objective_reduced"],
    ).assign(experiment="e", dataset="d", n_clusters=3)
    exp = SimpleNamespace(name="e", has_cells=True, cells=cells, incomplete=False)
    text = unpadded(section_ratios({"e": exp}))
    svd = next(ln for ln in text.splitlines() if ln.startswith("| SVD |"))
    assert "5 (γ̂ 100) †" in svd and "cannot apply: γ̂ = 100 > 2" in svd
    rp = next(ln for ln in text.splitlines() if ln.startswith("| RP |"))
    assert "1.22 (γ̂ 1.03)" in rp and "†" not in rp
    assert "best F known = 1, found by kMeans" in text
    assert "for 1 of the 2 (method, r) points" in text


def _uniform_leverage_basis(d: int = 16, k: int = 4) -> np.ndarray:
    """Orthonormal d x k columns with equal leverage scores (p_i = 1/d): Hadamard columns."""
    return hadamard(d)[:, :k] / math.sqrt(d)


def test_exact_scaling_gives_singular_values_one():
    V = _uniform_leverage_basis()
    d = V.shape[0]
    m = 5
    r = m * d
    # each column kept exactly r p_i = m times, each copy scaled 1/sqrt(r p_i)
    selected = np.repeat(np.arange(d), m)
    p = L.leverage_probabilities(V)
    np.testing.assert_allclose(p, 1 / d)
    scales = 1 / np.sqrt(r * p[selected])
    s = L.sampled_singular_values(V, selected, scales)
    np.testing.assert_allclose(s, 1.0, atol=1e-12)
    # a wrong scaling is caught: 1/(r p_i) instead of its square root, or no rescaling
    assert not np.allclose(L.sampled_singular_values(V, selected, 1 / (r * p[selected])), 1.0)
    assert not np.allclose(L.sampled_singular_values(V, selected, np.ones(r)), 1.0)


def test_exact_scaling_with_unequal_leverage():
    # orthonormal columns with leverage scores 1/2, 1/2, 1/4, 3/4 -> p = (1/4, 1/4, 1/8, 3/8)
    V = np.array([[math.sqrt(0.5), 0], [math.sqrt(0.5), 0], [0, 0.5], [0, math.sqrt(0.75)]])
    p = L.leverage_probabilities(V)
    np.testing.assert_allclose(p, [1 / 4, 1 / 4, 1 / 8, 3 / 8])
    r = 8
    selected = np.repeat(np.arange(4), (r * p).round().astype(int))  # counts 2, 2, 1, 3 = r p_i
    s = L.sampled_singular_values(V, selected, 1 / np.sqrt(r * p[selected]))
    np.testing.assert_allclose(s, 1.0, atol=1e-12)
    # the same draws with uniform-leverage scales (1/sqrt(r/d)) are wrong
    assert not np.allclose(L.sampled_singular_values(V, selected, np.full(r, 1 / math.sqrt(2))), 1)


def test_random_sampling_converges_and_respects_lemma6():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((60, 40)) @ np.diag(np.linspace(3, 0.1, 40))
    table = L.sampling_lemma_table(A, 3, [5, 4000], range(4), use_project_sampler=False)
    big = table[table["r"] == 4000]
    assert (big["sigma2_min"] > 0.8).all() and (big["sigma2_max"] < 1.2).all()
    assert big["within_bound"].all()
    # r = 4000 > d = 40: outside the lemma's r <= d
    assert not big["lemma6_applies"].any()
    small = table[table["r"] == 5]
    assert (small["sigma2_max"] - small["sigma2_min"]).mean() > (
        big["sigma2_max"] - big["sigma2_min"]
    ).mean()


def test_project_sampler_matches_the_reference_property():
    pytest.importorskip("kmdr.reducers")
    rng = np.random.default_rng(2)
    A = rng.standard_normal((50, 30))
    table = L.sampling_lemma_table(A, 2, [3000], range(2), use_project_sampler=True)
    assert table["sampler"].iloc[0] == "kmdr.reducers leverage"
    assert (abs(table["sigma2_min"] - 1) < 0.2).all() and (abs(table["sigma2_max"] - 1) < 0.2).all()


def test_lemma6_eps_and_requirements():
    assert L.lemma6_min_r(5) == pytest.approx(4 * 5 * math.log(100))
    assert L.lemma6_eps(5, int(L.lemma6_min_r(5))) == pytest.approx(1.0, rel=1e-2)
    thm12 = next(b for b in T.bounds() if b.key == "bzmd14-thm12")
    assert thm12.factor(1 / 3, 1.0) == pytest.approx(7 / 3)
    assert T.bound_applies(thm12, 100, 5).startswith("no")
    assert T.bound_applies(thm12, 10**9, 5) == "yes"
    thm13 = next(b for b in T.bounds() if b.key == "bzmd14-thm13")
    assert T.bound_applies(thm13, 5, 5) == "yes" and T.bound_applies(thm13, 10, 5).startswith("no")
    bmd09 = next(b for b in T.bounds() if b.key == "bmd09-thm1")
    assert T.bound_applies(bmd09, 10**9, 5).startswith("unknown")


@pytest.mark.slow
def test_run_sampling_lemma_writes_csv_and_figure(tmp_path):
    rng = np.random.default_rng(3)

    def loader(name):
        if name == "missing":
            raise RuntimeError("not here")
        return rng.standard_normal((30, 20)), 2

    table = L.run_sampling_lemma(tmp_path, quick=True, datasets=("toy", "missing"), loader=loader)
    assert set(table["dataset"]) == {"toy"}
    assert (tmp_path / "theory" / "sampling_lemma.csv").exists()
    assert (tmp_path / "theory" / "sampling_lemma.png").exists()
    skipped = pd.read_csv(tmp_path / "theory" / "sampling_lemma_skipped.csv")
    assert list(skipped["dataset"]) == ["missing"]


def test_gamma_is_shown_only_where_a_kmeans_run_on_c_defines_it():
    """PD clusters its own sketch (sparsified k-means): no γ̂ for it, and no † either; a ratio
    below a factor is never called a confirmation (the ratio estimate is a lower one)."""
    from types import SimpleNamespace

    from kmdr.report.theory_sections import section_ratios

    rows = []
    for rep in range(3):
        rows.append(("PD", "sparsified", 3, rep, 1.3 + 0.01 * rep, 0.2 + 0.3 * rep))
        rows.append(("SVD", "svd", 3, rep, 1.01, 0.5 + 0.01 * rep))
        rows.append(("kMeans", "none", 40, rep, 1.0, 1.0))
    cells = pd.DataFrame(
        rows,
        columns=["method", "reducer_name", "r", "repetition", "objective", "objective_reduced"],
    ).assign(experiment="e", dataset="d", n_clusters=3)
    ratios = T.approximation_ratios(cells).set_index("method")
    assert not ratios.loc["PD", "gamma_defined"] and ratios.loc["SVD", "gamma_defined"]
    assert np.isnan(ratios.loc["PD", "gamma_at_worst"])
    assert np.isnan(T.estimated_gamma(cells)[cells["method"] == "PD"]).all()
    exp = SimpleNamespace(name="e", has_cells=True, cells=cells, incomplete=False)
    text = unpadded(section_ratios({"e": exp}))
    pd_row = next(ln for ln in text.splitlines() if ln.startswith("| PD |"))
    assert "γ̂" not in pd_row and "†" not in pd_row
    svd = next(ln for ln in text.splitlines() if ln.startswith("| SVD |"))
    assert "not a confirmation" in svd and "within" not in svd
    assert "γ̂ is unknown" not in text  # PD's missing γ̂ is not counted as unknown


@pytest.mark.parametrize(
    ("n_within", "word"),
    [(10, "**not rejected"), (8, "**not rejected"), (4, "**fails**")],
)
def test_the_sampling_lemma_fails_only_on_a_significant_shortfall(tmp_path, n_within, word):
    """10 draws where the lemma promises 90%: 8 within is within the draws' noise (binomial
    p ≈ 0.26), 4 within is not (p ≈ 2e-5); 10 of 10 is not significantly above 90% either
    (p = 0.9^10 = 0.35): not rejected, never "holds" without a test that says so."""
    from kmdr.papers.bzmd14.lemma_section import section_lemma

    (tmp_path / "theory").mkdir()
    pd.DataFrame(
        {
            "dataset": "d", "sampler": "exact", "k": 2, "n_features": 100, "r": 50,
            "seed": range(10),
            "lemma6_applies": True, "within_bound": [i < n_within for i in range(10)],
            "sigma2_min": 0.9, "sigma2_max": 1.1, "eps_lemma6": 0.5,
        }
    ).to_csv(tmp_path / "theory" / "sampling_lemma.csv", index=False)  # fmt: skip
    text = section_lemma(tmp_path)
    line = next(ln for ln in text.splitlines() if ln.startswith("- d "))
    assert word in line and "binomial test" in line and "p = 0 " not in line
