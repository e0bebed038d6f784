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

Under each reducer id the folder's runs ran, the folder holds one reducer and one label, those
the first of them recorded: figures and summaries draw one line per id, under its first label,
and a cell's label is part of its sealed row, so a run asking another under that id
(``reducers.sign.name=gaussian`` or ``reducers.sign.label=Gauss`` after a run of ``sign``) would
be drawn as one line with the old cells.

A run whose protocol differs from its folder's is refused in one line before any work, naming
what differs and what a folder holds; it belongs in another folder (``name=...`` or
``results_dir=...``), and a run whose dataset or reducer definitions differ from a preset's needs
a name of its own: the preset's name keeps the preset's protocol under any results folder, so
the line names ``name=...`` alone then, and for a folder not written yet names the preset, not
the folder. The folder's
protocol is the one its last run recorded, else, for a folder not written yet that bears a
preset's name, the preset's; a record holds the reducers its run ran, and in a preset's folder
the others keep the preset's definitions. Only what the record states is compared: a setting an
older record lacks (a reducer parameter left at its default then) is not held against the run.

**The committed record holds the paper presets' own cells only** (:func:`default_folder`). A run
of a paper preset that names no results folder goes into the committed ``results/`` only when
every cell it computes is a cell of the preset's own protocol with the same identity: the cells
are compared as the store keys them (:func:`planned_cells`: each cell's identity, as
:func:`kmdr.results.cells.make_cell` builds it and its id hashes it, and its label), so a
setting that enters a cell's identity, today's or one added later, takes a run off the record
without being listed here. A part of the protocol (fewer reducers, some of its r, fewer
repetitions) is its cells, and stays. Any other run goes to ``my_results/`` and says so in one
line; ``results_dir=results`` writes it into the record on purpose. The preset compared with is
kmdr's own (composed from kmdr's and its papers' configs alone): a user's config folder that
holds an option of the same name (``-cd my`` with ``my/experiment/bzmd14_orl.yaml``) is the
user's experiment, whose cells are compared like any other run's. A kind without cells compares
the settings it reads (its ``reads``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, fields
from pathlib import Path

from kmdr.config.errors import ConfigError

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


def _recorded(folder: Path) -> tuple[object, dict[str, object]]:
    """The Experiment the folder's last run recorded, built as any Experiment is (a key an older
    record lacks takes its default; None when no run recorded one), and what every run recorded
    under each reducer id, the first to run it: ``reducers.<id>.name`` and ``.label``."""
    from kmdr.config.schema import Experiment
    from kmdr.results.runs import load_runs

    configs = [run["config"] for run in load_runs(folder) if isinstance(run.get("config"), dict)]
    held: dict[str, object] = {}
    for config in configs:
        entries = config.get("reducers") or ()
        for red in entries.values() if isinstance(entries, Mapping) else entries:
            for key in ("name", "label") if isinstance(red, Mapping) else ():
                if red.get(key) is not None:
                    held.setdefault(f"reducers.{red.get('id')}.{key}", red[key])
    if not configs:
        return None, held
    names = {f.name for f in fields(Experiment)}
    given = {k: v for k, v in configs[-1].items() if k in names and v is not None}
    return Experiment(**given), held


def _preset(name: str):
    """The preset ``name``'s Experiment, composed alone (Hydra initialized)."""
    from hydra import compose

    from kmdr.app.compose import PRIMARY_CONFIG
    from kmdr.config.schema import from_config

    return from_config(compose(PRIMARY_CONFIG, [f"experiment={name}"])).experiment


@contextmanager
def own_configs_alone() -> Iterator[None]:
    """Hydra initialized on kmdr's own configs (and its papers') while the block runs, without
    the folders a job added (``-cd``, ``hydra.searchpath``): what a preset of kmdr is, whatever
    a user's folder names like it. Inside a running job (the command line's task), the job's
    Hydra is set aside through GlobalHydra's public clear/initialize and given back after."""
    from hydra.core.global_hydra import GlobalHydra

    from kmdr.app.compose import initialized
    from kmdr.config.search_path import kmdr_configs_only

    job = GlobalHydra.instance().hydra if GlobalHydra.instance().is_initialized() else None
    GlobalHydra.instance().clear()
    try:
        with kmdr_configs_only(), initialized():
            yield
    finally:
        GlobalHydra.instance().clear()  # (initialize's own exit restored a cleared copy)
        if job is not None:
            GlobalHydra.instance().initialize(job)


def planned_cells(experiment) -> dict[str, dict]:
    """Every cell ``experiment`` computes, by cell id: its identity (as
    :func:`kmdr.results.cells.make_cell` builds it and the cell id hashes it) and its label
    (``method``), from the settings alone: the data's fingerprint and width are left out (the
    same for any two runs on one dataset with the same parameters, which the identity holds).
    Empty for a kind without cells."""
    from kmdr.results.cells import make_cell, r_values

    cells = (
        make_cell(experiment, red, r, rep, data_fingerprint="")
        for red in experiment.reducers
        for r in r_values(red.name, red.max_r, experiment.r_grid, 0)
        for rep in range(experiment.repeats)
    )
    return {c.cell_id: {**c.identity(), "method": c.label} for c in cells}


def _shown(values) -> str:
    values = sorted(values, key=str)
    more = f",... ({len(values)} values)" if len(values) > 4 else ""
    return ",".join(str(v) for v in values[:4]) + more


def outside_protocol(experiment, preset) -> list[str]:
    """What takes ``experiment`` outside ``preset``'s protocol, as ``column=value`` texts: for
    a sweep of cells, the identity columns (and the label) whose values in the cells the preset
    does not compute no cell of the preset holds (``base_seed=7``, ``r=6``,
    ``kmeans_n_init=1``), else the first such cell; for a kind without cells, each setting it
    reads that differs. [] when every cell is one of the preset's, with the same identity (a
    part of its grid)."""
    from kmdr.config.kinds import kind_reads

    if experiment.kind != preset.kind:
        return [f"kind={experiment.kind}"]
    mine, theirs = planned_cells(experiment), planned_cells(preset)
    if not mine and not theirs:  # a kind without cells: what it reads is what it computes
        reads = sorted(kind_reads(experiment.kind) or {f.name for f in fields(experiment)})
        names = [n for n in reads if n not in ("name", "preset")]
        a, b = protocol(experiment, names), protocol(preset, names)
        return [f"{k}={a.get(k)}" for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    extra = [cell for cid, cell in mine.items() if theirs.get(cid) != cell]
    if not extra:
        return []
    held: dict[str, set] = {}
    for cell in theirs.values():
        for column, value in cell.items():
            held.setdefault(column, set()).add(value)
    named = []
    for column in extra[0]:
        new = {cell.get(column) for cell in extra} - held.get(column, set())
        if new:
            named.append(f"{column}={_shown(new)}")
    if named:
        return named
    first = extra[0]
    return [
        f"{len(extra)} cells the preset does not compute (first: reducer {first['reducer']}, "
        f"r={first['r']}, repetition {first['repetition']})"
    ]


def default_folder(experiment) -> str:
    """The results folder of a run that names none: :data:`~kmdr.config.schema.OWN_RESULTS_DIR`
    for a run outside the paper presets (:func:`~kmdr.config.schema.default_results_dir`), and
    for a run of one whose cells are not all the preset's own (:func:`outside_protocol`, against
    kmdr's own preset of the run's name, :func:`own_configs_alone`), said in one line; the
    committed ``results`` for the preset's protocol or a part of it."""
    from kmdr._log import warn
    from kmdr.app.compose import is_option, users_option
    from kmdr.config.schema import OWN_RESULTS_DIR, default_results_dir

    folder = default_results_dir(experiment.preset.reproduce)
    if folder == OWN_RESULTS_DIR:
        return folder
    yours = users_option("experiment", experiment.name)
    if yours is not None:  # a copy of a preset, edited or not, is the user's experiment
        warn(
            f"[kmdr] {experiment.name}: the preset run is your own ({yours}), not kmdr's: this "
            f"run goes to {OWN_RESULTS_DIR}/{experiment.name}/ (results_dir={folder} writes it "
            "there)"
        )
        return OWN_RESULTS_DIR
    with own_configs_alone():
        preset = _preset(experiment.name) if is_option("experiment", experiment.name) else None
    if preset is None:
        changes = [f"name={experiment.name}, which no preset of kmdr has"]
    else:
        changes = outside_protocol(experiment, preset)
    if not changes:
        return folder
    # a warning: said before a quiet run's level is set, and where the results are matters then
    warn(
        f"[kmdr] {experiment.name}: {'; '.join(changes)} outside the committed preset's protocol "
        f"(its cells in {folder}/{experiment.name}/): this run goes to "
        f"{OWN_RESULTS_DIR}/{experiment.name}/ (results_dir={folder} writes it there)"
    )
    return OWN_RESULTS_DIR


def check_folder(experiment, output) -> None:
    """Refuse, in one ConfigError line, a run whose protocol differs from its folder's (see the
    module docstring), or that asks, under a reducer id its folder's runs ran, for another
    reducer or label than the first of them recorded: figures and summaries draw one line per
    id, and would draw both as one, under the first label (a cell's label is part of its sealed
    row, so the old ones are never relabelled)."""
    from hydra.core.global_hydra import GlobalHydra

    from kmdr.app.compose import initialized, is_option

    folder = Path(output.results_dir) / experiment.name
    theirs, held = _recorded(folder)
    with nullcontext() if GlobalHydra.instance().is_initialized() else initialized():
        preset = is_option("experiment", experiment.name)
        names = PRESET_PROTOCOL if preset else PROTOCOL
        recorded = protocol(theirs, names) if theirs is not None else {}
        # a record holds the reducers its run ran; in a preset's folder the preset defines others
        ran = {r.id for r in theirs.reducers} if theirs is not None else set()
        if preset and (theirs is None or {r.id for r in experiment.reducers} - ran):
            others = tuple(f"reducers.{r.id}." for r in experiment.reducers if r.id not in ran)
            defined = protocol(_preset(experiment.name), names).items()
            recorded |= {k: v for k, v in defined if theirs is None or k.startswith(others)}
    recorded = held | recorded
    mine = protocol(experiment, (*names, "reducers"))
    mine |= {f"reducers.{r.id}.label": r.label for r in experiment.reducers}
    runs = tuple(f"reducers.{r.id}." for r in experiment.reducers)
    differ = [
        key
        for key, value in recorded.items()
        if (not key.startswith("reducers.") or key.startswith(runs))
        and mine.get(key, "unset") != value
    ]
    if differ:
        raise ConfigError(
            _refusal(experiment, folder, preset, theirs is None, differ, recorded, mine)
        )


def _refusal(experiment, folder: Path, preset: bool, unwritten: bool, differ, recorded, mine):
    """The one line that refuses a run of another protocol than its folder's: what differs, what
    a folder holds, and the setting that gives the run a folder of its own. A preset's folder
    holds the preset's dataset and reducers under any results folder, so a run differing there
    needs a name of its own (``results_dir=`` alone would refuse it the same way); a folder not
    written yet is never named, the preset is."""
    unwritten = unwritten and preset
    where = "in the preset" if unwritten else "there"
    said = ", ".join(f"{k}={recorded[k]} {where}, {mine.get(k, 'unset')} here" for k in differ)
    holds = (
        "a folder holds one experiment's protocol (its kind, aggregation and leverage; a folder "
        "named after a preset also the preset's dataset and reducer definitions)"
    )
    named = preset and any(
        k.startswith(("dataset.", "reducers.")) and not k.endswith(".label") for k in differ
    )
    name = experiment.name
    if named:
        fix = (
            "give this run a name of its own: name=... (its folder <results_dir>/<name>/; "
            f"results_dir=... alone keeps the name {name}, and the preset's protocol with it)"
        )
    else:
        fix = "give this run a folder of its own (name=... or results_dir=...)"
    if unwritten:
        return f"{name} is a preset, and this run is outside its protocol ({said}): {holds}; {fix}"
    return f"{folder} holds another protocol than this run's ({said}), and {holds}; {fix}"
