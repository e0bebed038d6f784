"""
The Python API in five lines
============================

The README's example, as it is written there: one job of the ``kmdr`` command run from Python
(``kmdr.run``, the command line's overrides as strings), then every cell of the results folder
read back as one DataFrame (``kmdr.read_results``). The site's build runs it, so the README's
lines are known to work.
"""

# %%
import os
import tempfile

import kmdr

# "my_results" lands in a temporary folder (the gallery runs each block in examples/)
os.chdir(tempfile.mkdtemp(prefix="kmdr-api-"))
cells = kmdr.run(["dataset=synth", "reducer=sign", "r_grid=[5,10]", "repeats=2"])
everything = kmdr.read_results("my_results")  # your own runs' folder (git ignores it)
print(everything.groupby(["experiment", "method", "r"])["accuracy"].mean())

# %%
# ``cells`` holds the run's cells (2 values of r, 2 repetitions), as ``cells.csv`` holds them;
# ``read_results`` reads every experiment folder under ``my_results`` (here one, ``custom``),
# with ``excluded`` missing for the rows that figures and the report use.
assert len(cells) == 4 and sorted(everything["experiment"].unique()) == ["custom"]
assert sorted(everything["cell_id"]) == sorted(cells["cell_id"])
assert everything["excluded"].isna().all()
cells[["method", "r", "repetition", "accuracy", "objective"]]

# %%
# What the run measured, per repetition (the unit of replication): accuracy P and the normalized
# objective F on the original data against r.
import matplotlib.pyplot as plt  # noqa: E402

fig, axes = plt.subplots(1, 2, figsize=(7, 2.8))
for column, ax in zip(["accuracy", "objective"], axes, strict=True):
    for rep, points in cells.groupby("repetition"):
        ax.plot(points["r"], points[column], "o-", label=f"repetition {rep}")
    ax.set_xlabel("r")
    ax.set_ylabel(column)
axes[0].legend()
fig.tight_layout()
