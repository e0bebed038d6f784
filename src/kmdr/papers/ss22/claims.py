"""ss22's claims, checked on kmdr's coreset cells: each construction beside its authors' runs, and
each construction behind kmdr's reducers against itself alone.

**Beside the authors** (one claim per construction that both kmdr and the authors ran, across
every preset of the section: one Holm family, in which each of the authors' samples is the
control once): for each (dataset, k, m) both ran, kmdr's per-repetition distortions against the
authors' 10 runs (:mod:`.published`), as a ratio. "The same distortion" is an equivalence test:
the ratio of the geometric means within ×(1 ± :data:`MARGIN`), two one-sided Welch tests on the
log distortion (TOST, :func:`kmdr.stats.margin_test_from_summary`: their runs are independent of
ours, and the committed table holds the mean and sd of their logs), the report's one rule of a
margin, the same as the reducers' below. A cell is *equivalent* (shown inside the margin),
*different* (shown beyond it) or *undecided* (neither: never "a tie"); the effect sizes are the
ratio of the medians, the ratio of the geometric means with its 95% interval, and ε = distortion
- 1 of both sides, the scale a reader of the authors' tables judges. kmdr's diagnostic copies of
an instance (:func:`is_diagnostic`: the Benchmark times k, exact ties) are compared with the
same authors' sample as the instance itself: they form a claim (a family) of their own, so that
no family holds one control twice.

**Reducers before coresets** (two claims per experiment and construction): at each reducer, r, k
and m, the distortion *on the original data* of the construction run on the reduced data against
the construction alone, and their total times (reduce + coreset + solve). The distortion is
judged by an equivalence test: the ratio of the geometric means within ×(1 ± :data:`MARGIN`)
(kmdr's margin, not the paper's: the report also judges it at half and twice), two one-sided
tests on the log distortion, paired where the two sides' repetitions share their seeds; "for"
means shown inside the margin, "against" shown beyond it. The times are measurements, compared as
a ratio on their log (paired where seeds are shared, Welch otherwise); "for" means reducing first
is significantly faster. :func:`first_equivalent_r` reads, per line, the smallest r from which
every r of the grid is shown equivalent.

The cells' columns are read through :func:`canonical` (aliases mapped once, here).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from kmdr._io import read_csv
from kmdr.papers.ss22 import datasets as D
from kmdr.papers.ss22 import published as P
from kmdr.report.claims.significance import (
    Sample,
    Test,
    log_of,
    margin_test,
    margin_test_from_summary,
    ratio_text,
    test,
)
from kmdr.report.claims.verdicts import NO_DATA, NOT_TESTABLE, Claim, Comparison, Part, Verdict
from kmdr.stats import welch_from_summary

__all__ = [
    "MARGIN",
    "NOT_RUN",
    "SECTION_AUTHORS",
    "SECTION_REDUCERS",
    "authors_part",
    "canonical",
    "first_equivalent_r",
    "reducer_distortion_part",
    "reducer_time_part",
    "ss22_claims",
    "welch_log",
]

#: The report sections (``preset.section``) of the paper's presets and of the
#: reducers-before-coresets presets.
SECTION_AUTHORS = "ss22_authors"
SECTION_REDUCERS = "ss22_reducers"
#: kmdr's equivalence margin of "the same distortion" (kmdr's against the authors', and reducing
#: first against not): the ratio of the distortions' geometric means within ×(1 ± MARGIN). On the
#: ratio, not on ε = distortion - 1: the paper's tables print distortions (near 1 for the good
#: constructions) to two decimals, so 0.01 of the distortion is the least difference a reader of
#: them sees, whatever ε is; relative to ε it is wide (±0.0102 at the Benchmark's ε ≈ 0.022 is
#: about ±46% of ε), which the report prints beside each cell, and every claim is judged again at
#: half and twice the margin (±0.005 is ±23% of that ε).
MARGIN = 0.01
#: Why kmdr runs no cell of a construction the authors ran, by the authors' name of it.
NOT_RUN: dict[str, str] = {}
#: The authors' constructions, in the order of their tables.
AUTHORS_CONSTRUCTIONS = (
    "Sensitivity Sampling",
    "Group Sampling",
    "StreamKM++",
    "BICO",
    "Ray Maker",
)

#: The datasets that are the authors' instances (or kmdr's diagnostic copies of them): a preset
#: on another dataset has no published number to be set beside.
AUTHORS_INSTANCES = (D.BENCHMARK.name, D.BENCHMARK_EXACT.name, *D.REAL)
#: Constructions whose draws ignore the data (their distortion with and without a reducer in
#: front is the same by construction: the same rows drawn from the same seed), by display name.
DATA_FREE = ("Uniform Sampling",)

#: The display name of each of kmdr's constructions, by its registry name
#: (:data:`kmdr.coresets.CORESETS`): the authors' name where they ran it.
DISPLAY = {
    "sensitivity": "Sensitivity Sampling",
    "sensitivity_squared": "Sensitivity Sampling, squared distances (kmdr's variant)",
    "group": "Group Sampling",
    "group_squared": "Group Sampling, squared distances (kmdr's variant)",
    "streamkm": "StreamKM++",
    "streamkm_tree": "StreamKM++ tree (kmdr's variant)",
    "uniform": "Uniform Sampling",
    "lightweight": "Lightweight Coreset",
    "ray_maker": "Ray Maker",
    "bico": "BICO",
}

_ALIASES = {
    "construction": ("construction", "coreset", "algorithm", "method"),
    "k": ("k", "n_clusters"),
    "m": ("coreset_size_factor", "m"),
}
_TIMES = ("reduce_seconds", "coreset_seconds", "solve_seconds")
_NO_REDUCER = {"", "none", "nan", "identity", "null"}


def _plain(name) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower()).removeprefix("ss22")


def is_diagnostic(dataset) -> bool:
    """Whether ``dataset`` is kmdr's diagnostic copy of an instance the authors ran (its
    :func:`key` is another dataset's: the Benchmark times k)."""
    return key(dataset) != _plain(dataset)


