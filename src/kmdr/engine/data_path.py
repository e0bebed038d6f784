"""Where a run's data live, decided once: in memory, or as row blocks on a Dask cluster.

:func:`data_path` chooses the strategy from the run's :class:`~kmdr.config.schema.Execution`
when the session plans a run (:meth:`kmdr.engine.session.Session.run`), and everything that
depends on it asks the strategy rather than the settings again:

* :class:`InMemory` (the usual path): each cell holds the whole matrix in one process; the data
  are loaded once and kept by the session for its next runs, and the cells go to the workers as
  jobs (:func:`kmdr.engine.sweep.compute_in_memory`).
* :class:`RowBlocks` (``block_rows=N``, ``backend=dask``): each cell's data are read as row
  blocks of N rows, prepared once on a worker, never held whole in one process, and never kept
  between runs; the cells are computed one after another, each spread over the cluster's workers
  (:func:`kmdr.engine.sweep.compute_from_blocks`).

:func:`load_data` and :func:`data_facts` do what is the same on both paths: a dry run plans from
the data's declared facts without reading them, a dataset that cannot be obtained is the run's
reason to skip, and a loader's bad-argument error is one line naming the dataset.
"""

from __future__ import annotations

from kmdr.engine.work import prepare_data


class InMemory:
    """Each cell holds the whole matrix in one process (see the module docstring)."""

    #: The session keeps the loaded data for its next runs.
    keeps_loaded = True

    def load(self, experiment, execution):
        """The experiment's :class:`~kmdr.datasets.Dataset`."""
        from kmdr.datasets import load_dataset

        params = experiment.dataset.params
        return load_dataset(experiment.dataset.name, data_dir=execution.data_dir, **params)

    def facts(self, dataset):
        """``(X, y, sparse, fingerprint)`` of a loaded dataset; X ready for the cells."""
        import numpy as np
        import scipy.sparse as sp

        from kmdr.datasets import content_fingerprint

        fingerprint = getattr(dataset, "fingerprint", None) or content_fingerprint(
            dataset.X, dataset.y
        )
        X = prepare_data(dataset.X)
        return X, np.asarray(dataset.y), bool(sp.issparse(X)), fingerprint


class RowBlocks:
    """Each cell's data as row blocks of ``rows`` rows on a Dask cluster (see the module
    docstring)."""

    keeps_loaded = False  # a chunked run's driver keeps no data between runs

    def __init__(self, rows: int):
        self.rows = int(rows)

    def load(self, experiment, execution):
        """The experiment's :class:`~kmdr.datasets.blocks.RowBlocks` (what makes the blocks,
        nothing drawn or read: the blocks are prepared on a worker when the run computes)."""
        from kmdr.datasets.blocks import load_blocks

        params = experiment.dataset.params
        return load_blocks(
            experiment.dataset.name, rows=self.rows, data_dir=execution.data_dir, **params
        )

    def blocks_of(self, dataset):
        """``dataset`` as row blocks: itself, or a caller's loaded Dataset cut into blocks."""
        from kmdr.datasets.blocks import RowBlocks as Blocks
        from kmdr.datasets.blocks import SplitBlocks, bounds_of_rows

        if isinstance(dataset, Blocks):
            return dataset
        return SplitBlocks(dataset, bounds_of_rows(dataset.X.shape[0], self.rows))

    def facts(self, dataset):
        """``(X, y, sparse, fingerprint)``: X the blocks' shape and sparsity only
        (:class:`~kmdr.reducers.DataFacts`), never the matrix; y None (each worker makes its
        blocks' labels)."""
        from kmdr.reducers import DataFacts

        blocks = self.blocks_of(dataset)
        X = DataFacts(blocks.n_samples, blocks.n_features, blocks.is_sparse)
        return X, None, blocks.is_sparse, blocks.fingerprint


def data_path(execution) -> InMemory | RowBlocks:
    """The strategy of a run with ``execution``: row blocks when it sets ``block_rows``."""
    return InMemory() if execution.block_rows is None else RowBlocks(execution.block_rows)


def load_data(path, experiment, execution, output):
    """The experiment's data on ``path``, or the DatasetUnavailable its loading raised (the run
    records the reason and skips). A dry run gets the data's declared facts instead when its
    declaration tells them (:func:`kmdr.datasets.declared_data`): it plans without reading the
    data. A loader's TypeError or ValueError is a one-line ConfigError naming the dataset."""
    from kmdr.config.errors import ConfigError
    from kmdr.datasets import DatasetUnavailable, declared_data

    if output.dry_run:
        params = experiment.dataset.params
        declared = declared_data(experiment.dataset.name, data_dir=execution.data_dir, **params)
        if declared is not None:
            return declared
    try:
        return path.load(experiment, execution)
    except DatasetUnavailable as err:
        return err
    except (TypeError, ValueError) as err:
        message = str(err)  # a DatasetError already names the dataset
        if not message.startswith(f"dataset {experiment.dataset.name!r}"):
            message = f"dataset {experiment.dataset.name!r}: {message}"
        raise ConfigError(message) from None


def data_facts(path, experiment, execution, dataset):
    """``(X, y, sparse, fingerprint)`` of the loaded ``dataset`` on ``path``, or of a dry run's
    declared facts (X: their :class:`~kmdr.reducers.DataFacts`, loading the matrix in memory
    only if a reducer's plan needs it; y: None)."""
    from kmdr.datasets import DeclaredData

    if not isinstance(dataset, DeclaredData):
        return path.facts(dataset)
    from functools import cache

    from kmdr.reducers import DataFacts

    def matrix():  # once, if a plan needs it
        return prepare_data(InMemory().load(experiment, execution).X)

    X = DataFacts(dataset.n_samples, dataset.n_features, dataset.sparse, load=cache(matrix))
    return X, None, dataset.sparse, dataset.fingerprint
