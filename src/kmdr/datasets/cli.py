"""``kmdr-data`` (``make data``): fetch the datasets asked for (default: all) and print a table.

Exit status 0 when every dataset asked for is present; 1, after the table and one line per
problem, when one is missing (not cached, not in the mirror, download failed) or cannot be used
(sha256 mismatch, a file its loader cannot read, a plug-in's invalid dataset: every loader's
failure is a :class:`~kmdr.datasets.DatasetError`). ``--allow-missing`` keeps 0 for
missing data (``make reproduce`` skips the experiments that need it) but not for corrupted data.
"""

from __future__ import annotations

import logging
import sys

import pooch
from tabulate import tabulate

from kmdr._errors import CommandParser

from . import (
    DatasetError,
    DatasetStatus,
    available_datasets,
    dataset_info,
    dataset_status,
    set_download_progress,
)
from ._registry import MIRROR_ENV, resolve_data_dir, resolve_mirror


def _row(st: DatasetStatus) -> list[str]:
    def num(v):
        return "-" if v is None else str(v)

    density = "-" if st.density is None else f"{st.density:.4%}"
    status = "present" if st.present else "MISSING"
    if st.present and st.reason != "present":
        status = st.reason
    return [
        st.name,
        status,
        num(st.n_samples),
        num(st.n_features),
        num(st.n_clusters),
        density,
        st.sha256 or "-",
    ]


def main(argv: list[str] | None = None) -> int:
    names = available_datasets()
    parser = CommandParser(prog="kmdr-data", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=[], help="datasets (default: all)")
    parser.add_argument("--data-dir", default=None, help="cache folder (default: KMDR_DATA_DIR)")
    parser.add_argument("--mirror", default=None, help=f"mirror folder (default: {MIRROR_ENV})")
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="exit 0 when datasets are only missing (still 1 when one is corrupted)",
    )
    bar = parser.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show download progress bars (default: when stderr is a terminal)",
    )
    bar.add_argument("--no-progress", dest="progress", action="store_false")
    args = parser.parse_args(argv)
    asked = args.names or list(names)
    unknown = [n for n in asked if n not in names]
    if unknown:
        parser.error(f"unknown datasets {unknown}; valid names: {', '.join(names)}")
    pooch.get_logger().setLevel(logging.WARNING)
    set_download_progress(args.progress)

    mirror = resolve_mirror(args.mirror)
    print(f"cache:  {resolve_data_dir(args.data_dir)}")
    print(f"mirror: {mirror if mirror else f'none ({MIRROR_ENV} not set)'}")
    rows, notes, missing, errors = [], [], [], []
    try:
        for name in asked:
            try:
                st = dataset_status(name, data_dir=args.data_dir, mirror=args.mirror)
            except DatasetError as err:  # one line naming the dataset, the problem, the fix
                errors.append(" ".join(str(err).split()))
                rows.append([name, "ERROR", "-", "-", "-", "-", "-"])
                continue
            except Exception as err:  # not a loader's failure (e.g. reading the cache to hash)
                errors.append(f"{name}: {type(err).__name__}: {' '.join(str(err).split())}")
                rows.append([name, "ERROR", "-", "-", "-", "-", "-"])
                continue
            rows.append(_row(st))
            if not st.present:
                missing.append(st.reason.splitlines()[0])
            elif dataset_info(name).digest is not None:
                n_files = len(dataset_info(name).files)
                notes.append(f"({name}: sha256 of a manifest over its {n_files} files)")
    finally:
        set_download_progress(None)

    header = ["name", "status", "n", "d", "k", "density", "sha256 (main file)"]
    table = tabulate(rows, headers=header, tablefmt="simple", disable_numparse=True)
    for line in table.splitlines():
        print(line.rstrip())
    for note in notes:
        print(note)
    for reason in missing:
        print(f"MISSING {reason}", file=sys.stderr)
    for err in errors:
        print(f"ERROR {err}", file=sys.stderr)
    if missing:
        then = "exit 0 as asked" if args.allow_missing else "exit 1 (--allow-missing: exit 0)"
        print(
            f"{len(missing)} dataset(s) missing (the experiments that need them are skipped); "
            f"{then}",
            file=sys.stderr,
        )
    if errors or (missing and not args.allow_missing):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