def key(name) -> str:
    """A name as both sides can match it: lower case, letters and digits only, "+PCA" and
    "_pca" alike ("StreamKM++" and "streamkm" are one construction, "Covertype+PCA" and
    "covertype_pca" one dataset)."""
    text = re.sub(r"[^a-z0-9]", "", str(name).lower())
    # kmdr's dataset ss22_benchmark is their Benchmark, and so is its exact-ties diagnostic
    return text.removeprefix("ss22").replace("benchmarkexact", "benchmark")


def canonical(cells: pd.DataFrame) -> pd.DataFrame:
    """The coreset cells with the columns the checks read: ``dataset``, ``construction`` (its
    :data:`DISPLAY` name where it has one), ``k``,
    ``m`` (the coreset size over k), ``reducer`` ("" without one), ``r`` (NaN without one),
    ``repetition``, ``seed`` (text, "" when absent), ``distortion`` (and each
    ``distortion_<family>`` the cells have) and ``total_seconds`` (the cells' own, else the sum of
    their reduce, coreset and solve times)."""
    out = pd.DataFrame(index=cells.index)
    out["dataset"] = cells["dataset"].astype(str) if "dataset" in cells else ""
    for name, candidates in _ALIASES.items():
        found = next((c for c in candidates if c in cells), None)
        if found is not None:
            out[name] = cells[found]
    if "construction" in out:
        out["construction"] = out["construction"].astype(str).map(lambda c: DISPLAY.get(c, c))
    if "m" not in out and "coreset_size" in cells and "k" in out:
        out["m"] = (cells["coreset_size"] / out["k"]).round().astype(int)
    # the coresets kind's cells name the reducer in reducer_name (their reducer column is the
    # reducer id with the construction and size)
    column = "reducer_name" if "reducer_name" in cells else "reducer"
    reducer = cells[column] if column in cells else pd.Series("", index=cells.index)
    reducer = reducer.fillna("").astype(str)
    out["reducer"] = reducer.where(~reducer.str.lower().isin(_NO_REDUCER), "")
    out["r"] = cells["r"].astype(float) if "r" in cells else math.nan
    out.loc[out["reducer"] == "", "r"] = math.nan
    out["repetition"] = cells.get("repetition", 0)
    out["seed"] = cells["seed"].astype(str) if "seed" in cells else ""
    if "coreset_size_factor" in cells and "reducer_name" in cells:
        # the coresets kind draws a construction's coreset from one seed per repetition,
        # whatever reducer is in front: its cells pair by repetition
        out["seed"] = cells["repetition"].astype(str)
    out["distortion"] = cells["distortion"].astype(float) if "distortion" in cells else math.nan
    for column in cells.columns[cells.columns.str.startswith("distortion_")]:
        out[column] = cells[column].astype(float)  # each family of solutions measured
    if "total_seconds" in cells:
        out["total_seconds"] = cells["total_seconds"].astype(float)
    else:
        parts = [cells[c].astype(float) for c in _TIMES if c in cells]
        parts += (
            [cells["cluster_seconds"].astype(float)]
            if "solve_seconds" not in cells and ("cluster_seconds" in cells)
            else []
        )
        out["total_seconds"] = sum(p.fillna(0.0) for p in parts) if parts else math.nan
    return out


