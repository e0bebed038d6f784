"""Hydra's override grammar, read in one place.

Every part of kmdr that looks at overrides (the command line before Hydra starts, ``kmdr.run``
and ``kmdr.compose``, the checks of a composed job, the
name of a job in a multirun) reads them here, with Hydra's own parser
(:class:`hydra.core.override_parser.overrides_parser.OverridesParser`): what a key is, whether
an override is a sweep, and the rules every route applies: each key set once
(:func:`check_repeated_keys`), a config group given an option (:func:`check_group_choices`),
one job per call (:func:`one_job`), and no override of a setting the experiment's kind does not
read (:func:`check_kind_reads`) or that ``quick=true`` replaces (:func:`check_quick_overrides`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kmdr.config.errors import ConfigError, config_line

__all__ = [
    "SEARCH_PATH",
    "UnreadSetting",
    "check_group_choices",
    "check_kind_reads",
    "check_quick_overrides",
    "check_repeated_keys",
    "key",
    "keys",
    "one_job",
    "parse",
    "swept_keys",
]

#: The one key of Hydra's own config a composed job reads: the config folders searched.
SEARCH_PATH = "hydra.searchpath"
#: The override key that sets an experiment setting when it is not the setting's own (the
#: ``reducer=`` group fills ``reducers``).
_SETTING_OF_KEY = {"reducer": "reducers"}


def parse(texts: Iterable[str], *, strict: bool = False) -> list:
    """``texts`` read by Hydra's override parser, in order. A text it cannot read raises a
    one-line :class:`ConfigError` when ``strict``; otherwise it is left out (a flag's value such
    as ``job`` in ``--cfg job``, or an override Hydra refuses with its own line when it
    composes)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    out = []
    for text in texts:
        if not strict and str(text).startswith("-"):  # a flag of the command line
            continue
        try:
            out += parser.parse_overrides([str(text)])
        except HydraException as err:
            if strict:
                raise ConfigError(config_line(err)) from None
    return out


def key(override) -> str:
    """The key an override sets, without its ``+``, ``++`` or ``~``: ``repeats``, ``reducer``,
    ``dataset.params.n_samples``, ``group@package``."""
    return override.get_key_element().lstrip("+~")


