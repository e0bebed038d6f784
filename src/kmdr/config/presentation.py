"""The names an experiment's presentation keys may take: its figure style (``preset.figure``) and
its report section (``preset.section``).

Both are registries (:class:`kmdr.plugins.Registry`) of the papers' declarations
(:class:`kmdr.plugins.Paper`, the one entry-point group ``kmdr.papers``), kmdr's own and
plug-ins' alike, e.g.::

    PAPER = Paper(
        "mypaper",
        "Me (2024): my study",
        figure_styles={"mystyle": "mypkg.figure:STYLE"},  # a FigureStyle
        report_sections={"mysection": "mypkg.section:SECTION"},  # a ReportSection
    )

The configuration checks a name without importing anything but the papers' declarations
(``name in FIGURE_STYLES``); the figures and the report import a declaration when they use it.
This layer knows the declarations only by the attributes it checks (the classes live in
:mod:`kmdr.figures.style` and :mod:`kmdr.report.sections`, above it).
"""

from __future__ import annotations

from kmdr.plugins import Registry

#: The style and section of an experiment whose preset names none (an ad-hoc run).
DEFAULT_FIGURE_STYLE = "bzmd14"
DEFAULT_SECTION = "custom"


def _having(*attributes: str):
    def convert(obj, name: str):
        missing = [a for a in attributes if not hasattr(obj, a)]
        if missing:
            raise TypeError(
                f"{name} = {type(obj).__name__} object has no {', '.join(missing)}: declare a "
                "kmdr.figures.style.FigureStyle or kmdr.report.sections.ReportSection"
            )
        return obj

    return convert


#: Figure styles: how ``kmdr-figures`` draws an experiment (panels, labels, the paper's names).
FIGURE_STYLES: Registry = Registry(
    "figure style",
    "kmdr.papers",
    convert=_having("panels", "draw", "write_tables"),
    paper_field="figure_styles",
)
#: Report sections: where ``kmdr-report`` places an experiment, and how it writes that section.
SECTIONS: Registry = Registry(
    "report section",
    "kmdr.papers",
    convert=_having("render", "default_order"),
    paper_field="report_sections",
)