def _sample(rows: pd.DataFrame, metric: str) -> Sample | None:
    """One number per repetition of ``rows`` (the mean of its cells' ``metric``), with the
    repetitions' seeds (pairing two samples whose seeds agree)."""
    rows = rows[rows[metric].notna()]
    if rows.empty:
        return None
    g = rows.groupby("repetition", sort=True)
    values = g[metric].mean()
    seeds = g["seed"].agg(lambda s: " ".join(sorted(s)))
    shared = tuple(seeds) if all(seeds) else None
    return Sample(values.to_numpy(dtype=float), tuple(values.index), shared)


# --------------------------------------------------------------------------------------------
# Beside the authors
# --------------------------------------------------------------------------------------------


def welch_log(a: Sample, mean_b: float, sd_b: float, n_b: int) -> Test:
    """Welch's t-test of ``a`` (log values, one per repetition) against the authors' runs known
    by their log's mean, sd and number (:func:`kmdr.stats.welch_from_summary` on the log scale:
    its ``diff`` the log of the ratio of the geometric means)."""
    return welch_from_summary(a, mean_b, sd_b, n_b, log=True)


def _spread(values) -> str:
    return f"{np.median(values):.4g} [{np.min(values):.4g}–{np.max(values):.4g}]"


def authors_rows(ours: pd.DataFrame, theirs: pd.DataFrame, margin: float = MARGIN) -> list[dict]:
    """One row per (experiment, dataset, k, m) that kmdr ran and the authors published, for one
    construction: ``ours`` its canonical cells without a reducer (an ``experiment`` column when
    they come from several), ``theirs`` the authors' rows of it (:func:`~.published.published`).
    Each row holds both medians and ranges, the ratio of medians, ``plain`` the two-sided Welch
    test (:func:`welch_log`: the ratio of geometric means and its 95% interval), ``test`` the
    equivalence test at ×(1 ± ``margin``) and ``inside`` whether the ratio lies in it
    (:func:`kmdr.stats.margin_test_from_summary`), ``eps`` and ``eps_theirs`` the medians'
    ε = distortion - 1 and ``eps_ci`` the 95% interval of kmdr's ε (from the geometric means'
    ratio) relative to the authors' (NaN where their ε is not positive)."""
    by_key = {
        (key(r.dataset), int(r.k), int(r.coreset_size_factor)): r for r in theirs.itertuples()
    }
    if "experiment" not in ours:
        ours = ours.assign(experiment="")
    low, high = math.log(1 - margin), math.log(1 + margin)
    rows = []
    for (experiment, dataset, k, m), cells in ours.groupby(
        ["experiment", "dataset", "k", "m"], sort=True
    ):
        pub = by_key.get((key(dataset), int(k), int(m)))
        s = _sample(cells, "distortion")
        if pub is None or s is None:
            continue
        logs = log_of(s)
        if logs is None:
            continue
        args = (logs, pub.distortion_log_mean, pub.distortion_log_std, int(pub.n_runs))
        plain = welch_log(*args)
        inside, t = margin_test_from_summary(*args, low, high, log=True)
        gm = math.exp(pub.distortion_log_mean)  # the authors' geometric mean
        eps_ci = tuple(
            (gm * math.exp(b) - 1) / (gm - 1) if gm > 1 and not math.isnan(b) else math.nan
            for b in plain.ci
        )
        rows.append(
            {"experiment": experiment, "dataset": dataset, "k": int(k), "m": int(m), "n": s.n,
             "ours": _spread(s.values),
             "theirs": f"{pub.distortion_median:.4g} [{pub.distortion_min:.4g}–"
                       f"{pub.distortion_max:.4g}]",
             "n_theirs": int(pub.n_runs),
             "ratio": float(np.median(s.values) / pub.distortion_median), "plain": plain,
             "test": t, "inside": inside, "margin": (low, high),
             "eps": float(np.median(s.values)) - 1, "eps_theirs": pub.distortion_median - 1,
             "eps_ci": eps_ci}
        )  # fmt: skip
    return rows


