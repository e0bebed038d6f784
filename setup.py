"""The package list, found rather than written by hand: the one thing pyproject.toml cannot say.

setuptools' ``packages.find`` names a package after its folder under one root, so it cannot give
the top-level ``conf/`` folder its package name ``kmdr.conf`` (pyproject.toml's ``package-dir``
maps that name to the folder). The packages are found here instead: every package under ``src/``
(a new paper's package included), and ``kmdr.conf`` with its config groups (folders of yaml
files, ``hydra/job_logging`` among them). Everything else is in pyproject.toml.
"""

from pathlib import Path

from setuptools import find_packages, setup

CONF = Path(__file__).resolve().parent / "conf"

setup(
    packages=[
        *find_packages("src", include=["kmdr", "kmdr.*"]),
        "kmdr.conf",
        *(
            "kmdr.conf." + ".".join(group.relative_to(CONF).parts)
            for group in sorted(CONF.rglob("*"))
            if group.is_dir() and any(group.glob("*.yaml"))
        ),
    ]
)
