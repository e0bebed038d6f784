"""
A new reducer as a plug-in
==========================

A reducer is a scikit-learn transformer (a subclass of :class:`kmdr.reducers.BaseReducer`) and
one declaration (a :class:`kmdr.reducers.ReducerEntry`), found by kmdr through the
``kmdr.reducers`` entry point of the package that holds it. Installed with pip, your package's
metadata says where the declaration is; here the same metadata is written by hand into a
temporary folder on ``sys.path``, which is what an installed package amounts to.
"""

# %%
# The module of your package: the reducer and its declaration.
import sys
import tempfile
import textwrap
from pathlib import Path

MODULE = textwrap.dedent(
    '''
    """Keep the r features of largest variance: a reducer for kmdr, declared once."""

    import numpy as np

    from kmdr.reducers import BaseReducer, LineStyle, ReducerEntry


    class TopVariance(BaseReducer):
        """Keep the r features of largest variance."""

        def __init__(self, n_components=2):
            self.n_components = n_components

        def _fit(self, X, shared_value):
            X = X.toarray() if hasattr(X, "toarray") else X
            self.features_ = np.argsort(-X.var(axis=0), kind="stable")[: self.n_components_]

        def _transform(self, X):
            return X[:, self.features_]


    TOP_VARIANCE = ReducerEntry(
        TopVariance,
        "TopVar",
        paper="a user's baseline",
        style=LineStyle("#123456", "d"),
        time_includes="the variance of every feature and a sort of them",
    )
    '''
)

site = Path(tempfile.mkdtemp(prefix="kmdr-plugin-"))
(site / "my_reducers").mkdir()
_ = (site / "my_reducers" / "__init__.py").write_text(MODULE)

# %%
# What ``pip install`` writes for a package whose pyproject.toml says
# ``[project.entry-points."kmdr.reducers"] top_variance = "my_reducers:TOP_VARIANCE"``.
dist = site / "my_reducers-0.1.dist-info"
dist.mkdir()
_ = (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-reducers\nVersion: 0.1\n")
_ = (dist / "entry_points.txt").write_text(
    "[kmdr.reducers]\ntop_variance = my_reducers:TOP_VARIANCE\n"
)

# %%
# With the folder on ``sys.path`` the new reducer is a scikit-learn transformer like kmdr's
# own, and a name every config can use beside kmdr's reducers: a sweep of both on the ORL faces.
sys.path.insert(0, str(site))

from sklearn.datasets import make_blobs  # noqa: E402

import kmdr  # noqa: E402
from kmdr.reducers import available_reducers, make_reducer, reload_plugins  # noqa: E402

reload_plugins()  # this process had read the entry points before the folder was added
assert "top_variance" in available_reducers()

X, y = make_blobs(n_samples=300, n_features=20, centers=4, random_state=0)
print(make_reducer("top_variance", 5).fit_transform(X).shape)

results = tempfile.mkdtemp(prefix="kmdr-plugin-results-")
cells = kmdr.run(
    "dataset=orl",
    "~reducer",  # the run's reducers are these two entries, keyed by id
    "+reducers={top_variance: {name: top_variance}, sign: {name: sign}}",
    "r_grid=[5,10,20,40]",
    "repeats=2",
    "n_jobs=1",
    "progress=false",
    results_dir=results,
)
cells.groupby(["method", "r"])["accuracy"].mean().unstack()

# %%
# The run drew its figure with the declared style and label.
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

figure = next(Path(results).glob("custom/figures/*.png"))
image = mpimg.imread(figure)
height, width = image.shape[:2]
fig, ax = plt.subplots(figsize=(12, 12 * height / width))  # the figure at a readable size
ax.imshow(image)
ax.set_axis_off()
