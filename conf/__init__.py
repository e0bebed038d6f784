"""kmdr's Hydra configs, shipped as the package ``kmdr.conf`` (searched as ``pkg://kmdr.conf``).

The folder is the repository's top-level ``conf/``, mapped to this package in ``pyproject.toml``
(``package-dir``); its yaml files are package data.
"""
