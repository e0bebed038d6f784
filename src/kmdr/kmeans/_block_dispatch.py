"""How kmdr's k-means on row blocks talks to a Dask cluster from the driver: the worker each
block goes to (:func:`placement`, :func:`spread`), results read back in a fixed order
(:func:`results_in_order`), and the uniform draw of a start without holding n weights
(:func:`choice_with_weights`), a block read in the worker that holds it (:func:`block_data`),
and the check that the workers holding them are still there (:func:`check_workers`).
:mod:`kmdr.kmeans.blocks` runs Lloyd's iterations on them."""

from __future__ import annotations

import numpy as np

#: Entries of the start's cumulative sum the driver holds at once (8 MiB of float64).
CHUNK = 1 << 20


def choice_with_weights(
    random_state, n: int, size: int | None = None, chunk: int = CHUNK
) -> np.ndarray | int:
    """``random_state.choice(n, size, replace=False, p=ones(n)/n)`` (``size=None``: one index,
    with replacement), as NumPy computes it, holding ``chunk`` entries of its cumulative sum at a
    time instead of n: scikit-learn draws its uniform starts so."""
    p_value = 1.0 / n  # ones(n) / ones(n).sum(): every weight the same double

    def cdf_chunks(zeroed: np.ndarray):
        carry = 0.0
        for lo in range(0, n, chunk):
            p = np.full(min(chunk, n - lo), p_value)
            inside = zeroed[(zeroed >= lo) & (zeroed < lo + p.shape[0])]
            p[inside - lo] = 0.0
            cdf = np.cumsum(np.concatenate([[carry], p]))[1:]
            carry = cdf[-1]
            yield cdf

    def search(values: np.ndarray, zeroed: np.ndarray) -> np.ndarray:
        last = 0.0
        for cdf in cdf_chunks(zeroed):
            last = cdf[-1]
        found = np.zeros(values.shape[0], dtype=np.int64)
        for cdf in cdf_chunks(zeroed):
            found += np.searchsorted(cdf / last, values, side="right")
        return found

    if size is None:
        return int(search(np.atleast_1d(random_state.random_sample()), np.empty(0, np.int64))[0])
    taken: list[int] = []
    while len(taken) < size:
        values = random_state.rand(size - len(taken))
        new = search(values, np.asarray(taken, dtype=np.int64))
        _, first = np.unique(new, return_index=True)
        taken.extend(int(i) for i in new[np.sort(first)])
    return np.asarray(taken, dtype=np.int64)


def results_in_order(futures):
    """The futures' results one at a time, in order (each released once read), so the driver
    adds them in a fixed order whatever order they finish in; if one fails (or the reader
    stops), those not read yet are cancelled."""
    futures = list(futures)
    read = 0
    try:
        for future in futures:
            value = future.result()
            future.release()
            read += 1
            yield value
    finally:
        left = futures[read:]
        if left:
            left[0].client.cancel(left)


def in_order(futures) -> list:
    """The futures' results as a list (:func:`results_in_order`)."""
    return list(results_in_order(futures))


def placement(client, parts: list, sizes: list[int], move: bool = True) -> list[str]:
    """A worker for each block: the one of its holders with the fewest rows so far, unless
    ``move`` and that would leave the rows far from even (more than half a block past an even
    share), then the worker with the fewest rows. Blocks are taken largest first; a block moves
    only where balance needs it."""
    from distributed import wait

    wait(parts)
    holders = client.who_has(parts)
    # the workers holding a block are workers too: the scheduler's list can lag behind them (a
    # loaded machine's cluster once listed none while every block was held)
    held_by = {w for ws in holders.values() for w in ws}
    workers = sorted(set(client.scheduler_info(n_workers=-1)["workers"]) | held_by)
    load = dict.fromkeys(workers, 0)
    fair = sum(sizes) / len(workers) + max(sizes) / 2
    out = [None] * len(parts)
    for i in sorted(range(len(parts)), key=lambda j: (-sizes[j], j)):
        held = [w for w in holders.get(parts[i].key, ()) if w in load]
        here = min(held, key=load.__getitem__) if held else None
        if here is None or (move and load[here] + sizes[i] > fair):
            here = min(workers, key=load.__getitem__)
        out[i] = here
        load[here] += sizes[i]
    return out


def spread(client, fn, parts: list, sizes: list[int], *args) -> list:
    """``fn(part, *args)`` of every block, each on its :func:`placement` worker (new futures;
    a block that moves is sent once, here)."""
    where = placement(client, parts, sizes)
    return [
        client.submit(fn, part, *args, workers=[w], allow_other_workers=True, pure=False)
        for part, w in zip(parts, where, strict=True)
    ]


def block_data(key):
    """Block ``key`` from this worker's store (read back from its spill folder if it was
    spilled), without making it a dependency: the worker's task reads its blocks one at a time,
    so it never needs them all in memory at once."""
    from distributed import get_worker

    try:
        return get_worker().data[key]
    except KeyError:
        raise RuntimeError(
            f"k-means on row blocks: block {key!r} is not on this worker any more"
        ) from None


def check_workers(client, workers) -> None:
    """One line naming a worker of ``workers`` that left the cluster, if one did."""
    gone = set(workers) - set(client.has_what())  # asked now, not cached
    if gone:
        raise RuntimeError(
            f"k-means on row blocks: worker {sorted(gone)[0]} left the cluster; the blocks it "
            "held are lost"
        )
