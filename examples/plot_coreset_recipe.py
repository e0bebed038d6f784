"""
A coreset of your own array, with a reducer in front
====================================================

Would a coreset cluster a large array faster than k-means on all its rows, and how much worse?
The recipe of the Python API guide, as it is written there: reduce the columns (a Gaussian
projection to 20), build a coreset of the reduced rows (sensitivity sampling after
Schwiegelshohn and Sheikh-Omar, ESA 2022: 2,000 sampled rows for k = 10, and the rough
solution's centers that keep some weight), carry it back to the array's own columns with
``composition_ @ X``, solve it with scikit-learn's ``KMeans`` and ``sample_weight``, label every
row, and score the centers on all rows against k-means on all rows. Every number it prints is
its own run's; the site's build runs it, and the suite runs the guide's lines as written.
"""

# %%
# The recipe (``X`` stands for your array: here 200,000 x 50 points about 10 centers).
# coreset-recipe: start
import time

from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from threadpoolctl import threadpool_limits

from kmdr.coresets import make_coreset
from kmdr.reducers import make_reducer

X, _ = make_blobs(n_samples=200_000, n_features=50, centers=10, cluster_std=4.0, random_state=0)
k = 10

start = time.perf_counter()
C = make_reducer("gaussian", 20, random_state=0).fit_transform(X)  # the reducer in front
coreset = make_coreset("sensitivity", n_clusters=k, coreset_size=2000, random_state=0).fit(C)
points = coreset.composition_ @ X  # the coreset's points in X's own columns
with threadpool_limits(1):  # one thread is faster for a solve this small
    solved = KMeans(n_clusters=k, n_init=5, random_state=0)
    solved.fit(points, sample_weight=coreset.weights_)
labels = solved.predict(X)  # every row labelled
coreset_seconds = time.perf_counter() - start
coreset_cost = -solved.score(X)  # the k-means cost of its centers on all rows

start = time.perf_counter()
full = KMeans(n_clusters=k, n_init=5, random_state=0).fit(X)
full_seconds = time.perf_counter() - start

print(f"coreset: {len(coreset.weights_)} points, {coreset_seconds:.2f} s, cost {coreset_cost:.6g}")
print(f"all {len(X)} rows: {full_seconds:.2f} s, cost {full.inertia_:.6g}")
print(f"the coreset's centers cost {100 * (coreset_cost / full.inertia_ - 1):+.2f}% more")
# coreset-recipe: end

# %%
# ``coreset.points_`` are the coreset's points in the space it was built in (here the 20
# projected columns, ``points_ == composition_ @ C``), ``weights_`` their weights (they sum to
# about the number of rows), and ``composition_`` (a sparse n_points x n_samples matrix) says
# which of the array's rows make each point, which is what carries it back to all 50 columns.
# The time of the coreset's side counts the reduction, the construction, the solve and the
# labelling of every row; a k-means of the coreset alone takes a fraction of it.
import numpy as np  # noqa: E402

assert np.allclose(coreset.points_, coreset.composition_ @ C)
assert labels.shape == (len(X),) and points.shape == (len(coreset.weights_), X.shape[1])
print(f"weights sum to {coreset.weights_.sum():.0f} for {len(X)} rows")

# %%
# The two solutions side by side: the time each took, and the cost of its centers on all rows
# (the numbers printed above).
import matplotlib.pyplot as plt  # noqa: E402

fig, (ax_time, ax_cost) = plt.subplots(1, 2, figsize=(7, 2.8))
names = ["coreset\n(reduce, build, solve, label)", "k-means\non all rows"]
ax_time.bar(names, [coreset_seconds, full_seconds], color=["tab:blue", "0.5"])
ax_time.set_ylabel("seconds")
ax_cost.bar(names, [coreset_cost, full.inertia_], color=["tab:blue", "0.5"])
ax_cost.set_ylabel("cost on all rows")
ax_cost.set_ylim(0.9 * full.inertia_, 1.02 * max(coreset_cost, full.inertia_))
fig.tight_layout()
plt.show()
