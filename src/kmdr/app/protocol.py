"""A folder holds one experiment's protocol.

An experiment's folder (``results_dir/<name>/``) records, in each run's record, the experiment
that ran there. Its **protocol** is what the folder's summary, figure and report entry stand for:
its kind, how repetitions combine (``aggregation``) and the leverage sampler, and, in a folder
that bears a preset's name, the preset's dataset (with its parameters) and each of its reducers'
definitions (name and parameters, by entry id). Everything else is a coordinate of a cell, kept
in its row and drawn apart: the r values, the repetitions, which reducers run, the seed, the
k-means settings, and in a folder of one's own the datasets and reducer parameters
(``kmdr -m dataset=orl,coil20 reducer=sign,svd`` fills one folder, a row of panels per dataset).
So a run may ask for any part of a preset's grid or add to it
(``experiment=pb17_digits reducer=sparsified_two_pass`` reuses the preset's cells), and a
preset's run with another dataset never writes into the preset's folder, committed or not.

A run whose protocol differs from its folder's is refused in one line before any work, naming
what differs; it belongs in another folder (``name=...`` or ``results_dir=...``). The folder's
protocol is the one its last run recorded, else, for a folder not written yet that bears a
preset's name, the preset's; a record holds the reducers its run ran, and in a preset's folder
the others keep the preset's definitions. Only what the record states is compared: a setting an
older record lacks (a reducer parameter left at its default then) is not held against the run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import nullcontext
from dataclasses import asdict, fields
from pathlib import Path

from kmdr.config.errors import ConfigError

__all__ = ["check_folder", "protocol"]

#: The Experiment fields that make any folder's protocol, and those a preset's folder adds.
PROTOCOL = ("kind", "aggregation", "leverage")
PRESET_PROTOCOL = (*PROTOCOL, "dataset", "reducers")


def _leaves(value, prefix: str) -> Iterator[tuple[str, object]]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, f"{prefix}.{key}")
    else:
        yield prefix, getattr(value, "value", value)


def protocol(experiment, names=PRESET_PROTOCOL) -> dict[str, object]:
    """The experiment's settings ``names`` as dotted keys (``dataset.name``,
    ``reducers.svd.params.eps``, ...) and their values."""
    values = {name: asdict(experiment)[name] for name in names}
    if "reducers" in names:
        values["reducers"] = {
            r.id: {"name": r.name, "params": dict(r.params)} for r in experiment.reducers
        }
    return {key: value for name, v in values.items() for key, value in _leaves(v, name)}


def _recorded(folder: Path):
    """The Experiment the folder's last run recorded, built as any Experiment is (a key an older
    record lacks takes its default); None when no run recorded one."""
    from kmdr.config.schema import Experiment
    from kmdr.results.runs import load_runs

    names = {f.name for f in fields(Experiment)}
    for run in reversed(load_runs(folder)):
        config = run.get("config")
        if isinstance(config, dict):
            return Experiment(**{k: v for k, v in config.items() if k in names and v is not None})
    return None


def _preset(name: str):
    """The preset ``name``'s Experiment, composed alone (Hydra initialized)."""
    from hydra import compose

    from kmdr.app.compose import PRIMARY_CONFIG
    from kmdr.config.schema import from_config

    return from_config(compose(PRIMARY_CONFIG, [f"experiment={name}"])).experiment


def check_folder(experiment, output) -> None:
    """Refuse, in one ConfigError line, a run whose protocol differs from its folder's (see the
    module docstring)."""
    from hydra.core.global_hydra import GlobalHydra

    from kmdr.app.compose import initialized, is_option

    folder = Path(output.results_dir) / experiment.name
    with nullcontext() if GlobalHydra.instance().is_initialized() else initialized():
        preset = is_option("experiment", experiment.name)
        names = PRESET_PROTOCOL if preset else PROTOCOL
        theirs = _recorded(folder)
        recorded = protocol(theirs, names) if theirs is not None else {}
        # a record holds the reducers its run ran; in a preset's folder the preset defines others
        ran = {r.id for r in theirs.reducers} if theirs is not None else set()
        if preset and (theirs is None or {r.id for r in experiment.reducers} - ran):
            others = tuple(f"reducers.{r.id}." for r in experiment.reducers if r.id not in ran)
            defined = protocol(_preset(experiment.name), names).items()
            recorded |= {k: v for k, v in defined if theirs is None or k.startswith(others)}
    if not recorded:
        return
    mine = protocol(experiment, names)
    runs = tuple(f"reducers.{r.id}." for r in experiment.reducers)
    differ = [
        key
        for key, value in recorded.items()
        if (not key.startswith("reducers.") or key.startswith(runs))
        and mine.get(key, "unset") != value
    ]
    if differ:
        said = ", ".join(f"{k}={recorded[k]} there, {mine.get(k, 'unset')} here" for k in differ)
        raise ConfigError(
            f"{folder} holds another protocol than this run's ({said}), and a folder holds one "
            "experiment's protocol; give this run a folder of its own (name=... or "
            "results_dir=...)"
        )
