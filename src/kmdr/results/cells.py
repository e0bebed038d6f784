"""What a cell is: its steps, its identity, its seed, the plan of an experiment's cells, and its
CSV row.

A *cell* is its steps (:attr:`Cell.steps`, each a :class:`Step`): reduce the columns (a reducer,
``none`` for none), reduce the rows (a coreset construction and its size m, or no such step),
solve (Lloyd with the k-means settings, or the seedings a coreset study evaluates), then score
(``evaluation``: the partition of all rows, or a coreset evaluation's families of solutions).
A reducer cell is (columns: reducer; solve: Lloyd); a coreset cell (:mod:`kmdr.engine.coresets`)
has a rows step too. Only what a step reads is in the identity. Its identity is
everything that changes its numbers (:meth:`Cell.identity`): the dataset and its parameters, the
fingerprint of the data's content (:attr:`kmdr.datasets.Dataset.fingerprint`), the reducer's id,
registry name and parameters, r, the repetition, the base seed, the k-means settings, the
compatibility tag of the code that computes it (:func:`code_tag`), and the BLAS/OpenMP threads that
compute it (``blas_threads``: one unless the config asks for more; the worker computes the cell
with exactly that many, :meth:`kmdr.engine.worker.ProcessState.threads`), and the steps after
the reducer (``coreset``: the construction, its parameters, size and version; ``solve``;
``evaluation``), each left out of the id at its default (a reducer cell's: no coreset, Lloyd,
the partition of all rows), so a reducer cell's id is what it was before the steps were named.
The cell id hashes that
identity (:func:`kmdr.results.records.identity_id`), so two runs that differ in any of them write
different cells (a multirun over ``kmeans.n_init`` or ``seed`` into one folder keeps every job's
rows), and re-running an identical configuration on the same data with the same code finds and
reuses its cells.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass

from kmdr.config.checks import reducer_grid
from kmdr.config.schema import Experiment, ReducerConfig
from kmdr.config.seeds import cell_seed, shared_seed
from kmdr.results.records import METRIC_COLUMNS, identity_id, row_fields

#: Bump when a change to the code changes the numbers cells of every reducer produce (a change to
#: one reducer bumps that reducer's ``compat_version`` instead): part of every cell's code tag.
#: 2: RP and Achlioptas draw their matrices directly (other draws), exact SVDs compute only the
#: rank they need (other times and shared keys).
#: 3: exact SVDs whose cut lies in a flat bulk below a well separated leading block take the
#: deflated Gram route (other rounding of SVD features: Synth r >= 10, COIL20 r >= 300, raw ORL
#: r = 300); the Gaussian projection draws through a numpy Generator (other draws).
CELL_FORMAT = 3


def code_tag(reducer_name: str) -> str | None:
    """The compatibility tag of the code that computes a cell of ``reducer_name`` (the
    ``code_tag`` column): ``"<CELL_FORMAT>/<compat_version>"``, e.g. ``"3/1"``; None for a name
    the reducer registry does not know (a plug-in not installed here). A built-in's version is
    read from its declared plan, without importing its class."""
    from kmdr.reducers import reducer_compat_version

    try:
        version = reducer_compat_version(reducer_name)
    except (KeyError, TypeError, ValueError):
        return None
    return f"{CELL_FORMAT}/{version}"


#: The families of a cell's steps, in their order.
STEP_FAMILIES = ("columns", "rows", "solve")
#: The solve of a reducer cell: Lloyd's k-means with the cell's k-means settings.
LLOYD = "lloyd"


@dataclass(frozen=True)
class Step:
    """One step of a cell: its family (:data:`STEP_FAMILIES`), name, parameters and code
    version (what recomputes its cells when the step's code changes its output)."""

    family: str
    name: str
    params: dict
    version: str


@dataclass(frozen=True)
class Cell:
    """One (reducer, r, repetition) of an experiment, with everything a worker needs to run it."""

    dataset: str
    dataset_params: dict
    data_fingerprint: str
    code_tag: str
    reducer_id: str
    reducer_name: str
    label: str
    params: dict
    r: int
    repetition: int
    base_seed: int
    seed: int
    kmeans: dict
    cell_id: str
    shared_key: tuple | None = None
    #: The reducer declares its reduction of this data independent of its random_state
    #: (:meth:`~kmdr.reducers.BaseReducer.is_deterministic`): cells differing only in repetition
    #: reduce once. Not part of the identity (it never changes a number).
    deterministic: bool = False
    #: The shared work is independent of its seed (every reducer with this key declares
    #: :meth:`~kmdr.reducers.BaseReducer.shared_is_deterministic`): computed once for all
    #: repetitions.
    shared_deterministic: bool = False
    #: The BLAS/OpenMP threads the cell is computed with (part of its identity).
    blas_threads: int = 1
    #: The reducer id whose cells' seeds this cell takes (``ReducerConfig.seed_from``; part of
    #: its identity), None for its own.
    seed_from: str | None = None
    #: The rows step, None for none: ``{"name", "params", "size", "version"}`` of a coreset
    #: construction (:mod:`kmdr.coresets`) built on the reduced rows.
    coreset: dict | None = None
    #: The solve step's name: ``"lloyd"`` (:data:`LLOYD`), or another a kind of cells names.
    solve: str = LLOYD
    #: How the solution is scored beyond the partition of all rows ("" for that alone).
    evaluation: str = ""

    @property
    def method_id(self) -> str:
        """The method the cell is a point of, as a run lists it (the ``reducer`` column): the
        reducer's id; a kind's cell with more steps names them too
        (:attr:`kmdr.engine.coresets.CoresetCell.method_id`)."""
        return self.reducer_id

    @property
    def steps(self) -> tuple[Step, ...]:
        """The cell's steps, in order: columns, rows (a coreset cell's), solve."""
        steps = [Step("columns", self.reducer_name, dict(self.params), self.code_tag)]
        if self.coreset:
            params = {**self.coreset["params"], "size": self.coreset["size"]}
            steps.append(Step("rows", self.coreset["name"], params, str(self.coreset["version"])))
        steps.append(Step("solve", self.solve, dict(self.kmeans), str(CELL_FORMAT)))
        return tuple(steps)

    @property
    def shared_ident(self) -> tuple | None:
        """Which shared work the cell uses: (shared key, repetition), with repetition None when
        that work is deterministic (one for all repetitions); None without shared work."""
        if self.shared_key is None:
            return None
        return (self.shared_key, None if self.shared_deterministic else self.repetition)

    @property
    def shared_seed(self) -> int | None:
        """The seed of the cell's shared work (:func:`kmdr.config.seeds.shared_seed`): per (key,
        repetition); a deterministic one is given repetition 0's (it reads none); None without
        shared work. The in-memory sweep and the chunked path both draw it from here."""
        if self.shared_key is None:
            return None
        rep = 0 if self.shared_deterministic else self.repetition
        return shared_seed(self.base_seed, self.dataset, self.shared_key, rep)

    @property
    def group_key(self) -> tuple:
        """Cells with equal group keys are computed by one job: those of a deterministic reducer
        that differ only in repetition (one reduction, one k-means per repetition)."""
        if self.deterministic and (self.shared_key is None or self.shared_deterministic):
            return ("reduce-once", self.reducer_id, self.r)
        return ("cell", self.cell_id)

    def identity(self) -> dict:
        """The cell's identity as cells.csv columns (``store.IDENTITY_COLUMNS``)."""
        return {
            "dataset": self.dataset,
            "dataset_params": _json(self.dataset_params),
            # the method's id: the reducer's, with a rows step its construction too
            "reducer": self.method_id,
            "reducer_name": self.reducer_name,
            "reducer_params": _json(self.params),
            "r": self.r,
            "repetition": self.repetition,
            "base_seed": self.base_seed,
            "kmeans_init": self.kmeans["init"],
            "kmeans_n_init": self.kmeans["n_init"],
            "kmeans_max_iter": self.kmeans["max_iter"],
            "kmeans_tol": float(self.kmeans["tol"]),
            "data_fingerprint": self.data_fingerprint,
            "code_tag": self.code_tag,
            "blas_threads": self.blas_threads,
            # absent (its default, False) unless on: see columns.IDENTITY_DEFAULTS
            **({"kmeans_online_phase": True} if self.kmeans.get("online_phase") else {}),
            **({"seed_from": self.seed_from} if self.seed_from else {}),
            # the steps after the reducer, absent at a reducer cell's (IDENTITY_DEFAULTS)
            **({"coreset": _json(self.coreset)} if self.coreset else {}),
            **({"solve": self.solve} if self.solve != LLOYD else {}),
            **({"evaluation": self.evaluation} if self.evaluation else {}),
        }


def _json(obj) -> str:
    return json.dumps(obj, sort_keys=True)


def kmeans_settings(spec: Experiment) -> dict:
    """The k-means settings a Lloyd solve reads, as a cell's identity holds them."""
    km = spec.kmeans
    out = {"n_init": km.n_init, "max_iter": km.max_iter, "init": km.init, "tol": km.tol}
    if km.online_phase:  # off: absent, as in every cell written before the option existed
        out["online_phase"] = True
    return out


def reducer_kwargs(params: dict, n_clusters: int) -> tuple[dict, int]:
    """A reducer entry's constructor params without ``n_clusters``, and the k it asks for (its own
    ``n_clusters`` param, else the data's k)."""
    params = dict(params)
    k = params.pop("n_clusters", n_clusters)
    return params, k


def make_cell(
    spec: Experiment,
    red: ReducerConfig,
    r: int,
    repetition: int,
    shared_key=None,
    *,
    data_fingerprint: str,
    deterministic: bool = False,
    shared_deterministic: bool = False,
    cell_class: type | None = None,
    **fields,
):
    """The cell (``red``, r, repetition) of ``spec`` on the data ``data_fingerprint``, with its
    seed and id: a :class:`Cell`, or of ``cell_class`` (a kind's subclass) with ``fields`` set
    in place of the reducer cell's (its label, seed, k-means settings, steps after the
    reducer), the id hashing the identity they make."""
    cell = (cell_class or Cell)(
        dataset=spec.dataset.name,
        dataset_params=dict(spec.dataset.params),
        data_fingerprint=str(data_fingerprint),
        code_tag=code_tag(red.name) or f"{CELL_FORMAT}/?",
        reducer_id=red.id,
        reducer_name=red.name,
        label=red.label,
        params=dict(red.params),
        r=int(r),
        repetition=int(repetition),
        base_seed=spec.seed,
        # a reducer that takes another's seeds draws that reducer's numbers (they pair)
        seed=cell_seed(spec.seed, spec.dataset.name, red.seed_from or red.id, r, repetition),
        kmeans=kmeans_settings(spec),
        cell_id="",
        shared_key=None if shared_key is None else tuple(shared_key),
        deterministic=bool(deterministic),
        shared_deterministic=bool(shared_deterministic and shared_key is not None),
        blas_threads=int(spec.blas_threads),
        seed_from=red.seed_from,
    )
    cell = dataclasses.replace(cell, **fields)
    return dataclasses.replace(cell, cell_id=identity_id(row_fields(cell.identity())))


def plan_cells(spec: Experiment, X, n_clusters: int, data_fingerprint: str) -> list[Cell]:
    """All cells of ``spec`` on data ``X`` (n x d) with k = ``n_clusters`` and fingerprint
    ``data_fingerprint``, expensive ones first.

    ``X`` is the matrix or its :class:`~kmdr.reducers.DataFacts` (shape and sparsity, all a
    declared plan reads: a dry run plans without loading the data). The baseline reducer ignores
    the r-grid: one cell per repetition with r = d. Each cell carries what its reducer declares
    (:func:`~kmdr.reducers.planning_facts`: whether its reduction, per r, and its shared work
    depend on the seed): a shared key counts as deterministic only if every reducer of the
    experiment with that key says so.
    """
    from kmdr.reducers import is_baseline_reducer, planning_facts

    n_features = X.shape[1]
    planned = []  # (red, r, shared key, deterministic)
    random_keys = set()
    for red in spec.reducers:
        params, k = reducer_kwargs(red.params, n_clusters)
        for r in r_values(red.name, red.max_r, spec.r_grid, n_features):
            key, deterministic, shared_det = planning_facts(red.name, r, X, n_clusters=k, **params)
            if key is not None and not shared_det:
                random_keys.add(key)
            planned.append((red, r, key, deterministic))
    cells: list[Cell] = []
    for red, r, key, deterministic in planned:
        shared_det = key is not None and tuple(key) not in random_keys
        cells += [
            make_cell(
                spec,
                red,
                r,
                rep,
                key,
                data_fingerprint=data_fingerprint,
                deterministic=deterministic,
                shared_deterministic=shared_det,
            )
            for rep in range(spec.repeats)
        ]
    # Longest first (full-space k-means, then large r) so that workers finish together; the
    # order never changes a cell's numbers.
    cells.sort(key=lambda c: (not is_baseline_reducer(c.reducer_name), -c.r, c.repetition))
    return cells


def r_values(name: str, max_r: int | None, r_grid, n_features: int) -> tuple[int, ...]:
    """The r of the cells of reducer ``name``: ``r_grid`` up to its ``max_r``; the baseline's
    one r = d (``n_features``)."""
    from kmdr.reducers import is_baseline_reducer

    if is_baseline_reducer(name):
        return (n_features,)
    return reducer_grid(r_grid, max_r)


def planned_count(reducers: Iterable[tuple[str, int | None]], r_grid, repeats: int) -> int:
    """How many cells :func:`plan_cells` plans, known before the data: one per repetition and r
    of each reducer's grid (the baseline's one r). ``reducers``: each one's registry name and
    ``max_r``; a name the registry does not hold counts as a reducer with a grid."""
    return repeats * sum(len(r_values(name, max_r, r_grid, 0)) for name, max_r in reducers)


def identity_dicts(cells: Iterable[Cell]) -> list[dict]:
    """Each cell's identity, id and label (the sidecars' ``expected_cells`` and ``cells_done``)."""
    return [{**c.identity(), "cell_id": c.cell_id, "method": c.label} for c in cells]


def cell_row(cell: Cell, metrics: dict, *, experiment: str, shape, run: dict) -> dict:
    """The cells.csv row of a computed cell: identity, shape, metrics, provenance.

    ``shape`` is (n, d, k); ``run``: its columns from the run (its workers, ``run_id`` and
    ``finished_at``).
    """
    n, d, k = shape
    row = {"experiment": experiment, **cell.identity(), "method": cell.label, "seed": cell.seed}
    row.update(n_samples=n, n_features=d, n_clusters=k)
    row.update({key: metrics[key] for key in METRIC_COLUMNS})
    row.update(
        converged=metrics["converged"], reduce_timing=metrics["reduce_timing"], cell_id=cell.cell_id
    )
    row.update(run)
    # a kind's own columns (a paper's cells measure more), after every cell's
    row.update({key: value for key, value in metrics.items() if key not in row})
    return row
