"""Boutsidis, Mahoney, Drineas (2009): unsupervised feature selection for k-means.

Table 1 and Figure 1 against the published values (figure styles ``bmd09_table1`` and
``bmd09_fig1``, report sections ``table1`` and ``fig1``), its Theorem 1, and the leverage-scores
experiment kind: all declared in :data:`PAPER`.
"""

from __future__ import annotations

from kmdr.plugins import Deviation, Paper

__all__ = ["PAPER"]


def _nips(results) -> str:
    if results.ran("nips"):
        return (
            "**NIPS** (bmd09 Table 1 and Figure 1): built from Gal Chechik's nips_1-17.mat as "
            "bmd09 describes (the CN, LT and NS documents of 2001-2003, terms that occur in them)"
            + results.shape("bmd09_table1", "nips")
            + "; bmd09 reports 184 × 6314."
        )
    return (
        "**NIPS** (bmd09 Table 1 and Figure 1): the 184 × 6314 count matrix is built from Gal "
        "Chechik's nips_1-17.mat, which could not be obtained: every public copy found was "
        "above the ~4 MB blob limit of the snapshot store the data was collected from, and "
        "this machine has no network. Only the metadata (vocabulary, document names, section "
        "labels) is here; it confirms the 184 documents (CN 50, LT 68, NS 66) and contains all "
        "the Figure 1 terms. bmd09's NIPS results are therefore *no data*."
    )


PAPER = Paper(
    key="bmd09",
    title="Boutsidis, Mahoney, Drineas. Unsupervised Feature Selection for the k-means "
    "Clustering Problem. NIPS 2009",
    citation="Boutsidis, Mahoney, Drineas, NIPS 2009",
    figure_styles={
        "bmd09_fig1": "kmdr.papers.bmd09.styles:FIG1",
        "bmd09_table1": "kmdr.papers.bmd09.styles:TABLE1",
    },
    report_sections={
        "table1": "kmdr.papers.bmd09.sections:TABLE1_SECTION",
        "fig1": "kmdr.papers.bmd09.sections:FIG1_SECTION",
    },
    kinds={"leverage_scores": "kmdr.papers.bmd09.leverage_scores:LEVERAGE_SCORES"},
    theory="kmdr.papers.bmd09.theory:PART",
    deviations=(
        Deviation(20, _nips),
        Deviation(
            21,
            "**Bio** (Nielsen et al. 2002, 31 × 5520): no public copy was found; bmd09's Bio row "
            "is *no data*.",
        ),
    ),
    no_data={
        "bmd09_table1": "the NIPS count matrix and the Bio microarray data could not be "
        "obtained (see Deviations)",
        "bmd09_fig1": "the NIPS count matrix could not be obtained (see Deviations)",
    },
)
