"""Run the running guide's examples on a user's file (the wine data as a CSV, then as an
unlabeled .npy) in a temporary folder and write each run's wall time, from its run record, to
docs/guide/measured.csv, which tests/test_guide_numbers.py holds the guide's numbers to.

    python scripts/measure_guide.py
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "guide" / "measured.csv"
REDUCERS = "reducer=[sign,svd,leverage,gaussian]"
EXAMPLES = {
    "wine": ["dataset.params.path=wine.csv", "dataset.params.label=cultivar"],
    "wine_unlabeled": ["dataset.params.path=wine_unlabeled.npy", "dataset.params.n_clusters=3"],
}


def main() -> int:
    import numpy as np
    from sklearn.datasets import load_wine

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        X, y = load_wine(return_X_y=True, as_frame=True)
        X.assign(cultivar=y).to_csv(Path(tmp) / "wine.csv", index=False)
        np.save(Path(tmp) / "wine_unlabeled.npy", X.to_numpy())
        for name, params in EXAMPLES.items():
            kmdr = Path(sys.executable).with_name("kmdr")
            args = [str(kmdr), f"name={name}", "dataset=file", *params, REDUCERS, "r_grid=[2,4,6]"]
            subprocess.run(args, cwd=tmp, check=True)
            record = json.loads(next((Path(tmp) / "my_results" / name / "runs").glob("*.json"))
                                .read_text(encoding="utf-8"))  # fmt: skip
            rows.append({"example": name, "wall_seconds": f"{record['wall_seconds']:.1f}",
                         "cpu_count": record["cpu_count"], "n_jobs": record["n_jobs"],
                         "finished_at": record["finished_at"],
                         "load_1min": f"{os.getloadavg()[0]:.1f}"})  # fmt: skip
    with OUT.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
