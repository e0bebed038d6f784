"""lst17's curve-only claims (Figs. 1-3, §4.2), one :class:`~.verdicts.Claim` each.

Each claim reads the quantity of the figure it paraphrases: Figure 1 plots accuracy, Figure 2
the dimension reduction time (``reduce_seconds``), Figure 3 the clustering time
(``cluster_seconds``, k-means on the reduced data; for kMeans, k-means on all features).
"""

from __future__ import annotations

import re
from dataclasses import replace as dc_replace
from functools import partial

from kmdr.report.claims.checks import (
    check_each,
    check_flat,
    check_grows,
    check_trend,
    titled,
)
from kmdr.report.claims.labels import VARIANT
from kmdr.report.claims.rankings import (
    check_faster_than_full,
    check_leads_accuracy,
    check_lowest,
    check_slowest,
    check_trails,
)
from kmdr.report.claims.verdicts import (
    FLAT_SHARE,
    KMDRS,
    LAPSCORES,
    SIGNIFICANT_GROWTH,
    SIGNIFICANTLY,
    TIMER_FLOOR,
    TREND_MARGIN,
    Claim,
    Part,
)

#: lst17's dimensionality reduction methods; a panel lists the ones its preset does not run.
LST17_METHODS = ("SE", "RP", "SVD", "LLE", LAPSCORES, "PD")
#: How a statement names a method: lst17's PD runs kmdr's variant of the authors' sparsified
#: k-means (kmdr's rules, the DCT, the preset's random start), under its cells' label "PD";
#: the report names it as everywhere else (:data:`kmdr.report.claims.labels.VARIANT`).
_SHOWN = {"PD": f"PD{VARIANT}"}
#: "PD" as a word in an evidence line, not already named as kmdr's variant.
_PD = re.compile(rf"\bPD\b(?!{re.escape(VARIANT)})")


def _rename(text: str) -> str:
    return _PD.sub(_SHOWN["PD"], text)


def _named(check):
    """``check`` whose comparisons name PD as kmdr's variant (the cells keep the label PD)."""

    def run(df, **kwargs):
        part = check(df, **kwargs)
        if not isinstance(part, Part):
            return part
        comps = tuple(
            dc_replace(c, label=_rename(c.label), text=_rename(c.text)) for c in part.comparisons
        )
        missing = tuple(_rename(m) for m in part.missing)
        return Part(comps, missing, _rename(part.head), _rename(part.no_data))

    return run


def _listed(methods) -> str:
    """The methods as a statement lists them."""
    return ", ".join(_SHOWN.get(m, m) for m in methods)


#: The datasets whose presets run lst17's slow baselines (SVD, LS; LLE where it fits), so that
#: §4.2's rankings of them (LLE and LS trail, SVD and LLE reduce slowest) are checked there too:
#: COIL20, as in the paper, and the sparse stand-in (SVD and PD on r <= 200, LLE on r <= 100,
#: each compared on the r it has).
#: lst17 ran them on neither RCV1 nor ILSVRC2012.
WITH_SLOW_BASELINES = ("coil20", "sparse_text")

LST17_DATASETS = {
    "lst17_coil20": ("coil20", "(a)"),
    "lst17_rcv1": ("rcv1", "(c)"),
    "lst17_sparse_text": ("sparse_text", "(c), stand-in"),
}
_NAMES = {"coil20": "COIL20", "rcv1": "RCV1", "sparse_text": "sparse_text (RCV1 stand-in)"}
_SIG = SIGNIFICANTLY  # the words of every comparison's test
_STAND_IN = (
    "Synthetic stand-in for RCV1: a check of the method's behaviour on sparse text-like "
    "data, NOT a reproduction of the RCV1 panel."
)


