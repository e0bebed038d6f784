"""
Reading the committed results
=============================

``kmdr.read_results`` reads a results folder (every experiment in it) or one experiment folder,
with the columns of ``cells.csv`` and ``excluded``, which says why a row is not current. Here:
the committed bzmd14 ORL experiment, its accuracy P against r for every method.
"""

# %%
from pathlib import Path

import matplotlib.pyplot as plt

import kmdr

# The results folder of this checkout (the documentation is built from a clone).
results = Path(kmdr.__file__).resolve().parents[2] / "results"
orl = kmdr.read_results(results / "bzmd14_orl")
current = orl[orl["excluded"].isna()]
print(f"{len(current)} current cells of {current['method'].nunique()} methods")

# %%
# Mean over the repetitions, per method and r; kMeans (all features) is the horizontal line.
fig, ax = plt.subplots(figsize=(6, 3.5))
means = current.groupby(["method", "r"])["accuracy"].mean().reset_index()
for method, points in means.groupby("method"):
    if points["r"].nunique() == 1:
        ax.axhline(points["accuracy"].iloc[0], color="k", ls="--", label=method)
    else:
        ax.plot(points["r"], points["accuracy"], marker=".", label=method)
ax.set_xlabel("r")
ax.set_ylabel("accuracy P")
ax.set_title("bzmd14 ORL (committed cells)")
ax.legend(fontsize=7, ncol=2)
fig.tight_layout()
