"""One package per paper: everything specific to it (claims, figure styles, sections, theorems,
experiment kinds, its deviations and notes), declared in ONE :class:`kmdr.plugins.Paper`, the
``PAPER`` of its package, registered as an entry point of the group ``kmdr.papers``.

The top layer: a paper reads the results, figures and report layers and registers into them
through its declaration, so nothing below imports a paper. :mod:`kmdr.papers.shared` declares
what no single paper owns: the report section ``curves`` that the curve-only papers share
(:mod:`kmdr.papers.curves`), the generic sections and the setup common to every reproduction.
The course report's presets (``report_orl_projections*``) are declared by
:mod:`kmdr.papers.course_report`.
"""
