"""pb17's sparsified k-means: the authors' own MATLAB code under Octave against kmdr, same data.

The authors' code (SparsifiedKMeans 2.1, ``kmeans_sparsified.m`` and its ``private/`` helpers)
is run as published, under GNU Octave, on the pb17 stand-in (scikit-learn's digits 0, 3, 9:
541 x 64, k = 3), for m = 1, 6, 13, 19 entries kept per row, without preconditioning and with
the Hadamard transform, one and two passes; kmdr runs its implementation of the authors' rules
(``PreconditionedSparsification(rules="authors")``) and its own variant (``rules="kmdr"``) on the
same matrix. Each writes its mean accuracy over the trials per m; the table gives both and
Welch's p between the authors' code and kmdr's authors' rules (the draws differ: MATLAB's
generator is not numpy's, so agreement is within noise, not bit for bit).

Not part of CI: it needs Octave with its statistics package and a compiler for the mex files
(Debian: ``apt-get install octave liboctave-dev octave-statistics``) and a checkout of the
authors' repository (github.com/stephenbeckr/SparsifiedKMeans), given as ``--authors-code``.
The code is copied to a temporary folder, its four C files in ``private/`` compiled with
``mkoctfile --mex`` (onto the path, where Octave finds them), ``pkg load statistics`` loaded,
and a one-line ``verLessThan`` that reports an old MATLAB put on the path, so that their dense
distance code takes its portable route (the Statistics Toolbox's pdist2mex does not exist under
Octave).

    .venv/bin/python scripts/bench/bench_pb17_authors.py --authors-code DIR [--trials 30]

Writes ``results/bench/pb17_authors_octave.csv`` (``--out``) and prints the table of means.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from scipy.io import savemat
from sklearn.datasets import load_digits

from kmdr.metrics import clustering_accuracy
from kmdr.reducers import PreconditionedSparsification

M_GRID = (1, 6, 13, 19)
SKETCHES = {"none": "none", "hadamard": "Hadamard"}  # kmdr's name -> the authors' SketchType
MEX_SOURCES = (
    "SparseMatrixColumnNormSq.c",
    "SparseMatrixInnerProduct.c",
    "SparseMatrixMinusCluster.c",
    "hadamard.c",
)
K = 3

#: Runs kmeans_sparsified on X for every (sketch, m, trial) and prints one CSV line each: the
#: one-pass labels (IDX) and the two-pass labels (IDX_twoPass), scored by the best of the k!
#: matchings of clusters to classes.
_OCTAVE = r"""
pkg load statistics
addpath(codedir); addpath(shimdir);
load(datafile);  % X (n x p), y (n x 1, 0..k-1)
k = double(k); y = double(y(:)); P = perms(1:k);
sketches = strsplit(sketchlist, ',');
for s = 1:numel(sketches)
  for m = mgrid
    for t = 1:trials
      rand('state', t); randn('state', t);
      [idx, ~, ~, ~, ~, ~, idx2] = kmeans_sparsified(X, k, 'Sparsify', true, ...
          'SparsityLevel', m / size(X, 2), 'SketchType', sketches{s});
      acc = [0 0];
      labs = {idx(:), idx2(:)};
      for j = 1:2
        for q = 1:size(P, 1)
          acc(j) = max(acc(j), mean(P(q, labs{j})' - 1 == y));
        end
      end
      printf('%s,%d,%d,%.10f,%.10f\n', sketches{s}, m, t, acc(1), acc(2));
    end
  end
end
"""


def digits():
    data = load_digits()
    keep = np.isin(data.target, [0, 3, 9])
    y = data.target[keep]
    return data.data[keep].astype(np.float64), np.searchsorted(np.unique(y), y)


def run_octave(code: Path, X, y, trials: int) -> pd.DataFrame:
    """The authors' code under Octave: one row per (sketch, m, trial), both passes."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        work = tmp / "SparsifiedKMeans"
        shutil.copytree(code, work, ignore=shutil.ignore_patterns(".git", "*.mex*"))
        shim = tmp / "shim"
        shim.mkdir()
        for name in MEX_SOURCES:
            # compiled onto the public path: Octave's exist() does not see a mex file in
            # private/, and their code would fall back to its slow loops
            subprocess.run(["mkoctfile", "--mex", str(work / "private" / name), "-o",
                            str(shim / Path(name).with_suffix(".mex").name)],
                           cwd=tmp, check=True, capture_output=True)  # fmt: skip
        (shim / "verLessThan.m").write_text(
            "function r = verLessThan(varargin)\n  r = true;\nend\n"
        )
        savemat(tmp / "digits.mat", {"X": X, "y": y.astype(np.float64), "k": float(K)})
        script = (
            f"codedir = '{work}'; shimdir = '{shim}'; datafile = '{tmp / 'digits.mat'}';\n"
            f"trials = {trials}; mgrid = [{' '.join(map(str, M_GRID))}];\n"
            f"sketchlist = '{','.join(SKETCHES.values())}';\n" + _OCTAVE
        )
        (tmp / "run.m").write_text(script)
        command = f"warning('off', 'all'); source('{tmp / 'run.m'}');"
        out = subprocess.run(
            ["octave", "--no-gui", "--quiet", "--eval", command],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        # (Octave may exit non-zero after a complete run: "ignoring const execution_exception
        # while preparing to exit"; the rows printed are what counts)
        errors = [ln for ln in out.stderr.splitlines() if ln.startswith("error:")
                  and "preparing to exit" not in ln]  # fmt: skip
        if errors:
            sys.exit(f"octave failed: {errors[0]}")
    rows = []
    names = {v: k for k, v in SKETCHES.items()}
    for line in out.stdout.splitlines():
        parts = line.strip().split(",")
        if len(parts) == 5 and parts[0] in names:
            sketch, m, t, one, two = parts
            rows.append((names[sketch], int(m), int(t), float(one), float(two)))
    return pd.DataFrame(rows, columns=["preconditioner", "m", "trial", "one_pass", "two_pass"])


def run_kmdr(X, y, trials: int, rules: str) -> pd.DataFrame:
    """kmdr on the same matrix: the authors' defaults (one k-means++ start, at most 100
    iterations, tol 1e-6), one and two passes from the same sketch and start."""
    rows = []
    for pre in SKETCHES:
        for m in M_GRID:
            for t in range(trials):
                acc = []
                for two in (False, True):
                    red = PreconditionedSparsification(
                        m, preconditioner=pre, rules=rules, second_pass=two, random_state=t
                    )
                    C = red.fit_transform(X)
                    run = red.cluster(C, K, n_init=1, max_iter=100, tol=1e-6, random_state=t)
                    acc.append(clustering_accuracy(y, run.labels))
                rows.append((pre, m, t, *acc))
    return pd.DataFrame(rows, columns=["preconditioner", "m", "trial", "one_pass", "two_pass"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors-code", type=Path, required=True,
                        help="a checkout of github.com/stephenbeckr/SparsifiedKMeans")  # fmt: skip
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--out", type=Path,
                        default=Path("results") / "bench" / "pb17_authors_octave.csv")  # fmt: skip
    args = parser.parse_args(argv)
    if not (args.authors_code / "kmeans_sparsified.m").is_file():
        parser.error(f"--authors-code {args.authors_code} holds no kmeans_sparsified.m")
    if shutil.which("octave") is None or shutil.which("mkoctfile") is None:
        parser.error("needs octave and mkoctfile (apt-get install octave liboctave-dev)")
    X, y = digits()
    runs = {
        "authors' code (Octave)": run_octave(args.authors_code, X, y, args.trials),
        "kmdr, authors' rules": run_kmdr(X, y, args.trials, "authors"),
        "kmdr's variant": run_kmdr(X, y, args.trials, "kmdr"),
    }
    rows = []
    reference = runs["authors' code (Octave)"]
    for name, frame in runs.items():
        for (pre, m), part in frame.groupby(["preconditioner", "m"]):
            ref = reference[(reference.preconditioner == pre) & (reference.m == m)]
            for passes in ("one_pass", "two_pass"):
                a, b = part[passes], ref[passes]
                if a.nunique() == 1 and b.nunique() == 1:  # no spread: equal or not, no t
                    p = 1.0 if np.isclose(a.iloc[0], b.iloc[0], atol=1e-9) else np.nan
                else:
                    with warnings.catch_warnings():  # near-constant sides lose precision
                        warnings.simplefilter("ignore", RuntimeWarning)
                        p = stats.ttest_ind(a, b, equal_var=False).pvalue
                rows.append({
                    "implementation": name, "preconditioner": pre, "m": m,
                    "passes": 1 if passes == "one_pass" else 2, "trials": len(part),
                    "accuracy_mean": part[passes].mean(), "accuracy_sd": part[passes].std(),
                    "welch_p_vs_authors_code": p if name != "authors' code (Octave)" else np.nan,
                })  # fmt: skip
    table = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False, float_format="%.6g")
    wide = table.pivot_table(
        index=["preconditioner", "passes", "implementation"], columns="m", values="accuracy_mean"
    )
    print(wide.round(3).to_string())
    print(f"[bench] {len(table)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
