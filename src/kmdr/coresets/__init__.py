"""Coreset constructions: reduce the rows of A, where the reducers reduce its columns.

A coreset is a small weighted set of points whose k-means cost stays within 1 +- eps of the
data's for every set of k centers. The constructions are scikit-learn estimators
(:class:`BaseCoreset`) named in one registry, :data:`CORESETS`: kmdr's own, then plug-ins found
through the entry-point group ``kmdr.coresets`` (:data:`ENTRY_POINT_GROUP`), e.g.::

    [project.entry-points."kmdr.coresets"]
    mine = "mypkg.coreset:MyCoreset"      # a BaseCoreset subclass

A paper adds its own through its :class:`kmdr.plugins.Paper` (``coresets``). Loading, name
clashes and broken plug-ins follow the one policy of :mod:`kmdr.plugins`. Reading the names
imports no construction and no scikit-learn. How a coreset is measured (the families of
solutions tried on it) is :mod:`kmdr.coresets.evaluation`.

kmdr's own, following Schwiegelshohn and Sheikh-Omar, *An Empirical Evaluation of k-Means
Coresets* (ESA 2022) and their code (the repository sheikhomar/eval-k-means-coresets):

======================  ===================================================================
``uniform``             uniform sampling, the baseline
``lightweight``         lightweight coresets (Bachem, Lucic, Krause, KDD 2018)
``sensitivity``         sensitivity sampling on a 2k-seed k-means++ solution, as the authors'
                        code runs it (distances, their tie rule; the docstring says where not)
``group``               group sampling (Cohen-Addad, Saulpic, Schwiegelshohn 2021), as the
                        authors' code runs it (distances, their tie rule)
``streamkm``            StreamKM++'s weighted k-means++ seeds, whole or by merge-and-reduce
``streamkm_tree``       StreamKM++'s seeds drawn by its paper's coreset tree: kmdr's variant
``ray_maker``           Ray Maker, the authors' heuristic
``sensitivity_squared`` ``sensitivity`` on squared distances, the textbook's: kmdr's variant,
                        to show what the authors' choice of distance changes
``group_squared``       ``group`` on squared distances, the paper's: kmdr's variant, likewise
``merge_reduce``        any construction composed by merge-and-reduce over row blocks (in
                        memory, or in parallel on a dask.array or kmdr's row blocks)
``bico``                BICO (Fichtenberger et al., ESA 2013), following their C++ code as the
                        authors ran it: m clustering features of a one-pass tree
======================  ===================================================================

After Draganov, Saulpic, Schwiegelshohn, *Settling Time vs. Accuracy Tradeoffs for Clustering
Big Data* (SIGMOD 2024), on Fast-kmeans++ (Cohen-Addad et al., NeurIPS 2020) in compiled code,
registered by that paper's package (:mod:`kmdr.papers.dss24`):

======================  ===================================================================
``fast_coreset``        Fast-Coresets: a JL projection, Fast-kmeans++, sensitivity sampling
``welterweight``        sensitivity sampling on j k-means++ seeds (j = 2, log k, sqrt k)
``fast_streamkm``       their "StreamKM++": m Fast-kmeans++ seeds weighted by their rows
``fast_coreset_code``   Fast-Coresets as the authors' code builds them (their numbers' source)
``welterweight_code``   welterweight coresets as the authors' code builds them (2j + 1 seeds)
======================  ===================================================================
"""

from __future__ import annotations

from kmdr.plugins import Registry

__all__ = [
    "CORESETS",
    "ENTRY_POINT_GROUP",
    "available_coresets",
    "coreset_class",
    "make_coreset",
]

#: The entry-point group third-party constructions register under.
ENTRY_POINT_GROUP = "kmdr.coresets"


def _checked(obj: object, name: str) -> type:
    from kmdr.coresets._base import BaseCoreset  # a class is wanted now: scikit-learn loads

    if not (isinstance(obj, type) and issubclass(obj, BaseCoreset)):
        raise TypeError(f"it is {obj!r}, not a kmdr.coresets.BaseCoreset subclass")
    return obj


#: Every coreset construction by the name a config gives it: kmdr's own, then those the papers
#: declare (``Paper.coresets``) and plug-ins.
CORESETS: Registry[type] = Registry(
    "coreset construction", ENTRY_POINT_GROUP, convert=_checked, paper_field="coresets"
)
for _name, _target in {
    "uniform": "kmdr.coresets._sampling:UniformSampling",
    "lightweight": "kmdr.coresets._sampling:LightweightCoreset",
    "sensitivity": "kmdr.coresets._sampling:SensitivitySampling",
    "group": "kmdr.coresets._group:GroupSampling",
    "streamkm": "kmdr.coresets._streamkm:StreamKMPlusPlus",
    "ray_maker": "kmdr.coresets._ray_maker:RayMaker",
    "streamkm_tree": "kmdr.coresets._streamkm_tree:StreamKMTree",
    "sensitivity_squared": "kmdr.coresets._sampling:SensitivitySamplingSquared",
    "group_squared": "kmdr.coresets._group:GroupSamplingSquared",
    "merge_reduce": "kmdr.coresets._merge_reduce:MergeReduce",
    "bico": "kmdr.coresets._bico:BICO",
}.items():
    CORESETS.declare(_name, _target)


def available_coresets() -> list[str]:
    """The names of every usable construction, kmdr's first."""
    return list(CORESETS)


def coreset_class(name: str) -> type:
    """The class of construction ``name``; a one-line :class:`kmdr.plugins.RegistryError` for a
    name that means none."""
    return CORESETS.get(name)


def make_coreset(name: str, **params):
    """A construction by name: ``make_coreset("sensitivity", n_clusters=10, coreset_size=2000,
    random_state=0)``. Its parameters are validated when it is fitted, as in scikit-learn."""
    return coreset_class(name)(**params)


def __getattr__(name: str):
    # the classes themselves, imported when first asked for (kmdr.coresets.BaseCoreset)
    classes = {
        "BaseCoreset": "kmdr.coresets._base",
        "UniformSampling": "kmdr.coresets._sampling",
        "LightweightCoreset": "kmdr.coresets._sampling",
        "SensitivitySampling": "kmdr.coresets._sampling",
        "SensitivitySamplingSquared": "kmdr.coresets._sampling",
        "GroupSamplingSquared": "kmdr.coresets._group",
        "GroupSampling": "kmdr.coresets._group",
        "StreamKMPlusPlus": "kmdr.coresets._streamkm",
        "RayMaker": "kmdr.coresets._ray_maker",
        "StreamKMTree": "kmdr.coresets._streamkm_tree",
        "FastCoreset": "kmdr.coresets._fast_coreset",
        "WelterweightCoreset": "kmdr.coresets._fast_coreset",
        "FastStreamKM": "kmdr.coresets._fast_streamkm",
        "MergeReduce": "kmdr.coresets._merge_reduce",
        "FastCoresetCode": "kmdr.coresets._fast_coreset_code",
        "WelterweightCoresetCode": "kmdr.coresets._fast_coreset_code",
        "BICO": "kmdr.coresets._bico",
    }
    if name in classes:
        import importlib

        return getattr(importlib.import_module(classes[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
