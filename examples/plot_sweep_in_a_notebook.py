"""
A sweep in a notebook
=====================

``kmdr.run`` runs one job of the ``kmdr`` command from Python: the same configs, presets, checks
and store, with the cells returned as a pandas DataFrame. Here: random sign projections of the
ORL faces (400 images of 40 people, 4096 pixels), four dimensions r, three repetitions, into a
temporary results folder.
"""

# %%
import tempfile

import matplotlib.pyplot as plt

import kmdr

results = tempfile.mkdtemp(prefix="kmdr-sweep-")
cells = kmdr.run(
    "dataset=orl",
    "reducer=sign",
    "r_grid=[5,10,20,40]",
    "repeats=3",
    "progress=false",
    "figures=false",
    results_dir=results,
)
cells[["method", "r", "repetition", "accuracy", "objective"]].head()

# %%
# Running the same call again computes nothing: every cell is found in the store by its
# identity (dataset, data fingerprint, reducer and its parameters, r, repetition, seed, k-means
# settings, code tag) and reused.
again = kmdr.run(
    "dataset=orl",
    "reducer=sign",
    "r_grid=[5,10,20,40]",
    "repeats=3",
    "progress=false",
    "figures=false",
    results_dir=results,
)
assert again["cell_id"].tolist() == cells["cell_id"].tolist()

# %%
# The normalized objective F on the original data, per repetition (thin lines) and averaged
# over the repetitions (the unit of replication is the repetition: its points share a seed).
fig, ax = plt.subplots(figsize=(5, 3.2))
for _rep, points in cells.groupby("repetition"):
    ax.plot(points["r"], points["objective"], color="0.75", lw=1)
mean = cells.groupby("r")["objective"].mean()
ax.plot(mean.index, mean.values, "o-", color="C0", label="RP, mean of 3 repetitions")
ax.set_xlabel("r (dimensions kept)")
ax.set_ylabel("F on the original data")
ax.legend()
fig.tight_layout()
