"""One package per paper: what is specific to it (claims, figure styles, sections, theory checks).

The top layer: a paper reads the results, figures and report layers and registers into them.
"""
