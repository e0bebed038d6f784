"""Hydra's override grammar, read in one place, with Hydra's own parser
(:class:`hydra.core.override_parser.overrides_parser.OverridesParser`): what key an override
sets, whether it is a sweep, and the one warning a composed job's overrides may give: an
override the run does not read changes nothing (:func:`check_unread`). A key given twice keeps
the last value, as in any Hydra app; what Hydra's grammar refuses, Hydra reports.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping

from kmdr.config.errors import warn_unused

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


def _entry_ids(override, path: list[str], entries) -> set[str]:
    """The ids of the reducer entries an override sets: the one it names
    (``reducers.leverage.params.eps=0.5``, an entry of ``entries``, the composed ones) or those
    a whole mapping gives (``+reducers={mine: {...}}``); none for another setting, a deletion
    (``~reducers``) or a sweep."""
    if path[0] != "reducers" or override.is_delete() or override.is_sweep_override():
        return set()
    if len(path) > 1:
        return {path[1]} if path[1] in entries else set()
    value = override.value()
    return {str(i) for i in value} if isinstance(value, Mapping) else set()


class UnreadSetting(UserWarning):
    """An override the run does not read (:func:`check_unread`): ``override`` as given, the
    ``setting`` it sets, the run's ``kind``, and ``why`` it is not read."""

    def __init__(self, override: str, setting: str, kind: str, why: str):
        super().__init__(
            f"{override} sets {setting}, which {why}, so it changes nothing; drop the override"
        )
        self.override, self.setting, self.kind, self.why = override, setting, kind, why


def check_unread(overrides, experiment, *, quick_grid: Mapping | None = None, entries=()) -> None:
    """Every override of ``overrides`` the run of ``experiment`` does not read changes nothing:
    one :class:`UnreadSetting` line each, saying why. A setting is read when the run's kind reads
    it (its declaration, :func:`kmdr.config.kinds.kind_reads`; ``experiment=bmd09_fig1
    reducer=sign`` draws with ``leverage.reducer``), ``quick=true`` does not replace it with the
    experiment's reduced grid (``quick_grid``: merged in this run, or None), and the reducer
    entry it sets is run (``entries``: the composed config's entries, before ``reducer=<name>``
    filtered them). The run's objects keep the setting's default, as its record does."""
    from dataclasses import fields

    from omegaconf import OmegaConf

    from kmdr.config.kinds import ALWAYS_READ, kind_reads

    kind, reads = experiment.kind, kind_reads(experiment.kind, experiment)
    settings = {f.name for f in fields(experiment)} - {*ALWAYS_READ}
    run = {red.id for red in experiment.reducers}
    grid = OmegaConf.create(dict(quick_grid or {}))
    for override in parse(overrides):
        path = key(override).split("@")[0].split(".")
        path[0] = _SETTING_OF_KEY.get(path[0], path[0])
        setting, given = path[0], ".".join(path)
        replaced = OmegaConf.select(grid, given, default=None)
        if reads is not None and setting in settings - reads:
            why = f"kind={kind} does not read (it reads {', '.join(sorted(reads & settings))})"
        elif replaced is not None:
            shown = OmegaConf.to_container(replaced) if OmegaConf.is_config(replaced) else replaced
            why = f"quick=true replaces with the experiment's reduced grid ({given}={shown})"
        elif dropped := sorted(_entry_ids(override, path, entries) - run):
            setting = ", ".join(f"reducers.{i}" for i in dropped)
            why = f"{'is' if len(dropped) == 1 else 'are'} not among the reducers run "
            why += f"({', '.join(sorted(run))})"
        else:
            continue
        warn_unused(UnreadSetting(override.input_line, setting, kind, why))
