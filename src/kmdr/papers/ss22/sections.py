"""The report's ss22 sections: "Beside the authors" (each of kmdr's coreset cells beside the
authors' runs, :mod:`.published`) and "Reducers before coresets" (each construction behind
kmdr's reducers against itself alone). Their statistics and verdicts are the claims'
(:mod:`.claims`): a section shows, per comparison, the numbers a claim judged and the outcome
its verdict gave it (after Holm's correction within the claim).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from kmdr._io import read_csv
from kmdr.papers.ss22 import claims as S
from kmdr.papers.ss22 import published as P
from kmdr.report import claims as C
from kmdr.report._text import VERDICT_MARK, md_table
from kmdr.report.claims.significance import (
    ALPHA,
    Test,
    equivalence_interval,
    p_text,
    replicates,
)
from kmdr.report.claims.verdicts import AGAINST, CONVERGED, FOR, NOT_SIGNIFICANT, SHORT, decide
from kmdr.report.experiments import SKIPPED_ANCHOR, Experiment
from kmdr.report.sections import ReportContext, ReportSection

__all__ = ["AUTHORS", "REDUCERS", "render_authors", "render_reducers"]


def _ci(t: Test) -> str:
    low, high = t.ci
    if math.isnan(low):
        return f"×{math.exp(t.diff):.4g}"
    return f"×{math.exp(t.diff):.4g} (×{math.exp(low):.4g}–×{math.exp(high):.4g})"


def _within(t: Test, m: int = 1) -> str:
    """The narrowest margin ×(1 ± x) holding the ratio's 1 - 2α interval at Holm's strictest
    step (α / ``m``): the equivalence these repetitions could show (TOST would meet a margin at
    least this wide)."""
    low, high = equivalence_interval(t, ALPHA / max(m, 1))
    if math.isnan(low):
        return "—"
    return f"±{100 * max(abs(math.expm1(low)), abs(math.expm1(high))):.2g}%"


def _detectable(t: Test, m: int) -> str:
    """The smallest ratio ``t`` could have detected at α / m (Holm's strictest step)."""
    _g, delta = t.detectable(ALPHA / max(m, 1))
    if math.isnan(delta):
        return ""
    return f"could detect ×{math.exp(-delta):.3g}–×{math.exp(delta):.3g}"


def _outcomes(verdict: C.Verdict | None, part: C.Part) -> dict[str, tuple[str, float]]:
    """Each comparison's (outcome, Holm-adjusted p) by label: the report's verdict's when it
    has one, else the rule's on ``part`` (a section rendered without the report's claims)."""
    if verdict is None or not verdict.outcomes:
        verdict = decide(part) if part.comparisons else None
    if verdict is None:
        return {}
    return {label: (outcome, adj) for label, outcome, _p, adj in verdict.outcomes}


def _verdict_of(context: ReportContext, claim_id: str) -> C.Verdict | None:
    for pairs in context.by_exp.values():
        for claim, verdict in pairs:
            if claim.id == claim_id:
                return verdict
    return None


#: The file the coreset cells kind writes in an experiment's folder (not cells.csv).
CELLS_FILE = "coreset_cells.csv"


def coreset_cells(e: Experiment) -> pd.DataFrame:
    """The experiment's coreset cells: its own ``coreset_cells.csv`` (the kind's file), else
    the cells the report read (an empty frame when it has neither)."""
    path = e.dir / CELLS_FILE
    if path.is_file():
        return read_csv(path)
    return e.cells if "distortion" in e.cells else pd.DataFrame()


def _pairs(root: Path, e: Experiment, cells: pd.DataFrame, context: ReportContext) -> list:
    """The claims about ``e`` and their verdicts: the report's, or, where the report had no
    cells to judge them on (the kind's own file), judged here on ``cells``."""
    pairs = context.by_exp.get(e.name, [])
    if cells.empty or all(v.verdict != C.NO_DATA or not v.evidence.startswith("no results")
                          for _c, v in pairs):  # fmt: skip
        return pairs
    return [(c, C.evaluate(c, {e.name: cells}, root)) for c, _v in pairs]


def _status(e: Experiment, cells: pd.DataFrame | None = None) -> list[str]:
    has = e.has_cells if cells is None else not cells.empty
    status = e.status() if cells is None or e.has_cells else f"{len(cells)} coreset cells"
    out = [f"### {e.preset['title']}", "", f"`{e.name}`: {status}."]
    if not has:
        why = f"skipped, see {SKIPPED_ANCHOR}" if e.skipped else "not run"
        out += ["", f"**No data**: {why}."]
    return out


def _claims_table(pairs: list) -> list[str]:
    if not pairs:
        return []
    rows = [
        [f"`{claim.id}`", claim.statement, VERDICT_MARK[v.verdict], v.evidence]
        for claim, v in pairs
    ]
    return ["", md_table(["claim", "statement", "verdict", "evidence"], rows)]


# --------------------------------------------------------------------------------------------
# Beside the authors
# --------------------------------------------------------------------------------------------

_AUTHORS_INTRO = (
    "Each of kmdr's coreset cells (construction, dataset, k, m = coreset size / k; no reducer) "
    "beside the same cell of C. Schwiegelshohn and O. Sheikh-Omar's runs (ESA 2022), as their "
    f"repository publishes them (`{P.REPOSITORY}` at `{P.COMMIT[:12]}`, `{P.RAW_PATH}`, "
    f"summarized in `results/{P.TABLE.as_posix()}`, its README naming the file's sha256). The "
    "distortion of a solution is max(real cost / coreset cost, coreset cost / real cost), and "
    "a cell's is the authors': on their Benchmark, the largest over the Benchmark's own "
    "solutions (for each block and ε, the means of the clusters the coreset does not starve: "
    "their `xrun/eval_benchmark.py`, the only evaluation their Benchmark rows have); elsewhere "
    "the largest over five k-means++ seedings of the coreset (their `xrun/calc_costs.py`). "
    "Per cell: the median and range of kmdr's "
    "repetitions and of the authors' 10 runs, the ratio of the medians (the effect size), the "
    "ratio of the geometric means with its 95% interval (Welch, on the log distortion: kmdr's "
    "repetitions and the authors' runs are independent), and ε = distortion − 1 of both, "
    "the scale a reader of the authors' tables judges, with the interval of kmdr's ε as a share "
    "of the authors'. **The same distortion is an equivalence test**: the ratio of the "
    f"geometric means within ×(1 ± {S.MARGIN:g}), two one-sided Welch tests (TOST), the "
    "report's one margin rule (the reducers' section below uses the same margin). The margin is "
    "on the ratio because the authors' tables print distortions to two decimals: 0.01 of the "
    "distortion is the least difference their reader sees. On ε it is wide (about ±46% of the "
    "Benchmark's ε ≈ 0.022), so each claim is judged again at half and twice it. p is the "
    "TOST's (inside the margin) or the test of being beyond it (outside), Holm-corrected over "
    "every cell of one construction across the presets of this section (its claim, at the "
    "end of the section; each of the authors' samples is the control once in a family: kmdr's "
    "exact-ties diagnostic, set beside the same sample as `ss22_benchmark_k30`, is a family of "
    "its own). A cell is **equivalent** (shown inside the margin), **kmdr higher** or **kmdr "
    "lower** (shown beyond it), or **undecided** (neither: no difference found is "
    "not the same), with the narrowest margin its 90% interval at Holm's strictest step lies "
    "within: the equivalence these repetitions could show. Constructions "
    "kmdr does not run are shown with the authors' numbers, labelled *not run by kmdr*, and "
    "why; they make no claim (they could never have data).\n\n"
    "On the Benchmark a cell also depends on how ties are broken. The instance's points are "
    "equidistant block by block, so every nearest-center search meets ties, and two code paths "
    "of the authors' decide them. Sensitivity and group sampling's rough solution ends in their "
    "`ClusterAssignmentList::assignAll`: the k-means++ seeds are copied in row-index order "
    "(from a `std::set`), each distance is the Euclidean norm of the explicit difference (not "
    "the dot product), and a later seed takes a point only when strictly closer, so a tie the "
    "arithmetic leaves exact goes to the seed of the lowest row index. StreamKM++'s weights "
    "come from their seeding loop's own updates: a later center takes a point only when "
    "strictly closer in their arithmetic (the dot product summed column by column), where, "
    "with the coordinates (k - 1)/k and "
    "-1/k, rounding decides many ties, the same way in every run; Ray Maker's clusters come "
    "from the same loop. kmdr follows both paths (`kmdr.coresets`: the rough solution's tie "
    "rule and distance, and a transcription of the seeding loop's arithmetic). "
    "`ss22_benchmark_k30_exact` runs the k = 30 cells on the instance times k (integer "
    "coordinates: every distance exact; a distortion does not change with the scale): with "
    "the rough solution's explicit differences exact at both scales, it separates only the "
    "seeding loop's rounding; `scripts/ss22_ties.py` runs StreamKM++ with kmdr's seeding loop "
    "and with scikit-learn's (below, when its file is here)."
)

#: What scripts/ss22_ties.py writes: StreamKM++ on the Benchmark, seeded in the authors'
#: arithmetic (kmdr's ``streamkm``) and by scikit-learn's k-means++, per seed.
TIES = Path("ss22_published") / "streamkm_ties.csv"


def _ties(root: Path) -> list[str]:
    """The tie-breaking diagnostic's table, when its file is in the results folder."""
    path = root / TIES
    if not path.is_file():
        return []
    runs = read_csv(path)
    rows = [
        [seeding, int(k), int(m), len(g), f"{g['distortion'].median():.4g} "
         f"[{g['distortion'].min():.4g}–{g['distortion'].max():.4g}]",
         ", ".join(str(int(v)) for v in g["starved_clusters"])]
        for (seeding, k, m), g in runs.groupby(["seeding", "k", "m"], sort=True)
    ]  # fmt: skip
    header = [
        "seeding",
        "k",
        "m",
        "seeds",
        "distortion median [range]",
        "starved clusters, per seed",
    ]
    return [
        "",
        f"StreamKM++ on the Benchmark by how its seeding breaks ties (`results/{TIES.as_posix()}`, "
        "`scripts/ss22_ties.py`): kmdr's `streamkm`, the authors' seeding loop in their "
        "arithmetic, and scikit-learn's k-means++ seeding in its place; the distortion of the "
        "Benchmark's own solutions, and how many of the k clusters the worst of them leaves out "
        "because the coreset starves them:",
        "",
        md_table(header, rows),
    ]


def _mark(outcome: str, t: Test, m: int) -> str:
    """An authors' cell's verdict in words (its equivalence test after Holm, ``m`` comparisons
    in its family)."""
    if outcome == AGAINST:
        return ("kmdr higher" if t.diff > 0 else "kmdr lower") + ", beyond the margin ✗"
    if outcome == FOR:
        return "equivalent ✓"
    if outcome == NOT_SIGNIFICANT:
        return f"undecided = (could show ±{_within(t, m).lstrip('±')})"
    return outcome


def _eps(row: dict) -> str:
    """A row's ε = distortion - 1: kmdr's and the authors' medians, and the 95% interval of
    kmdr's as a share of the authors'."""
    low, high = row["eps_ci"]
    text = f"{row['eps']:.3g} / {row['eps_theirs']:.3g}"
    if math.isnan(low):
        return text
    return f"{text} ({100 * (low - 1):+.0f}% to {100 * (high - 1):+.0f}%)"


def _family(context: ReportContext, members: list[Experiment], root: Path) -> list:
    """The claims beside the authors made across presets, with their verdicts: the report's, or,
    where the report had no cells to judge them on, judged here on the members' coreset
    cells."""
    names = {e.name for e in members}
    pairs = [(c, v) for ps in context.by_exp.values() for c, v in ps
             if c.experiments and set(c.experiments) & names]  # fmt: skip
    cells = None
    out = []
    for claim, verdict in pairs:
        if verdict.verdict == C.NO_DATA and verdict.evidence.startswith("no results"):
            if cells is None:
                cells = {e.name: replicates(coreset_cells(e)) for e in members}
                cells = {n: c for n, c in cells.items() if not c.empty}
            verdict = C.evaluate(claim, cells, root)
        out.append((claim, verdict))
    return out


def _authors_block(
    root: Path, e: Experiment, table: pd.DataFrame, context: ReportContext
) -> list[str]:
    raw = coreset_cells(e)
    out = _status(e, raw)
    if raw.empty:
        return out
    context = ReportContext(
        {**context.by_exp, e.name: _pairs(root, e, replicates(raw), context)}, context.orphans
    )
    cells = S.canonical(replicates(raw)).assign(experiment=e.name)
    alone = cells[cells["reducer"] == ""]
    datasets = sorted(alone["dataset"].unique())
    theirs_sets = {S.key(d): d for d in table["dataset"].unique()}
    published_here = [d for d in datasets if S.key(d) in theirs_sets]
    own = [d for d in datasets if S.key(d) not in theirs_sets]
    pairs = [(c, v) for c, v in context.by_exp.get(e.name, []) if not c.experiments]
    ran = {S.key(c) for c in alone["construction"].unique()}
    rows = []
    for construction in S.AUTHORS_CONSTRUCTIONS:
        ours = alone[alone["construction"].map(S.key) == S.key(construction)]
        theirs = table[table["algorithm"].map(S.key) == S.key(construction)]
        if ours.empty or theirs.empty:
            continue
        part = S.authors_part(ours, theirs)
        diagnostic = any(S.is_diagnostic(d) for d in ours["dataset"].unique())
        claim_id = S.authors_claim(e.name, construction, diagnostic).id
        verdict = _verdict_of(context, claim_id)
        outcomes = _outcomes(verdict, part)
        # the family's size: the claim's tested comparisons across its presets
        tested = [o for o in (verdict.outcomes if verdict else ()) if not math.isnan(o[2])]
        m = len(tested) or sum(1 for c in part.comparisons if not math.isnan(c.p))
        for row in S.authors_rows(ours, theirs):
            outcome, adj = outcomes.get(S.label(row), (NOT_SIGNIFICANT, math.nan))
            t = row["test"]
            rows.append(
                [construction, row["dataset"], row["k"], row["m"], f"{row['ours']} ({row['n']})",
                 f"{row['theirs']} ({row['n_theirs']})", f"×{row['ratio']:.4g}",
                 _ci(row["plain"]), _eps(row), p_text(t.p, why=t.why), p_text(adj, "p_Holm"),
                 _mark(outcome, t, m)]
            )  # fmt: skip
    if rows:
        out += [
            "",
            md_table(
                ["construction", "dataset", "k", "m", "kmdr median [range] (n)",
                 "authors' median [range] (n)", "ratio of medians",
                 "ratio of geometric means (95% CI)",
                 "ε = distortion − 1, kmdr / authors' (kmdr's 95% CI vs the authors')",
                 f"p (TOST, ×(1 ± {S.MARGIN:g}))", "p_Holm", "verdict"],
                rows,
            ),
        ]  # fmt: skip
    elif published_here:
        out += ["", "No (construction, k, m) that both kmdr and the authors ran."]
    out += _not_run(table, published_here, ran, set(alone["k"]))
    authors = {S.key(c) for c in S.AUTHORS_CONSTRUCTIONS}
    extra = alone[~alone["construction"].map(S.key).isin(authors) & alone["dataset"].isin(
        published_here)]  # fmt: skip
    if len(extra):
        out += ["", _unpublished(extra, "constructions the authors did not run")]
    if own:
        out += [
            "",
            _unpublished(alone[alone["dataset"].isin(own)], "datasets the authors did not run"),
        ]
    return out + _claims_table(pairs)


def _not_run(table: pd.DataFrame, datasets: list[str], ran: set[str], ks: set) -> list[str]:
    """The authors' numbers of the constructions kmdr does not run, on ``datasets`` at the k
    of the block's cells (``ks``)."""
    keys = {S.key(d) for d in datasets}
    missing = [c for c in S.AUTHORS_CONSTRUCTIONS if S.key(c) not in ran]
    theirs = table[table["dataset"].map(S.key).isin(keys) & table["algorithm"].isin(missing)
                   & table["k"].isin(ks)]  # fmt: skip
    if theirs.empty:
        return []
    theirs = theirs.assign(
        shown=[
            f"{r.distortion_median:.4g} [{r.distortion_min:.4g}–{r.distortion_max:.4g}] "
            f"({int(r.n_runs)})"
            for r in theirs.itertuples()
        ]
    )
    wide = theirs.pivot_table(
        index=["dataset", "k", "coreset_size_factor"], columns="algorithm", values="shown",
        aggfunc="first",
    )  # fmt: skip
    names = [c for c in missing if c in wide.columns]
    rows = [[d, int(k), int(m), *(wide.loc[(d, k, m), c] if isinstance(wide.loc[(d, k, m), c], str)
             else "—" for c in names)] for d, k, m in wide.index]  # fmt: skip
    why = "; ".join(f"**{c}**: {S.NOT_RUN.get(c, 'no cell of it here')}" for c in missing)
    return [
        "",
        f"The authors' constructions not run here ({why}):",
        "",
        md_table(
            [
                "dataset",
                "k",
                "m",
                *(
                    f"{c}: authors' median [range] (n), "
                    + ("not run by kmdr" if c in S.NOT_RUN else "not run here")
                    for c in names
                ),
            ],
            rows,
        ),
    ]


#: The families of solutions a cell may have measured beside its own distortion (its
#: ``distortion_<family>`` columns), with the authors' names for them in their tables.
FAMILIES = {
    "distortion_kmeanspp": "k-means++",
    "distortion_convex": "random CH",
    "distortion_meb": "random MEB",
}


def _unpublished(part: pd.DataFrame, what: str) -> str:
    """kmdr's cells with no published number beside them (``what`` says why): medians only,
    the cell's distortion and, as the authors' tables set them side by side, that of each
    family of solutions it measured (k-means++, random convex-hull and MEB points)."""
    families = {c: name for c, name in FAMILIES.items() if c in part and part[c].notna().any()}
    rows = []
    for (construction, dataset, k, m), cells in part.groupby(
        ["construction", "dataset", "k", "m"], sort=True
    ):
        shown = []
        for column in ["distortion", *families]:
            values = cells.groupby("repetition")[column].mean()
            shown.append(
                f"{values.median():.4g} [{values.min():.4g}–{values.max():.4g}] ({len(values)})"
            )
        rows.append([construction, dataset, int(k), int(m), shown[0], *shown[1:]])
    header = ["construction", "dataset", "k", "m", "kmdr median [range] (n)"]
    header += [f"{name}: median [range] (n)" for name in families.values()]
    return (
        f"kmdr's distortions with no published number to set beside them ({what}); each "
        "family of solutions measured is shown beside the cell's:\n\n" + md_table(header, rows)
    )


def render_authors(root: Path, members: list[Experiment], context: ReportContext) -> str:
    out = ["## Beside the authors: k-means coresets (Schwiegelshohn, Sheikh-Omar, ESA 2022)"]
    out += ["", _AUTHORS_INTRO, *_ties(root)]
    table = P.published(root)
    if table.empty:
        out += [
            "",
            f"**No published table** in this results folder (`{P.TABLE.as_posix()}`): "
            "`python -m kmdr.papers.ss22.published --source PATH --results "
            f"{root.name}` derives it from the authors' repository.",
        ]
    if not members:
        out += ["", "**No data**: no ss22 preset has run in this results folder."]
    for e in members:
        out += ["", *_authors_block(root, e, table, context)]
    family = _family(context, members, root)
    if family:
        out += [
            "",
            "### The claims beside the authors",
            "",
            "One claim per construction both ran, across the presets above: its cells are one "
            "Holm family, in which each of the authors' samples is the control once (kmdr's "
            "diagnostic copies of an instance make a claim of their own).",
            *_claims_table(family),
        ]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Reducers before coresets
# --------------------------------------------------------------------------------------------

_REDUCERS_INTRO = (
    "Each construction run on the data first reduced by one of kmdr's reducers to r "
    "dimensions, against the same construction on the original data; the distortion is always "
    "measured **on the original data** (the coreset built on the reduced data is carried back "
    "to the original rows it stands for, and its solution's cost there is set against the "
    "full original data's). "
    f"**Distortion**: equivalent when the ratio of the geometric means is shown within "
    f"×(1 ± {S.MARGIN:g}) (kmdr's margin, not the paper's: the paper's tables print "
    "distortions to two decimals; two one-sided tests on the log distortion, paired where the "
    "two sides' repetitions share their seeds, Holm-corrected over the construction's "
    "comparisons; its claim also gives the verdicts at half and twice the margin). "
    "**Total time** (reduce + coreset + solve): the ratio test on the log times of both sides "
    "(they are measurements). Beside each distortion ratio, the narrowest margin its 90% "
    "interval (at Holm's strictest step) lies within: what equivalence these repetitions "
    "could show. A construction whose draws ignore the data (uniform sampling) draws the same "
    "rows with and without a reducer, so its distortion is identical by construction: said so, "
    "and not tested. The first table "
    "says, per construction and reducer, from which r "
    "on every r of the grid is shown equivalent, and what that r costs or saves in time; the "
    "second gives every r."
)

#: A row's distortion outcome where the construction's draws ignore the data (no test made).
IDENTICAL = "identical"

_WORDS = {
    "distortion": {FOR: "equivalent ✓", AGAINST: "beyond the margin ✗", SHORT: "short ~",
                   CONVERGED: "≈", NOT_SIGNIFICANT: "undecided ="},
    "time": {FOR: "faster ✓", AGAINST: "slower ✗", SHORT: "short ~", CONVERGED: "≈",
             NOT_SIGNIFICANT: "no difference shown ="},
}  # fmt: skip


def _line_summary(lines: list[dict]) -> str:
    """Where reducing first is free, costs accuracy or saves time, on one line's rows."""
    costly = [r["r"] for r in lines if r["d_out"] == AGAINST and r["d_ratio"] > 1]
    lower = [r["r"] for r in lines if r["d_out"] == AGAINST and r["d_ratio"] < 1]
    faster = [r["r"] for r in lines if r["t_out"] == FOR]
    slower = [r["r"] for r in lines if r["t_out"] == AGAINST]
    first = S.first_equivalent_r(
        [r["r"] for r in lines], [r["d_out"] in (FOR, IDENTICAL) for r in lines]
    )
    words = []
    if all(r["d_out"] == IDENTICAL for r in lines):
        words.append("distortion identical by construction")
    elif first is not None:
        words.append(f"free from r = {first:g}")

    def at(label: str, rs: list) -> None:
        if rs:
            words.append(f"{label} at r = " + ", ".join(f"{r:g}" for r in rs))

    at("costs accuracy", costly)
    at("lower distortion", lower)
    at("saves time", faster)
    at("slower", slower)
    return "; ".join(words) or "nothing shown either way"


def _reducers_block(root: Path, e: Experiment, context: ReportContext) -> list[str]:
    raw = coreset_cells(e)
    out = _status(e, raw)
    for fig in e.figures():
        out += ["", f"![{e.name}: {fig.stem}]({fig.relative_to(root).as_posix()})"]
    if raw.empty:
        return out
    context = ReportContext(
        {**context.by_exp, e.name: _pairs(root, e, replicates(raw), context)}, context.orphans
    )
    cells = S.canonical(replicates(raw))
    summary, detail = [], []
    for construction in sorted(cells["construction"].unique(), key=str):
        rows = S.reducer_rows(cells, construction)
        if not rows:
            continue
        d_part = S.reducer_distortion_part(cells, construction)
        t_part = S.reducer_time_part(cells, construction)
        identical = S.identical_by_construction(rows, construction)
        m_d = sum(1 for c in d_part.comparisons if not math.isnan(c.p))
        free_id, faster_id = (c.id for c in S.reducer_claims(e.name, construction))
        d_out = _outcomes(_verdict_of(context, free_id), d_part)
        t_out = _outcomes(_verdict_of(context, faster_id), t_part)
        m_t = sum(1 for c in t_part.comparisons if not math.isnan(c.p))
        for row in rows:
            lab = S.label(row)
            row["d_out"] = d_out.get(lab, (NOT_SIGNIFICANT, math.nan))[0]
            row["t_out"] = t_out.get(lab, (NOT_SIGNIFICANT, math.nan))[0]
            t = row["time"]
            d_word = _WORDS["distortion"][row["d_out"]]
            if row["d_out"] == AGAINST and row["d_ratio"] < 1:
                d_word = "lower, beyond the margin"
            if identical:
                row["d_out"] = IDENTICAL
                d_word = "identical by construction (untested)"
            t_word = "—" if t is None else _WORDS["time"][row["t_out"]]
            if row["t_out"] == NOT_SIGNIFICANT and t is not None:
                reach = _detectable(t, m_t)
                t_word += f" ({reach})" if reach else ""
            detail.append(
                [construction, row["dataset"], row["k"], row["m"], row["reducer"], f"{row['r']:g}",
                 _ci(row["distortion"]), "—" if identical else _within(row["distortion"], m_d),
                 "untested" if identical else p_text(row["distortion"].p,
                                                     why=row["distortion"].why),
                 d_word, "—" if t is None else _ci(t), t_word]
            )  # fmt: skip
        by_line: dict[tuple, list[dict]] = {}
        for row in rows:
            by_line.setdefault((row["dataset"], row["k"], row["m"], row["reducer"]), []).append(row)
        for (dataset, k, m, reducer), lines in by_line.items():
            first = S.first_equivalent_r(
                [r["r"] for r in lines], [r["d_out"] in (FOR, IDENTICAL) for r in lines]
            )
            at = next((r for r in lines if r["r"] == first), None)
            time_at = "—" if at is None or at["time"] is None else _ci(at["time"])
            summary.append(
                [construction, dataset, k, m, reducer,
                 "none of the grid" if first is None else f"{first:g}",
                 ", ".join(f"{r['r']:g}" for r in sorted(lines, key=lambda r: r["r"])),
                 time_at, _line_summary(lines)]
            )  # fmt: skip
    if not summary:
        out += ["", "No reduced run beside a run of the same construction without reducer."]
        return out + _claims_table(context.by_exp.get(e.name, []))
    out += [
        "",
        md_table(
            ["construction", "dataset", "k", "m", "reducer", "equivalent from r", "r grid",
             "total time at that r (95% CI)", "in short"],
            summary,
        ),
        "",
        md_table(
            ["construction", "dataset", "k", "m", "reducer", "r",
             "distortion ratio (95% CI)", "its CI within", "p (TOST)", "distortion",
             "total time ratio (95% CI)", "time"],
            detail,
        ),
    ]  # fmt: skip
    return out + _claims_table(context.by_exp.get(e.name, []))


def render_reducers(root: Path, members: list[Experiment], context: ReportContext) -> str:
    out = ["## Reducers before coresets", "", _REDUCERS_INTRO]
    if not members:
        out += ["", "**No data**: no reducers-before-coresets preset has run here."]
    for e in members:
        out += ["", *_reducers_block(root, e, context)]
    return "\n".join(out)


#: The report sections ``ss22_authors`` and ``ss22_reducers`` (shown, saying *no data*, even
#: when none of their presets has run).
AUTHORS = ReportSection(render=render_authors, default_order=60, always_shown=True)
REDUCERS = ReportSection(render=render_reducers, default_order=61, always_shown=True)
