"""The fast Walsh-Hadamard transform's first stages are one product with ``scipy.linalg.hadamard``:
the SRHT and the Hadamard-preconditioned sparsification give bit for bit what they gave when that
block was built by the butterflies themselves (the committed cells were computed that way)."""

import numpy as np
import pytest
import scipy.sparse as sp

from kmdr.reducers import PreconditionedSparsification, SRHTProjection, srht


def butterfly_built_base(size: int) -> np.ndarray:
    """The base block as it was first built: the butterflies applied to the identity's rows."""
    return srht._butterflies(np.eye(size), 1)


@pytest.mark.parametrize("size", [1, 2, 4, 8, 16, 32])
def test_scipy_block_is_the_butterfly_block(size):
    assert np.array_equal(srht._hadamard(size), butterfly_built_base(size))
    assert srht._hadamard(size).flags.c_contiguous


def _outputs(X):
    C_srht = SRHTProjection(7, random_state=3).fit_transform(X)
    pd = PreconditionedSparsification(5, preconditioner="hadamard", random_state=3)
    C_pd = pd.fit_transform(X)
    C_pd = C_pd.toarray() if sp.issparse(C_pd) else np.asarray(C_pd)
    return C_srht, C_pd, pd.inverse_precondition(C_pd)


@pytest.mark.parametrize(("n", "d", "sparse"), [(9, 5, False), (40, 33, False), (30, 100, True)])
def test_reducers_are_bit_identical_to_the_butterfly_base(monkeypatch, n, d, sparse):
    rng = np.random.default_rng(n + d)
    X = rng.standard_normal((n, d))
    if sparse:
        X = sp.random(n, d, density=0.1, format="csr", random_state=n, dtype=np.float64)
    now = _outputs(X)
    monkeypatch.setattr(srht, "_hadamard", butterfly_built_base)
    before = _outputs(X)
    for a, b in zip(now, before, strict=True):
        assert np.array_equal(a, b)