def label(row: dict) -> str:
    """A comparison's label: its experiment when it has one, dataset, k and m (and reducer and r
    where it has them)."""
    text = f"{row['dataset']}, k = {row['k']}, m = {row['m']}"
    if row.get("experiment"):
        text = f"{row['experiment']}: {text}"
    if row.get("reducer"):
        text += f", {row['reducer']} r = {row['r']:g}"
    return text


def eps_text(row: dict) -> str:
    """A row's ε = distortion - 1, kmdr's and the authors' medians, and the 95% interval of
    kmdr's relative to the authors' (the geometric means' ratio carried to ε)."""
    text = f"ε {row['eps']:.3g} vs {row['eps_theirs']:.3g}"
    low, high = row["eps_ci"]
    if not math.isnan(low):
        text += f" (kmdr's ε {100 * (low - 1):+.0f}% to {100 * (high - 1):+.0f}% of the authors')"
    return text


def authors_part(ours: pd.DataFrame, theirs: pd.DataFrame, margin: float = MARGIN) -> Part:
    """The comparisons of :func:`authors_rows`: for the claim when shown equivalent, against it
    when shown beyond the margin."""
    comps = tuple(
        Comparison(
            label(row),
            f"median {row['ours']} (n = {row['n']}) vs the authors' {row['theirs']} "
            f"(n = {row['n_theirs']}): ratio of medians ×{row['ratio']:.3g}, geometric means "
            f"{ratio_text(row['plain'])}, margin ×(1 ± {margin:g}); {eps_text(row)}",
            row["test"].p,
            favours=row["inside"],
            test=row["test"],
            margin=row["margin"],
        )
        for row in authors_rows(ours, theirs, margin)
    )
    return Part(comps, no_data="no (dataset, k, m) both kmdr and the authors ran")


def _construction_rows(df: pd.DataFrame, construction: str) -> pd.DataFrame:
    return df[df["construction"].map(key) == key(construction)]


def check_authors(
    cells: pd.DataFrame,
    construction: str,
    path: Path,
    diagnostic: bool = False,
    margin: float = MARGIN,
) -> Part | Verdict:
    """The claim that kmdr's ``construction`` gives the authors' distortion within ×(1 ±
    ``margin``), on ``cells`` (of one experiment or, with an ``experiment`` column, of several):
    on the instances the authors ran, or (``diagnostic``) on kmdr's diagnostic copies of them."""
    df = canonical(cells)
    if "experiment" in cells:
        df["experiment"] = cells["experiment"].astype(str).to_numpy()
    df = df[df["dataset"].map(is_diagnostic) == diagnostic]
    ours = _construction_rows(df[df["reducer"] == ""], construction)
    if ours.empty:
        why = NOT_RUN.get(construction, "these cells hold no run of it")
        return Verdict(NO_DATA, f"not run by kmdr: {why}")
    table = read_csv(path) if path.is_file() else pd.DataFrame(columns=list(P.COLUMNS))
    theirs = table[table["algorithm"].map(key) == key(construction)]
    if theirs.empty:
        return Verdict(NO_DATA, f"no published table at {P.TABLE} in this results folder")
    return authors_part(ours, theirs, margin)


