"""A run into a folder that already holds cells never mixes two reducers, or two labels, under
one reducer id.

A cell is keyed by its reducer id (the ``reducer`` column) and drawn under its label (the
``method`` column): figures and summaries draw one line per id. A run that asks, under an id the
folder already holds, for another registry reducer (``reducers.sign.name=gaussian`` after a
run of ``sign``) or another label (``reducers.sign.label=Gauss``) would add its cells beside
the old ones, and the figure would draw one line through both under the first label.

Such a run is refused in one line before any work (:func:`check_resume`), naming what the folder
holds and what the run asks, rather than relabelling the rows already written: a cell's label
is part of its sealed record, and a run that changes its own label is more often a mistake (a
copied command, another experiment under the same ``name``) than a wish to rename old results.
The fix is another id, or another folder (``name=...``).
"""

from __future__ import annotations

from pathlib import Path

from kmdr.config.errors import ConfigError


def held_reducers(experiment_dir: str | Path) -> dict[str, tuple[str, str]]:
    """What an experiment folder's cells hold under each reducer id: ``{id: (registry name,
    label)}``, from the first cell of that id (empty for a folder without cells).

    The cells are read as the run reads them (:class:`~kmdr.results.store.CellStore`, read-only
    and quiet: the run itself names a damaged file or row, and sets it aside).
    """
    from kmdr.results.store import CellStore

    folder = Path(experiment_dir)
    if not folder.is_dir():
        return {}
    held: dict[str, tuple[str, str]] = {}
    store = CellStore(folder, log=lambda _msg: None, read_only=True)
    for row in store.csv_record().valid.values():
        if row.get("reducer") and row.get("reducer_name"):
            held.setdefault(row["reducer"], (row["reducer_name"], str(row.get("method"))))
    return held


def check_resume(experiment, experiment_dir: str | Path) -> None:
    """Refuse, with a one-line :class:`ConfigError`, a run whose reducer under an id differs from
    what ``experiment_dir`` holds under that id (registry name or label); see the module
    docstring. Reads nothing for a kind without cells or a folder that does not exist yet."""
    if not experiment.reducers or not Path(experiment_dir).is_dir():
        return
    held = held_reducers(experiment_dir)
    for red in experiment.reducers:
        if red.id not in held or held[red.id] == (red.name, red.label):
            continue
        name, label = held[red.id]
        what = "reducer" if name != red.name else "label"
        raise ConfigError(
            f"reducer id {red.id!r} in {experiment_dir} holds reducer {name!r} (label "
            f"{label!r}), this run asks {red.name!r} (label {red.label!r}): one {what} per id, "
            "or the figure would draw both as one line; give this reducer another id "
            "(reducers.<i>.id=...) or the run another folder (name=...)"
        )
