"""How a coreset is measured: the solutions tried on it and the distortion of each, as
Schwiegelshohn and Sheikh-Omar (ESA 2022) measure it in their code
(sheikhomar/eval-k-means-coresets, ``xrun/``).

A coreset (``points``, ``weights``) is good when every set of k centers costs about the same on
it as on the data A. No one can try every set, so the authors try a few families of solutions,
each :data:`CANDIDATES` times, and report, per family, the largest distortion
``max(real / coreset, coreset / real)`` of its candidates (:func:`distortion`). The families are
named in one registry, :data:`SOLUTION_FAMILIES` (kmdr's own below; a paper adds its own, as
ss22 adds its Benchmark's solutions, through its :class:`kmdr.plugins.Paper`'s
``solution_families``); each is a :class:`SolutionFamily`:

- ``kmeans++``: a weighted k-means++ seeding on the coreset with no Lloyd step (their ``kmeans``
  tool run with 0 iterations), a new seeding per candidate (``calc_costs.py``, the ``KM``
  column of their tables, ``distortion`` in their ``results-raw.csv``). Every measured cell
  draws these (:func:`seedings`): the others may read them;
- ``convex``: k random points of the convex hull of a k-means++ seeding, each a random convex
  combination of 2 of its centers drawn with replacement (``generate_random_points_within_
  convex_hull``; "Random CH", their ``distortion_synthetic2``). Their script draws from the
  ``centers.txt`` its k-means++ loop left behind, the seeding of its largest distortion (the
  loop keeps the worst candidate's files): kmdr draws the 5 candidates from the worst of the
  cell's k-means++ seedings;
- ``meb``: k random points about the coreset's minimum enclosing ball (Bădoiu and Clarkson's
  100 steps from a random point, per candidate), each ``length * u / ||u||`` for
  ``u ~ N(center, I)`` and ``length ~ U(1e-5, radius)``, as their
  ``generate_arbitrary_point_within_minimum_enclosing_ball`` writes it ("Random MEB", their
  ``distortion_synthetic``): the points lie within ``radius`` of the origin, not of the center.

The randomness is NumPy's, from one seed per cell (theirs draws from NumPy's global state).
"""

from __future__ import annotations

import numpy as np

from kmdr.plugins import Registry

# scipy and scikit-learn are imported where they compute: a paper that declares a family (ss22's
# Benchmark) is read by every command, which must not load them.

__all__ = [
    "CANDIDATES",
    "SOLUTION_FAMILIES",
    "SolutionFamily",
    "distortion",
    "measure",
    "seedings",
    "solution_family",
]

#: The candidates of each family, the authors' five.
CANDIDATES = 5
#: Bădoiu and Clarkson's steps toward the farthest point, the authors' 100.
MEB_STEPS = 100


def distortion(real: float, coreset: float) -> float:
    """``max(real / coreset, coreset / real)``; NaN when either cost is not positive."""
    return max(real / coreset, coreset / real) if real > 0 and coreset > 0 else np.nan


def measure(A, points, weights, centers) -> dict:
    """The solution ``centers`` on the data ``A`` and on the weighted coreset ``points``: the
    partition of A, both costs and the distortion."""
    from sklearn.metrics import pairwise_distances_argmin_min

    labels, dist = pairwise_distances_argmin_min(A, centers)
    real = float(np.sum(dist**2))
    _, core_dist = pairwise_distances_argmin_min(points, centers)
    coreset = float(weights @ core_dist**2)
    return {
        "labels": labels,
        "real_cost": real,
        "coreset_cost": coreset,
        "distortion": distortion(real, coreset),
    }


def kmeanspp(points, weights, k: int, rng) -> np.ndarray:
    """One weighted k-means++ seeding of the coreset, no Lloyd step (one trial per center, as
    the authors' tool draws)."""
    from sklearn.cluster import kmeans_plusplus

    return kmeans_plusplus(points, k, sample_weight=weights, random_state=rng,
                           n_local_trials=1)[0]  # fmt: skip


def convex(centers: np.ndarray, k: int, rng) -> np.ndarray:
    """k random convex combinations of 2 of ``centers``, drawn with replacement."""
    out = np.empty((k, centers.shape[1]))
    for i in range(k):
        mix = rng.rand(2)
        out[i] = (mix / mix.sum()) @ centers[rng.choice(centers.shape[0], 2)]
    return out


def _dense_row(points, i: int) -> np.ndarray:
    import scipy.sparse as sp

    row = points[i]
    return row.toarray().ravel() if sp.issparse(row) else np.array(row, dtype=float)