# --------------------------------------------------------------------------------------------
# Reducers before coresets
# --------------------------------------------------------------------------------------------


def reducer_rows(df: pd.DataFrame, construction: str, margin: float = MARGIN) -> list[dict]:
    """One row per (dataset, k, m, reducer, r) of ``construction`` in the canonical cells
    ``df``: the distortion's equivalence test against the construction alone (margin ×(1 ±
    ``margin``) on the ratio of geometric means) and the total time's ratio test."""
    df = _construction_rows(df, construction)
    rows = []
    for (dataset, k, m), part in df.groupby(["dataset", "k", "m"], sort=True):
        alone = part[part["reducer"] == ""]
        base_d, base_t = _sample(alone, "distortion"), _sample(alone, "total_seconds")
        base_d = log_of(base_d)
        if base_d is None:
            continue
        reduced = part[part["reducer"] != ""]
        for (reducer, r), cells in reduced.groupby(["reducer", "r"], sort=True):
            d = log_of(_sample(cells, "distortion"))
            if d is None:
                continue
            low, high = math.log(1 - margin), math.log(1 + margin)
            inside, dt = margin_test(d, base_d, low, high)
            t = _time_test(_sample(cells, "total_seconds"), base_t)
            rows.append(
                {"dataset": dataset, "k": int(k), "m": int(m), "reducer": reducer, "r": float(r),
                 "inside": inside, "distortion": replace(dt, log=True), "time": t,
                 "d_ratio": math.exp(d.mean - base_d.mean)}
            )  # fmt: skip
    return rows


def _time_test(a: Sample | None, b: Sample | None) -> Test | None:
    la, lb = log_of(a), log_of(b)
    if la is None or lb is None:
        return None
    return replace(test(la, lb), log=True)


def reducer_distortion_part(df: pd.DataFrame, construction: str, margin: float = MARGIN) -> Part:
    """Per reducer, r, k and m: whether the distortion stays within ×(1 ± ``margin``) of the
    construction alone (for: shown inside; against: shown beyond)."""
    comps = tuple(
        Comparison(
            label(row),
            f"distortion {ratio_text(row['distortion'])} of {construction} alone",
            row["distortion"].p,
            favours=row["inside"],
            test=row["distortion"],
            margin=(math.log(1 - margin), math.log(1 + margin)),
        )
        for row in reducer_rows(df, construction, margin)
    )
    return Part(comps, no_data=f"no reduced run of {construction} beside one without reducer")


def reducer_time_part(df: pd.DataFrame, construction: str) -> Part:
    """Per reducer, r, k and m: whether reducing first makes the total time shorter."""
    comps = tuple(
        Comparison(
            label(row),
            f"total time {ratio_text(row['time'])} of {construction} alone",
            row["time"].p,
            favours=row["time"].diff < 0,
            test=row["time"],
        )
        for row in reducer_rows(df, construction)
        if row["time"] is not None
    )
    return Part(comps, no_data=f"no timed reduced run of {construction} beside one without")


def first_equivalent_r(rs: list[float], shown: list[bool]) -> float | None:
    """The smallest r of a line from which every larger r of its grid is shown equivalent
    (``shown[i]`` for ``rs[i]``); None when its largest r is not."""
    order = np.argsort(rs)
    first = None
    for i in order[::-1]:
        if not shown[i]:
            break
        first = rs[i]
    return first


def identical_by_construction(rows: list[dict], construction: str) -> bool:
    """Whether ``construction``'s distortions with a reducer are those without, in every
    repetition of every row of :func:`reducer_rows`, because its draws ignore the data
    (:data:`DATA_FREE`): then there is nothing to test, and no test is made."""
    return (
        construction in DATA_FREE
        and bool(rows)
        and all(r["distortion"].exact and r["distortion"].diff == 0 for r in rows)
    )


