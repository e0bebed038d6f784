"""
Comparing two results folders
=============================

A cell's numbers are a function of its identity: the same sweep run into two empty folders gives
the same numbers, to the last bit. ``kmdr-compare OLD NEW`` checks two folders cell by cell (by
experiment and cell id, on every result column) and exits 0 only when every cell is identical;
it is how a change to kmdr is checked against the committed results
(``make reproduce RESULTS=/tmp/check`` then ``kmdr-compare results /tmp/check``).
"""

# %%
import subprocess
import sys
import tempfile
from pathlib import Path

import kmdr

SWEEP = (
    "dataset=orl",
    "reducer=[sign,svd]",
    "r_grid=[5,10,20]",
    "repeats=2",
    "progress=false",
    "figures=false",
)
first, second = (tempfile.mkdtemp(prefix=f"kmdr-{n}-") for n in ("first", "second"))
a = kmdr.run(*SWEEP, results_dir=first)
b = kmdr.run(*SWEEP, "n_jobs=1", results_dir=second)  # other workers, same numbers
print(len(a), "cells in each folder")

# %%
# The command compares every result column exactly, as cells.csv holds it.
compare = Path(sys.executable).with_name("kmdr-compare")
proc = subprocess.run([str(compare), first, second], capture_output=True, text=True)
print(proc.stdout.strip())
print("exit status", proc.returncode)
assert proc.returncode == 0

# %%
# The same check in pandas: the result columns of the two folders, side by side.
columns = ["cell_id", "objective", "accuracy", "nmi", "ari", "n_iter"]
both = a[columns].merge(b[columns], on="cell_id", suffixes=("_first", "_second"))
both.head()

# %%
# Every cell's F from the two folders: all on the diagonal, with no difference at all.
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(4, 4))
ax.plot(both["objective_first"], both["objective_second"], "o", alpha=0.6)
low, high = both["objective_first"].min(), both["objective_first"].max()
ax.plot([low, high], [low, high], "k--", lw=1)
ax.set_xlabel("F, first folder")
ax.set_ylabel("F, second folder")
largest = (both["objective_first"] - both["objective_second"]).abs().max()
ax.set_title(f"largest difference: {largest:g}")
fig.tight_layout()
