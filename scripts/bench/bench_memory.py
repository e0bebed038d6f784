"""Peak memory of single lst17 sparse_text cells, one fresh process per cell (a report).

For every reducer of ``conf/experiment/lst17_sparse_text.yaml`` at every r of its grid (once for
the k-means baseline ``none``, which does not depend on r), a fresh Python process loads the data
(saved once by this script, so that generating the synthetic matrix does not count), then runs
repetition 0 of that cell of the preset with the runner's own code,
``kmdr.engine.work.compute_cell``, given an ``ObjectiveEvaluator`` of X as a worker is: the
reduction, k-means with the experiment's settings (and the runner's choice of whether k-means may
work on C in place), then F on X and on C (``objective_reduced``), P, NMI and ARI. It reports the
process's peak resident set size (``resource.getrusage``, ``ru_maxrss``: the whole process,
imports included) before and after the cell; the target is a peak under 400 MiB.

``--src DIR`` runs the cells against another kmdr source tree (e.g. ``--src /work/main/src``
for the code before a change), so that before/after are measured on the same machine, in one
run (the trees are interleaved per cell); with two or more trees the last column says whether
the cell's P, F, objective_reduced, NMI, ARI and n_iter are the same, to the last bit, as with
the first tree. Prints a Markdown table; exit code 0 whatever the verdicts.

    .venv/bin/python scripts/bench/bench_memory.py [--src DIR ...] [--r R ...] [--reducer NAME ...]
"""

# The kmdr internals this bench needs, beyond the public API (kmdr.run, Session,
# kmdr.read_results), because it times or builds one step alone: kmdr.app.compose,
# kmdr.engine.work, kmdr.results.cells.

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _timing import markdown, maxrss_mib  # scripts/bench/_timing.py (run as python scripts/...)

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = "lst17_sparse_text"
TARGET_MIB = 400
#: The cell's numbers compared across trees.
NUMBERS = ("accuracy", "objective", "objective_reduced", "nmi", "ari", "n_iter")


def child(data: Path, reducer: str, r: int) -> dict:
    """Run one cell in this (fresh) process, as a worker of the runner does; return its peak RSS
    before and after, in MiB, and its numbers."""
    import time

    import numpy as np
    import scipy.sparse as sp

    from kmdr.app.compose import compose_job
    from kmdr.engine.work import compute_cell
    from kmdr.metrics import ObjectiveEvaluator
    from kmdr.results.cells import plan_cells

    data = Path(data)
    X = sp.load_npz(data / "X.npz").tocsr()
    y = np.load(data / "y.npy")
    k = int(np.unique(y).size)
    experiment = compose_job(
        [f"experiment={EXPERIMENT}", f"r_grid=[{r}]", f"reducer={reducer}"]
    ).experiment
    cell = next(c for c in plan_cells(experiment, X, k, data_fingerprint="") if c.repetition == 0)
    objective = ObjectiveEvaluator(X)  # made once per run and handed to every cell, as the runner
    before = maxrss_mib()
    start = time.perf_counter()
    row = compute_cell(cell, X, y, k, objective=objective)
    return {
        "before_mib": before,
        "peak_mib": maxrss_mib(),
        "total_seconds": time.perf_counter() - start,
        **{key: row[key] for key in (*NUMBERS, "reduce_seconds")},
    }


def save_data(directory: Path) -> None:
    """Generate the sparse_text data set and save X (CSR) and y in ``directory``."""
    import numpy as np
    import scipy.sparse as sp

    from kmdr.datasets import load_dataset

    ds = load_dataset("sparse_text", seed=0)
    sp.save_npz(directory / "X.npz", sp.csr_matrix(ds.X))
    np.save(directory / "y.npy", np.asarray(ds.y))
    print(f"Data: sparse_text(seed=0), {ds.X.shape[0]} x {ds.X.shape[1]}, nnz = {ds.X.nnz}.")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", action="append", help="kmdr source tree(s) to measure")
    parser.add_argument("--r", type=int, nargs="+", help="r of the cells (default: all of r_grid)")
    parser.add_argument("--reducer", nargs="+", help="reducer names (default: all of the preset)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(**json.loads(args.child))))
        return 0
    if args.save:
        save_data(Path(args.save))
        return 0

    from dataclasses import asdict

    from kmdr.app.compose import compose_job
    from kmdr.reducers import is_baseline_reducer

    spec = compose_job([f"experiment={EXPERIMENT}"])
    grid = args.r or list(spec.experiment.r_grid)
    trees = args.src or [str(ROOT / "src")]
    # the baseline does not depend on r: measured once
    cells = [
        (red.name, r)
        for red in spec.experiment.reducers
        if not args.reducer or red.name in args.reducer
        for r in (grid[-1:] if is_baseline_reducer(red.name) else grid)
    ]
    print("## Peak memory of one lst17 sparse_text cell (fresh process each)\n")
    print(f"Command: `{' '.join([Path(sys.executable).name, *sys.argv])}`\n")
    print(
        f"k-means {asdict(spec.experiment.kmeans)}; r = {', '.join(map(str, grid))}; peak RSS by "
        f"ru_maxrss (whole process); target: peak RSS < {TARGET_MIB} MiB.\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        # Linux keeps ru_maxrss across fork and exec: the data are generated in a child, so that
        # this parent stays small and every cell's process starts from a small peak.
        save = subprocess.run(
            [sys.executable, __file__, "--save", tmp], capture_output=True, text=True, check=True
        )
        print(save.stdout.strip() + "\n")
        # the table's rows, printed when every cell has run (each child's process holds one)
        header = ["source", "reducer", "r", "peak RSS before the cell", "peak RSS", "verdict"]
        header += ["reduce s", "cell s", "n_iter", "F", "P", "same numbers"]
        body = []
        for red, r in cells:
            first = None
            for tree in trees:
                job = {"data": tmp, "reducer": red, "r": r}
                env = {**os.environ, "PYTHONPATH": tree, "OMP_NUM_THREADS": "1"}
                proc = subprocess.run(
                    [sys.executable, __file__, "--child", json.dumps(job, default=str)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if proc.returncode:
                    tail = proc.stderr.strip().splitlines()[-1:] or ["?"]
                    body.append([tree, red, r, f"failed: {tail[0]}", *[""] * 8])
                    continue
                out = json.loads(proc.stdout.strip().splitlines()[-1])
                numbers = {key: out[key] for key in NUMBERS}
                if first is None:
                    first, same = numbers, "(reference)" if len(trees) > 1 else ""
                else:
                    differ = [key for key in NUMBERS if numbers[key] != first[key]]
                    same = "yes" if not differ else "NO: " + ", ".join(differ)
                ok = "PASS" if out["peak_mib"] < TARGET_MIB else "FAIL"
                mib = [f"{out['before_mib']:.0f} MiB", f"{out['peak_mib']:.0f} MiB"]
                seconds = [f"{out['reduce_seconds']:.2f}", f"{out['total_seconds']:.2f}"]
                scores = [out["n_iter"], f"{out['objective']:.6g}", f"{out['accuracy']:.4g}"]
                body.append([tree, red, r, *mib, ok, *seconds, *scores, same])
        print(markdown(header, body, "llrrrlrrrrrl"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