#: What the report says of a construction whose distortion is the same with a reducer in front.
IDENTICAL = (
    "identical by construction, untested: its draws ignore the data (the same rows from the "
    "same seed, whatever reducer is in front), and the distortion is measured on the original "
    "data, so every repetition's distortion with a reducer equals the one without, exactly"
)


def _check_reducers(cells: pd.DataFrame, construction: str, what: str, margin: float = MARGIN):
    df = canonical(cells)
    if _construction_rows(df, construction).empty:
        why = NOT_RUN.get(construction, "these cells hold no run of it")
        return Verdict(NO_DATA, f"not run by kmdr: {why}")
    if what == "distortion":
        rows = reducer_rows(df, construction, margin)
        if identical_by_construction(rows, construction):
            return Verdict(NOT_TESTABLE, f"{construction}: {IDENTICAL} ({len(rows)} settings)")
        return reducer_distortion_part(df, construction, margin)
    return reducer_time_part(df, construction)


# --------------------------------------------------------------------------------------------
# The claims
# --------------------------------------------------------------------------------------------


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(name).lower()).strip("-")


def authors_claim(
    experiments: str | tuple[str, ...], construction: str, diagnostic: bool = False
) -> Claim:
    """The claim that kmdr's ``construction`` gives the authors' distortion, across
    ``experiments`` (one Holm family); ``diagnostic``: on kmdr's diagnostic copies of the
    instances (:func:`is_diagnostic`), a family of its own."""
    experiments = (experiments,) if isinstance(experiments, str) else tuple(experiments)
    where = (
        "on kmdr's diagnostic copies of the authors' instances (the Benchmark times k: every "
        "tie exact), each against the authors' runs of the instance itself"
        if diagnostic
        else "at every dataset, k and m both ran"
    )

    def at(factor: float) -> Callable:
        return partial(
            check_authors, construction=construction, diagnostic=diagnostic,
            margin=MARGIN * factor,
        )  # fmt: skip

    return Claim(
        id=f"ss22-{_slug(construction)}-as-authors" + ("-exact-ties" if diagnostic else ""),
        paper="ss22",
        figure="distortion tables",
        source="Tables (distortion), results-raw.csv",
        statement=f"kmdr's {construction} gives the authors' distortion {where} "
        f"({', '.join(experiments)}): the ratio of the geometric means within "
        f"×(1 ± {MARGIN:g}), two one-sided Welch tests on the log distortion (kmdr's "
        "repetitions against the authors' 10 runs), Holm-corrected over every cell of the "
        "claim; ε = distortion − 1 shown beside. Shown beyond the margin either way is against "
        "the claim; neither shown is undecided.",
        experiment=experiments[0],
        experiments=experiments,
        dataset=None,
        check=at(1.0),
        reads=str(P.TABLE),
        note="kmdr's margin, not the paper's",
        sensitivity=at,
    )


def reducer_claims(experiment: str, construction: str) -> tuple[Claim, Claim]:
    def distortion_at(factor: float) -> Callable:
        return partial(
            _check_reducers, construction=construction, what="distortion", margin=MARGIN * factor
        )

    equivalent = Claim(
        id=f"{experiment}-{_slug(construction)}-reducer-free",
        paper="ss22",
        figure="reducers before coresets",
        source="kmdr's question (not the paper's)",
        statement=f"Reducing first leaves {construction}'s distortion on the original data "
        f"within ×(1 ± {MARGIN:g}) of {construction} alone, at every reducer, r, k and m: two "
        "one-sided tests on the log distortion (paired where the repetitions share seeds).",
        experiment=experiment,
        dataset=None,
        check=distortion_at(1.0),
        note="kmdr's margin, not the paper's",
        sensitivity=distortion_at,
    )
    faster = Claim(
        id=f"{experiment}-{_slug(construction)}-reducer-faster",
        paper="ss22",
        figure="reducers before coresets",
        source="kmdr's question (not the paper's)",
        statement=f"Reducing first makes {construction}'s total time (reduce + coreset + solve) "
        "shorter, at every reducer, r, k and m: the ratio test on the log times.",
        experiment=experiment,
        dataset=None,
        check=partial(_check_reducers, construction=construction, what="time"),
    )
    return equivalent, faster