def _claims(exp: str, ds: str, fig: str) -> list[Claim]:
    name = _NAMES[ds]
    # lst17 ran SVD, LLE, LS only on COIL20 and SECTOR ("can't get the results ... within
    # three days on RCV1"): methods missing from a panel (or from part of its r grid) are listed
    # as not run and do not count for or against a claim.
    methods = LST17_METHODS
    mlist = _listed(methods)
    not_se = tuple(x for x in methods if x != "SE")
    common = {
        "paper": "lst17",
        "experiment": exp,
        "dataset": ds,
        "note": _STAND_IN if ds == "sparse_text" else "",
    }
    trend = partial(check_trend, methods=methods, direction=+1)
    c = [
        Claim(
            id=f"lst17-accuracy-increases-{ds}",
            figure=f"Fig. 1 {fig}",
            source="§4.2 bullet 1",
            statement=(
                f"On {name}, clustering accuracy of each of {mlist} increases with the number "
                f"of dimensions: last-quarter mean P {_SIG} and at least {TREND_MARGIN:.0%} "
                f"({KMDRS}) above "
                "the first quarter and Spearman ρ(r, P) > 0."
            ),
            check=partial(trend, metric="accuracy"),
            **common,
        ),
        Claim(
            id=f"lst17-time-increases-{ds}",
            figure=f"Figs. 2-3 {fig}",
            source="§4.2 bullet 1",
            statement=(
                f"On {name}, the running times of each of {mlist} increase with the number of "
                "dimensions: the same trend test on the reduction time (Fig. 2) and on the "
                "clustering time (Fig. 3), every comparison of both in one family."
            ),
            check=partial(
                check_each,
                checks=(
                    titled(partial(trend, metric="reduce_seconds"), "reduce"),
                    titled(partial(trend, metric="cluster_seconds"), "cluster"),
                ),
            ),
            **common,
        ),
        Claim(
            id=f"lst17-se-most-accurate-{ds}",
            figure=f"Fig. 1 {fig}",
            source="§4.2 bullet 2",
            statement=(
                f"On {name}, SE is more accurate than RP and the other baselines: SE's mean P "
                f"over r {_SIG} above each of {_listed(not_se)}."
            ),
            check=partial(check_leads_accuracy, leader="SE", others=not_se),
            **common,
        ),
        Claim(
            id=f"lst17-rp-time-grows-{ds}",
            figure=f"Fig. 2 {fig}",
            source="§4.2 bullet 3",
            statement=(
                f"On {name}, the reduction time of RP grows with the dimensions: last-quarter "
                f"mean {_SIG} above the first-quarter mean and above the "
                f"{TIMER_FLOOR * 1e3:g} ms timer floor, at least ×{SIGNIFICANT_GROWTH} "
                f"({KMDRS}) with "
                "Spearman ρ ≥ 0.5."
            ),
            check=partial(check_grows, method="RP", metric="reduce_seconds"),
            **common,
        ),
        Claim(
            id=f"lst17-se-lowest-time-{ds}",
            figure=f"Fig. 2 {fig}",
            source="§4.2 bullet 3",
            statement=(
                f"On {name}, SE has the lowest reduction time: its mean over the common r grid "
                f"{_SIG} below each of {_listed(not_se)} (one test per method, on the ratio "
                "of the times), and its mean below theirs at every r."
            ),
            check=partial(check_lowest, low="SE", others=not_se, metric="reduce_seconds"),
            **common,
        ),
        Claim(
            id=f"lst17-se-time-flat-{ds}",
            figure=f"Fig. 2 {fig}",
            source="§4.2 bullet 3",
            statement=(
                f"On {name}, SE's reduction time is stable (nearly flat in r): its growth from "
                f"the first to the last quarter of the r grid {_SIG} below {FLAT_SHARE:.0%} "
                f"({KMDRS}) of "
                f"RP's growth over the same grid plus the {TIMER_FLOOR * 1e3:g} ms timer floor "
                "(one-sided; a growth not shown to be that small is not flat)."
            ),
            check=partial(check_flat, method="SE", metric="reduce_seconds", neighbour="RP"),
            **common,
        ),
        Claim(
            id=f"lst17-faster-than-full-{ds}",
            figure=f"Fig. 3 {fig}",
            source="§4.2 bullet 4",
            statement=(
                f"On {name}, every reduced k-means ({mlist}) is faster than k-means on all "
                "features: each method's mean clustering time (Fig. 3) over r "
                f"{_SIG} below kMeans' (one test per method, on the ratio of the times), and "
                "its mean below kMeans' at every r."
            ),
            check=partial(check_faster_than_full, methods=methods, metric="cluster_seconds"),
            **common,
        ),
    ]
    if ds in WITH_SLOW_BASELINES:
        better = ("SE", "RP", "SVD", "PD")
        c.insert(
            3,
            Claim(
                id=f"lst17-lle-lapscores-trail-{ds}",
                figure=f"Fig. 1 {fig}",
                source="§4.2 bullet 2",
                statement=(
                    f"On {name}, LLE and LS generally underperform: each one's mean P over r "
                    f"{_SIG} below each of {_listed(better)}."
                ),
                check=partial(
                    check_each,
                    checks=(
                        partial(check_trails, laggard="LLE", others=better),
                        partial(check_trails, laggard=LAPSCORES, others=better),
                    ),
                ),
                **common,
            ),
        )
        faster = ("SE", "RP", LAPSCORES, "PD")
        c.insert(
            5,
            Claim(
                id=f"lst17-svd-lle-slowest-{ds}",
                figure=f"Fig. 2 {fig}",
                source="§4.2 bullet 3",
                statement=(
                    f"On {name}, SVD and LLE are the two slowest to reduce: each one's mean "
                    f"reduction time over r {_SIG} above each of {_listed(faster)}."
                ),
                check=partial(
                    check_each,
                    checks=tuple(
                        partial(check_slowest, slow=s, others=faster, metric="reduce_seconds")
                        for s in ("SVD", "LLE")
                    ),
                ),
                **common,
            ),
        )
    return [dc_replace(claim, check=_named(claim.check)) for claim in c]


def lst17_claims() -> list[Claim]:
    """lst17's claims, experiment by experiment, in report order."""
    return [c for exp, (ds, fig) in LST17_DATASETS.items() for c in _claims(exp, ds, fig)]
