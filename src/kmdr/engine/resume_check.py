"""A run into a folder that already holds cells never mixes two reducers, or two labels, under
one reducer id.

A cell is keyed by its reducer id (the ``reducer`` column) and drawn under its label (the
``method`` column): figures and summaries draw one line per id. A run that asks, under an id the
folder already holds, for another registry reducer (``reducers=[{name: gaussian, id: sign}]``
after a run of ``sign``) or another label (``reducers.0.label=Gauss``) would add its cells beside
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

__all__ = ["check_resume", "held_reducers"]


def _from_cells(experiment_dir: Path) -> dict[str, tuple[str, str]] | None:
    """id -> (registry name, label) of the folder's current cells (those figures draw), or
    None when the store cannot be read as it is (the run sets such rows aside and says so)."""
    from kmdr.results.frame import EXCLUDED, ResultsError, read_experiment

    try:
        cells = read_experiment(experiment_dir)
    except ResultsError:
        return None
    if not len(cells):
        return {}
    current = cells[cells[EXCLUDED].isna()]
    held: dict[str, tuple[str, str]] = {}
    for rid, name, label in current[["reducer", "reducer_name", "method"]].itertuples(index=False):
        held.setdefault(str(rid), (str(name), str(label)))
    return held


def _from_records(experiment_dir: Path) -> dict[str, tuple[str, str]]:
    """id -> (registry name, label) of the reducers the folder's run records ran, first run
    first (their checked specs: labels resolved)."""
    from kmdr.results.sidecars import load_runs

    held: dict[str, tuple[str, str]] = {}
    for run in load_runs(experiment_dir):
        for red in (run.get("spec") or {}).get("reducers") or ():
            if isinstance(red, dict) and red.get("id") and red.get("name"):
                held.setdefault(str(red["id"]), (str(red["name"]), str(red.get("label"))))
    return held


def held_reducers(experiment_dir: str | Path) -> dict[str, tuple[str, str]]:
    """What an experiment folder holds under each reducer id: ``{id: (registry name, label)}``,
    read from its cells (the run records when the cells cannot be read); empty for a folder
    without cells or runs."""
    folder = Path(experiment_dir)
    if not folder.is_dir():
        return {}
    held = _from_cells(folder)
    return _from_records(folder) if held is None else held


def check_resume(spec, experiment_dir: str | Path) -> None:
    """Refuse, with a one-line :class:`ConfigError`, a run whose reducer under an id differs from
    what ``experiment_dir`` holds under that id (registry name or label); see the module
    docstring. Reads nothing for a kind without cells or a folder that does not exist yet."""
    if not getattr(spec, "reducers", None) or not Path(experiment_dir).is_dir():
        return
    held = held_reducers(experiment_dir)
    for red in spec.reducers:
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