#: The packages whose ``experiment/`` folder may hold ss22 presets: kmdr's configs, the paper's.
PRESET_PACKAGES = ("kmdr.conf", "kmdr.papers.ss22.conf")


def _preset_folders():
    from importlib import resources

    for package in PRESET_PACKAGES:
        try:
            yield resources.files(package) / "experiment"
        except ModuleNotFoundError:
            continue


def presets_by_section(folders=None) -> dict[str, list[str]]:
    """The presets (experiment names) of the two ss22 report sections, read from the preset
    files (``*.yaml``: ``name`` and ``preset.section``) of ``folders`` (default: the
    ``experiment/`` folders of :data:`PRESET_PACKAGES`) without composing them; a preset whose
    ``name`` is its job's dataset's is left out."""
    return {s: list(p) for s, p in _presets(folders).items()}


def _presets(folders=None) -> dict[str, dict[str, tuple[str, tuple[str, ...]]]]:
    """:func:`presets_by_section` with each preset's dataset (its ``override /dataset``, "" when
    it has none) and constructions (``kind_params.constructions``, display names)."""
    from omegaconf import OmegaConf

    out: dict[str, dict] = {SECTION_AUTHORS: {}, SECTION_REDUCERS: {}}
    for folder in _preset_folders() if folders is None else folders:
        try:
            files = sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=str)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for f in files:
            cfg = OmegaConf.create(f.read_text(encoding="utf-8"))
            section = OmegaConf.select(cfg, "preset.section", default=None)
            # a preset whose jobs are named after their datasets (ss22_real, swept over the
            # authors' real datasets) has no name of its own: no claim is made on its folders
            name = OmegaConf.select(cfg, "name", default=None, throw_on_resolution_failure=False)
            if section in out and name and name not in out[section]:
                defaults = OmegaConf.select(cfg, "defaults", default=None) or []
                overrides = [d for d in defaults if isinstance(d, dict | type(cfg))]
                dataset = next((str(v) for d in overrides for k, v in d.items()
                                if str(k).endswith("/dataset")), "")  # fmt: skip
                runs = OmegaConf.select(cfg, "kind_params.constructions", default=None) or []
                out[section][str(name)] = (dataset, tuple(DISPLAY.get(c, c) for c in runs))
    return out


def ss22_claims(folders=None) -> tuple[Claim, ...]:
    """The claims about every ss22 preset (:func:`presets_by_section` of ``folders``): beside
    the authors for the paper's presets (each construction the authors ran), reducers before
    coresets for the others (each construction kmdr can run, :func:`constructions`)."""
    presets = _presets(folders)
    sections = {s: list(p) for s, p in presets.items()}
    claims = []
    # one claim per construction both ran, over every preset that runs it (a construction kmdr
    # has no port of makes no claim: it could never have data; the section shows the authors'
    # numbers of it, labelled not run by kmdr)
    for diagnostic in (False, True):
        for c in AUTHORS_CONSTRUCTIONS:
            runs = tuple(e for e, (dataset, cs) in presets[SECTION_AUTHORS].items()
                         if c in cs and dataset in AUTHORS_INSTANCES
                         and is_diagnostic(dataset) == diagnostic)  # fmt: skip
            if runs and c not in NOT_RUN:
                claims.append(authors_claim(runs, c, diagnostic))
    for e in sections[SECTION_REDUCERS]:
        # the constructions the preset runs (every one kmdr can run where it names none)
        runs = presets[SECTION_REDUCERS][e][1] or constructions()
        for c in runs:
            claims += reducer_claims(e, c)
    return tuple(claims)


def constructions() -> list[str]:
    """The display names of every construction kmdr can run (:data:`DISPLAY`), plug-ins'
    included (by their registry name)."""
    from kmdr.coresets import available_coresets

    return [DISPLAY.get(name, name) for name in available_coresets()]
