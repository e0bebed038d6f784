"""``kmdr-data`` (``make data``): fetch every dataset that can be obtained and print a table.

Exit status 0 even when some datasets are missing (they are listed with the reason); 1 when a
file is corrupted (sha256 mismatch) or a loader fails on a file it obtained.
"""

from __future__ import annotations

import argparse
import logging
import sys

import pooch

from . import DATASETS, DataIntegrityError, DatasetStatus, dataset_status
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
    parser = argparse.ArgumentParser(prog="kmdr-data", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(DATASETS), help="datasets (default: all)")
    parser.add_argument("--data-dir", default=None, help="cache folder (default: KMDR_DATA_DIR)")
    parser.add_argument("--mirror", default=None, help=f"mirror folder (default: {MIRROR_ENV})")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in DATASETS]
    if unknown:
        parser.error(f"unknown datasets {unknown}; valid names: {', '.join(DATASETS)}")
    pooch.get_logger().setLevel(logging.WARNING)

    mirror = resolve_mirror(args.mirror)
    print(f"cache:  {resolve_data_dir(args.data_dir)}")
    print(f"mirror: {mirror if mirror else f'none ({MIRROR_ENV} not set)'}")
    rows, notes, errors = [], [], []
    for name in args.names:
        try:
            st = dataset_status(name, data_dir=args.data_dir, mirror=args.mirror)
        except (DataIntegrityError, ValueError, OSError) as err:
            errors.append(f"{name}: {err}")
            rows.append([name, "ERROR", "-", "-", "-", "-", "-"])
            continue
        rows.append(_row(st))
        if not st.present:
            notes.append(st.reason)

    header = ["name", "status", "n", "d", "k", "density", "sha256 (main file)"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    if "orl_raw" in args.names:
        print("(orl_raw: sha256 of its manifest orl_faces.SHA256SUMS, over the 400 PGMs + README)")
    for note in notes:
        print(note)
    if notes:
        print(f"{len(notes)} dataset(s) missing; the experiments that need them are skipped.")
    for err in errors:
        print(f"ERROR {err}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
