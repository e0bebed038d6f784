"""k-means, kmdr's family of it in one place, as scikit-learn keeps its own in ``sklearn.cluster``.

- :mod:`kmdr.kmeans.lloyd`: Lloyd's k-means with restarts (scikit-learn's, with the papers'
  seedings and rules): :func:`~kmdr.kmeans.lloyd.kmeans`, its result type and checks.
- :mod:`kmdr.kmeans.online_phase`: MATLAB's online phase of single-point moves, which
  :func:`~kmdr.kmeans.lloyd.kmeans` runs after each restart when asked.
- :mod:`kmdr.kmeans.sparsified`: sparsified k-means (Pourkamali-Anaraki and Becker), on the kept
  entries of each row.
- :mod:`kmdr.kmeans.blocks`: Lloyd on row blocks held by a Dask cluster, the data never gathered;
  its centering (``_block_centering``) and its talk with the cluster (``_block_dispatch``) are
  private modules beside it.

Importing this package imports none of them: each is imported where it is used.
"""
