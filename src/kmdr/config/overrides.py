"""Hydra's override grammar, read in one place, with Hydra's own parser
(:class:`hydra.core.override_parser.overrides_parser.OverridesParser`): what key an override
sets, whether it is a sweep, and the warnings a composed job's overrides may give: an override
of a setting the experiment's kind does not read (:func:`check_kind_reads`), that ``quick=true``
replaces (:func:`check_quick_overrides`) or of a reducer entry the run filters out
(:func:`check_filtered_entries`) changes nothing. A key given twice keeps the last value,
as in any Hydra app; what Hydra's grammar refuses, Hydra reports.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping

from kmdr.config.errors import warn_unused

__all__ = [
    "SEARCH_PATH",
    "UnreadSetting",
    "check_filtered_entries",
    "check_kind_reads",
    "check_quick_overrides",
    "key",
    "keys",
    "parse",
    "swept_keys",
]

#: The one key of Hydra's own config a composed job reads: the config folders searched.
SEARCH_PATH = "hydra.searchpath"
#: The override key that sets an experiment setting when it is not the setting's own (the
#: ``reducer=`` group fills ``reducers``).
_SETTING_OF_KEY = {"reducer": "reducers"}


def parse(texts: Iterable[str]) -> list:
    """``texts`` read by Hydra's override parser, in order; a flag, or a text it cannot read
    (which Hydra refuses in its own words when it composes), is left out."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    out = []
    for text in texts:
        if str(text).startswith("-"):  # a flag of the command line
            continue
        with contextlib.suppress(HydraException):
            out += parser.parse_overrides([str(text)])
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


class UnreadSetting(UserWarning):
    """An override of a setting the run's kind does not read (:func:`check_kind_reads`):
    ``override`` as given, the ``setting`` it sets, the ``kind``."""

    def __init__(self, override: str, setting: str, kind: str, reads: Iterable[str]):
        super().__init__(
            f"{override} sets {setting}, which kind={kind} does not read (it reads "
            f"{', '.join(reads)}), so it changes nothing; drop the override"
        )
        self.override, self.setting, self.kind = override, setting, kind


def check_kind_reads(overrides, experiment) -> set[str]:
    """An override of an experiment setting that the run's kind does not read
    (``experiment=bmd09_fig1 reducer=sign``: the leverage scores are drawn with
    ``leverage.reducer``; ``leverage.r=50`` for a sweep of cells) changes nothing (the run's
    objects keep the setting's default): one :class:`UnreadSetting` warning naming it and what
    the kind reads (:func:`kmdr.config.kinds.kind_reads`). ``experiment``: the run's
    :class:`~kmdr.config.schema.Experiment`, whose fields are the settings. Returns the settings
    warned about, which the run's record keeps at their defaults too."""
    from dataclasses import fields

    from kmdr.config.kinds import ALWAYS_READ, kind_reads

    kind = experiment.kind
    reads = kind_reads(kind)
    if reads is None:
        return set()
    settings = {f.name for f in fields(experiment)} - {*ALWAYS_READ}
    unread = set()
    for override in parse(overrides):
        top = key(override).split(".")[0]
        setting = _SETTING_OF_KEY.get(top, top)
        if setting in settings and setting not in reads:
            read = sorted(set(reads) & settings)
            warn_unused(UnreadSetting(override.input_line, setting, kind, read))
            unread.add(setting)
    return unread


def check_quick_overrides(overrides, quick_grid: Mapping | None) -> None:
    """An override of a key that ``quick=true`` replaces with the experiment's ``quick_grid``
    (``experiment=bzmd14_orl quick=true r_grid=[5]``: the reduced grid's r_grid wins) changes
    nothing: one warning naming both values. ``quick_grid``: the grid merged in this run (None
    when quick is false)."""
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
            warn_unused(
                f"{override.input_line} sets {given}, which quick=true replaces with the "
                f"experiment's reduced grid ({given}={shown}), so it changes nothing; drop the "
                "override, or quick=true"
            )


_ENTRY = re.compile(r"^reducers\.(\d+)(?:\.|$)")


def check_filtered_entries(overrides, reducers, only: tuple[str, ...] | None) -> None:
    """An override of a reducer entry that ``reducer=<only>`` filters out of the run
    (``experiment=bzmd14_orl reducer=sign reducers.1.params.eps=0.5``) changes nothing: one
    warning naming it (the run's objects, and so its record, hold the entries run only).
    ``reducers``: the composed config's entries (before the filter); an entry is kept when its
    registry name or its id is one of ``only``, as :func:`kmdr.config.schema.from_config` keeps
    it."""
    if only is None:
        return
    from kmdr.reducers import canonical_reducer

    given = f"reducer={only[0]}" if len(only) == 1 else f"reducer=[{','.join(only)}]"
    entries = list(reducers or ())
    for override in parse(overrides):
        match = _ENTRY.match(key(override))
        if match is None or int(match.group(1)) >= len(entries):
            continue
        index = int(match.group(1))
        name = canonical_reducer(str(entries[index]["name"]))
        rid = str(entries[index].get("id") or name)
        if not {name, rid} & {*only, *map(canonical_reducer, only)}:  # an alias: its reducer
            warn_unused(
                f"{override.input_line} sets reducers.{index} (reducer {rid!r}), which is not "
                f"among the reducers run ({given} keeps only its own entries), so it changes "
                f"nothing; drop the override or {given}"
            )