def meb(points, k: int, rng) -> np.ndarray:
    """k random points about the minimum enclosing ball of ``points`` (dense or sparse), as the
    authors draw them."""
    from sklearn.utils.extmath import row_norms, safe_sparse_dot

    norms = row_norms(points, squared=True)
    center = _dense_row(points, rng.choice(points.shape[0]))
    explored = []
    for step in range(1, MEB_STEPS + 1):
        # the squared distances to the center, without a dense copy of sparse points
        farthest = int(np.argmax(norms - 2 * safe_sparse_dot(points, center)))
        explored.append(farthest)
        center += (_dense_row(points, farthest) - center) / (step + 1)
    seen = sorted(set(explored))
    far = norms[seen] - 2 * safe_sparse_dot(points[seen], center) + center @ center
    radius = float(np.sqrt(max(far.max(), 0.0)))
    out = np.empty((k, points.shape[1]))
    for i in range(k):
        u = center + rng.standard_normal(points.shape[1])
        out[i] = rng.uniform(1e-5, radius) * u / np.linalg.norm(u)
    return out


def seedings(A, points, weights, k: int, rng) -> list[dict]:
    """The :data:`CANDIDATES` weighted k-means++ seedings of the coreset, each measured on
    ``A`` (:func:`measure`) with its ``centers``: what every measured cell draws first."""
    out = []
    for _ in range(CANDIDATES):
        centers = kmeanspp(points, weights, k, rng)
        out.append({**measure(A, points, weights, centers), "centers": centers})
    return out


class SolutionFamily:
    """A family of candidate solutions tried on a coreset (see the module docstring).

    A family draws its candidates' centers (:meth:`candidates`) and each is measured on A; one
    that needs the data itself (a paper's instance with solutions of its own) overrides
    :meth:`prepare` (once per data, for every coreset of it) and :meth:`measure`, and
    :meth:`check` refuses data of a shape it cannot measure (``ValueError``, one line).
    """

    def check(self, n_samples: int, n_features: int, n_clusters: int) -> None:
        """Raise ``ValueError`` (one line) when data of this shape cannot be measured."""

    def prepare(self, A, k: int):
        """What :meth:`measure` needs of the data A, computed once per job (None: nothing)."""
        return None

    def candidates(self, points, weights, k: int, rng, seeded: list[dict]) -> list[np.ndarray]:
        """The candidates' centers; ``seeded``: the cell's k-means++ seedings, measured."""
        raise NotImplementedError

    def measure(self, prepared, A, points, weights, k: int, rng, seeded: list[dict]) -> list[dict]:
        """Each candidate measured on A (:func:`measure`: both costs and the distortion)."""
        chosen = self.candidates(points, weights, k, rng, seeded)
        return [measure(A, points, weights, centers) for centers in chosen]


class _KMeansPlusPlus(SolutionFamily):
    def measure(self, prepared, A, points, weights, k, rng, seeded):
        return seeded


class _Convex(SolutionFamily):
    def candidates(self, points, weights, k, rng, seeded):
        # the worst seeding's centers, as the authors' centers.txt after their k-means++ loop
        worst = max(seeded, key=lambda m: np.nan_to_num(m["distortion"], nan=-np.inf))
        return [convex(worst["centers"], k, rng) for _ in range(CANDIDATES)]


class _MinimumEnclosingBall(SolutionFamily):
    def candidates(self, points, weights, k, rng, seeded):
        return [meb(points, k, rng) for _ in range(CANDIDATES)]


def _checked(obj: object, name: str) -> SolutionFamily:
    if not isinstance(obj, SolutionFamily):
        raise TypeError(f"it is {obj!r}, not a kmdr.coresets.evaluation.SolutionFamily")
    return obj


#: Every family of solutions by the name a config gives it (``kind_params.solutions``): kmdr's
#: own, then those the papers declare (``Paper.solution_families``) and plug-ins of the
#: entry-point group ``kmdr.solution_families``.
SOLUTION_FAMILIES: Registry[SolutionFamily] = Registry(
    "solution family", "kmdr.solution_families", convert=_checked,
    paper_field="solution_families",
)  # fmt: skip
SOLUTION_FAMILIES.declare("kmeans++", _KMeansPlusPlus())
SOLUTION_FAMILIES.declare("convex", _Convex())
SOLUTION_FAMILIES.declare("meb", _MinimumEnclosingBall())


def solution_family(name: str) -> SolutionFamily:
    """The family ``name``; a one-line :class:`kmdr.plugins.RegistryError` for a name that
    means none."""
    return SOLUTION_FAMILIES.get(name)
