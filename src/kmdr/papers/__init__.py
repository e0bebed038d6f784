"""One package per paper: what is specific to it (claims, figure styles, sections, theorems).

The top layer: a paper reads the results, figures and report layers and registers into them
through entry points (``pyproject.toml``), so nothing below imports a paper. The curve-only
papers share the report section ``curves`` (:mod:`kmdr.papers.curves`). The course-report presets
(``report_orl_projections*``) have no package: they are drawn in bzmd14's style and placed in
the ``curves`` and ``diagnostic`` sections, and no claim is made about them.
"""