def keys(texts: Iterable[str]) -> list[str | None]:
    """The key each of ``texts`` sets (:func:`key`), in order; None for a text Hydra's grammar
    cannot read or a command-line flag."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    out: list[str | None] = []
    for text in texts:
        try:
            [override] = [] if str(text).startswith("-") else parser.parse_overrides([str(text)])
        except (HydraException, ValueError):
            override = None
        out.append(None if override is None else key(override))
    return out


def swept_keys(texts: Iterable[str]) -> set[str]:
    """The keys of the sweep overrides among ``texts`` (``a,b``, ``glob(...)``,
    ``range(...)``, ``interval(...)``)."""
    return {key(o) for o in parse(texts) if o.is_sweep_override()}


def check_group_choices(texts: Iterable[str]) -> None:
    """A config group of kmdr's (dataset, reducer, experiment) is given an option's name (or a
    list of names): ``experiment=null`` (as the primary config's defaults list writes "no
    preset") or ``dataset=1`` is refused by Hydra with a ValueError naming no fix; it is one
    :class:`ConfigError` line here."""
    # the sections of kmdr-list that list each group's options
    sections = {"dataset": "datasets", "reducer": "reducers", "experiment": "presets"}
    for override in parse(texts):
        group = key(override)
        if group not in sections or override.is_delete():
            continue
        value = override.value()  # a sweep's choices (reducer=null,sign) are each one job's
        values = getattr(value, "list", ()) if override.is_sweep_override() else [value]
        values = [x for v in values for x in (v if isinstance(v, list) else [v])]
        if not all(isinstance(v, str) for v in values):
            raise ConfigError(
                f"{override.input_line}: a config group takes one of its options by name "
                f"({group}=<name>; `kmdr-list {sections[group]}` lists them), or ~{group} for none"
                + (" (no preset is the default: leave it out)" if group == "experiment" else "")
            )


def check_repeated_keys(texts: Iterable[str]) -> None:
    """Each key is set once: Hydra applies overrides in order, so a key given twice
    (``repeats=1 repeats=2``, ``reducer=sign reducer=svd``, ``experiment=A experiment=B``, or
    ``results_dir=a`` beside ``kmdr.run``'s ``results_dir=``) keeps one value and drops the
    other without a word, and a multirun's sweeper keeps only the last. Raises a one-line
    :class:`ConfigError` naming the key and every value given."""
    given: dict[str, list[str]] = {}
    for override in parse(texts):
        given.setdefault(key(override), []).append(str(override.input_line))
    for name, values in given.items():
        if len(values) > 1:
            raise ConfigError(
                f"{name} is given {len(values)} times ({', '.join(values)}): Hydra would keep "
                "the last and ignore the others; give it once"
            )


def one_job(overrides, caller: str = "this") -> list[str]:
    """``overrides`` (a str or an iterable of str) as the list of one job's overrides, each key
    set once; one :class:`ConfigError` line for what is not a string, a command-line flag, an
    override Hydra's grammar cannot read, or a sweep. ``caller`` names the function in the
    message (``kmdr.run``)."""
    items = [overrides] if isinstance(overrides, str) else list(overrides)
    for text in items:
        if not isinstance(text, str):
            raise ConfigError(
                f"{caller} takes an Experiment or override strings such as 'repeats=2', not "
                f"{text!r} ({type(text).__name__})"
            )
        if text.startswith("-"):
            raise ConfigError(
                f"{caller} takes overrides (key=value), not the command-line flag {text!r}; "
                "run one job per call (a sweep: call it once per value)"
            )
    for override in parse(items, strict=True):
        if override.is_sweep_override():
            raise ConfigError(
                f"{caller} runs one job, and {override.input_line!r} is a sweep; call it once "
                "per value (or write a list as key=[a,b])"
            )
        name = key(override)
        if name.split(".")[0].split("/")[0] == "hydra" and name != SEARCH_PATH:
            raise ConfigError(
                f"{caller} composes the run's config only, and {override.input_line!r} sets "
                "Hydra's own run of the command line (its launcher, logging or folders), which "
                f"it does not start; drop it (only {SEARCH_PATH}, which adds config folders, "
                "is read)"
            )
    check_repeated_keys(items)
    check_group_choices(items)
    return items


class UnreadSetting(ConfigError):
    """An override of a setting the run's kind does not read (:func:`check_kind_reads`):
    ``override`` as given, the ``setting`` it sets, the ``kind``."""

    def __init__(self, override: str, setting: str, kind: str, reads: Iterable[str]):
        super().__init__(
            f"{override} sets {setting}, which kind={kind} does not read (it reads "
            f"{', '.join(reads)}): drop the override"
        )
        self.override, self.setting, self.kind = override, setting, kind


def check_kind_reads(overrides, experiment) -> None:
    """An override of an experiment setting that the run's kind does not read
    (``experiment=bmd09_fig1 reducer=sign``: the leverage scores are drawn with
    ``leverage.reducer``; ``leverage.r=50`` for a sweep of cells) would be accepted and change
    nothing: a one-line :class:`UnreadSetting` (a :class:`ConfigError`) naming it and what the
    kind reads (:func:`kmdr.config.kinds.kind_reads`). ``experiment``: the run's
    :class:`~kmdr.config.schema.Experiment`, whose fields are the settings."""
    from dataclasses import fields

    from kmdr.config.kinds import ALWAYS_READ, kind_reads

    kind = experiment.kind
    reads = kind_reads(kind)
    if reads is None:
        return
    settings = {f.name for f in fields(experiment)} - {*ALWAYS_READ}
    for override in parse(overrides):
        top = key(override).split(".")[0]
        setting = _SETTING_OF_KEY.get(top, top)
        if setting in settings and setting not in reads:
            raise UnreadSetting(override.input_line, setting, kind, sorted(set(reads) & settings))


def check_quick_overrides(overrides, quick_grid: Mapping | None) -> None:
    """An override of a key that ``quick=true`` replaces with the experiment's ``quick_grid``
    (``experiment=bzmd14_orl quick=true r_grid=[5]``: the reduced grid's r_grid wins) would be
    accepted and change nothing: a one-line :class:`ConfigError` naming both values.
    ``quick_grid``: the grid merged in this run (None when quick is false)."""
    if not quick_grid:
        return
    from omegaconf import OmegaConf

    grid = OmegaConf.create(dict(quick_grid))
    for override in parse(overrides):
        path = key(override).split("@")[0].split(".")
        path[0] = _SETTING_OF_KEY.get(path[0], path[0])
        given = ".".join(path)
        replaced = OmegaConf.select(grid, given, default=None)
        if replaced is not None:
            shown = OmegaConf.to_container(replaced) if OmegaConf.is_config(replaced) else replaced
            raise ConfigError(
                f"{override.input_line} sets {given}, which quick=true replaces with the "
                f"experiment's reduced grid ({given}={shown}); drop the override, or quick=true"
            )
