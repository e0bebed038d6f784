"""The declaration of a paper: everything it adds to kmdr, in one object (:class:`Paper`).

It sits beside the registries (:mod:`kmdr.plugins`), below every layer, so that the registries of
the configuration, the figures and the report can all read the papers' declarations; a paper's
package, at the top, declares one and registers it as an entry point of ``kmdr.papers``.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Deviation:
    """One way our data or setup deviates from a paper's: an item of the report's last section.

    Attributes
    ----------
    order : float
        Its place among every paper's deviations, which the report lists by ``order`` (the data
        sets first, then the setup), then in the papers' order.
    text : str or callable
        The item (Markdown, one paragraph), or ``text(results) -> str`` when it quotes what ran:
        ``results.shape(experiment, dataset)`` is " (ours: n × d)" or "" when that experiment has
        no cell of that dataset, and ``results.ran(dataset)`` says whether any experiment has
        results on it (:class:`kmdr.report.deviations.Results`).
    """

    order: float
    text: str | Callable[[object], str]


def _frozen(mapping: Mapping, what: str, key: str) -> Mapping:
    if not isinstance(mapping, Mapping):
        raise TypeError(f"paper {key}: {what} must be a mapping of names")
    return types.MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Paper:
    """Everything one paper adds to kmdr, declared once in its own package.

    A paper's package exposes one ``PAPER = Paper(...)`` and registers it as an entry point of the
    group ``kmdr.papers``, named by the paper's ``key``. Its code parts are ``"module:attr"``
    strings, imported when first used (reading the declaration imports nothing heavy), or the
    objects themselves; its prose is text.

    Attributes
    ----------
    key : str
        The paper's short name (``"bzmd14"``): its entry point's name, its presets'
        ``preset.paper``, the name of its claim set and theory part.
    title : str
        Its citation: authors, year, title.
    citation : str
        How the report's opening names it (authors, venue, year: "Liu, Shen, Tsang, NIPS
        2017"); empty for a declaration that is not a paper (the course report's presets, what
        the papers share), which the opening then does not list.
    figure_styles, report_sections, kinds : Mapping
        Its figure styles (:class:`kmdr.figures.style.FigureStyle`), report sections
        (:class:`kmdr.report.sections.ReportSection`) and experiment kinds, by the name a preset
        gives them (``preset.figure``, ``preset.section``, ``kind``).
    claims : str or object, optional
        Its claims: a callable returning :class:`kmdr.report.claims.Claim` objects, or the claims.
    theory : str or object, optional
        Its theorems, a :class:`kmdr.report.theory.TheoryPart`.
    deviations : tuple of Deviation
        Where our data and setup deviate from the paper's.
    no_data : Mapping
        Why one of its experiments has no data here, by experiment name (said when it did not
        run).
    notes : Mapping
        What a reader must know before reading an experiment's figure, by experiment name.
    reducers, datasets : Mapping
        The reducers (:class:`kmdr.reducers.ReducerEntry`) and datasets
        (:class:`kmdr.datasets.DatasetEntry`) only this paper uses, by the name a config gives
        them (``reducer=``, ``dataset=``): the same registries list them beside kmdr's others.
    coresets, solution_families : Mapping
        The coreset constructions (:class:`kmdr.coresets.BaseCoreset` subclasses) and the
        families of solutions a coreset is measured with
        (:class:`kmdr.coresets.evaluation.SolutionFamily`) it adds, by the name a config gives
        them (``kind_params.constructions``, ``kind_params.solutions``).
    configs : str, optional
        The package of the paper's Hydra configs (``"mypkg.conf"``, holding ``experiment/`` with
        its presets and ``dataset/`` with its datasets' options), put on the search path of every
        kmdr config (the command line, ``kmdr.run``, ``make reproduce``).
    reproduce_steps : tuple of str
        Modules ``make reproduce`` runs after the presets, each as ``python -m MODULE --results
        DIR`` (``--quick`` added for ``make reproduce-quick``): what a paper computes besides
        cells (a theory check, say).
    benches : tuple of str
        Modules of its benchmarks, each run as ``python -m MODULE`` by ``make bench-papers``
        (they write under ``results/bench/``).
    bench_tables : Mapping
        The guides' tables of its benches' results, by the name a guide's
        ``<!-- bench-table: NAME -->`` marker gives: each a callable (or ``"module:attr"``)
        taking the ``results/bench`` folder and returning the table's Markdown, made from the
        CSV its bench wrote (``scripts/bench/bench_tables.py`` writes them into the guides).
    """

    key: str
    title: str
    citation: str = ""
    figure_styles: Mapping[str, object] = field(default_factory=dict)
    report_sections: Mapping[str, object] = field(default_factory=dict)
    kinds: Mapping[str, object] = field(default_factory=dict)
    claims: object = None
    theory: object = None
    deviations: tuple[Deviation, ...] = ()
    no_data: Mapping[str, str] = field(default_factory=dict)
    notes: Mapping[str, str] = field(default_factory=dict)
    reducers: Mapping[str, object] = field(default_factory=dict)
    datasets: Mapping[str, object] = field(default_factory=dict)
    coresets: Mapping[str, object] = field(default_factory=dict)
    solution_families: Mapping[str, object] = field(default_factory=dict)
    configs: str | None = None
    reproduce_steps: tuple[str, ...] = ()
    benches: tuple[str, ...] = ()
    bench_tables: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        fields = ("figure_styles", "report_sections", "kinds", "no_data", "notes", "reducers")
        for name in (*fields, "datasets", "coresets", "solution_families", "bench_tables"):
            object.__setattr__(self, name, _frozen(getattr(self, name), name, self.key))
        deviations = tuple(self.deviations)
        wrong = [type(d).__name__ for d in deviations if not isinstance(d, Deviation)]
        if wrong:
            raise TypeError(f"paper {self.key}: deviations holds {wrong[0]}: give Deviations")
        object.__setattr__(self, "deviations", deviations)
        if self.configs is not None and not (isinstance(self.configs, str) and self.configs):
            raise TypeError(f"paper {self.key}: configs must be the name of a package")
        for name in ("reproduce_steps", "benches"):
            modules = getattr(self, name)
            if isinstance(modules, str) or not all(isinstance(m, str) for m in modules):
                raise TypeError(f"paper {self.key}: {name} must be a tuple of module names")
            object.__setattr__(self, name, tuple(modules))


def check_paper(obj, name: str) -> Paper:
    """``obj`` if it is the :class:`Paper` of key ``name`` (the registry's ``convert``)."""
    if not isinstance(obj, Paper):
        raise TypeError(f"{name} is a {type(obj).__name__}: give a kmdr.plugins.Paper")
    if obj.key != name:
        raise ValueError(
            f"its Paper's key is {obj.key!r}: name the entry point {obj.key!r} or set key={name!r}"
        )
    return obj
