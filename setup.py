"""The package list, found rather than written by hand: the one thing pyproject.toml cannot say.

setuptools' ``packages.find`` names a package after its folder under one root, so it cannot give
the top-level ``conf/`` folder its package name ``kmdr.conf`` (pyproject.toml's ``package-dir``
maps that name to the folder). The packages are found here instead: every package under ``src/``
(a new paper's package included) and ``kmdr.conf``. The config groups inside it (folders of yaml
files, ``hydra/job_logging`` among them) are its package data, declared in pyproject.toml, not
packages. Everything else is in pyproject.toml.
"""

import warnings

from setuptools import find_packages, setup
from setuptools.warnings import InformationOnly

# An editable install of a package mapped from two folders (src/ and conf/) imports through a
# finder, and setuptools then says that a folder named like the package in the working directory
# could take precedence: the checkout has none (its packages are under src/), so the notice says
# nothing to act on, and it is the only thing an install would print.
warnings.filterwarnings("ignore", "Editable installation", InformationOnly)

setup(packages=[*find_packages("src", include=["kmdr", "kmdr.*"]), "kmdr.conf"])
