"""How a configuration problem is told to the user: one line naming the key, what is wrong and
the valid choices (or how to write it).

:class:`ConfigError` is the error of kmdr's own checks (:mod:`kmdr.config.checks`); its message
is already one line. :func:`config_line` words the errors Hydra and OmegaConf raise while
composing a config (an unknown key, a wrong type, an unknown config group option, an override
Hydra's grammar cannot parse, a YAML syntax error) as one line that keeps what the user needs to
fix it; :func:`kmdr._errors.one_line` only flattens a message.
"""

from __future__ import annotations

import os
import re

from kmdr._errors import error_chain
from kmdr._errors import one_line as _flat

__all__ = ["GROUPS", "ConfigError", "config_line"]

#: kmdr's config groups and the plural their error messages use.
GROUPS = {"dataset": "datasets", "reducer": "reducers", "experiment": "experiments"}

# OmegaConf names a key inside a list element without the list's path: say where it is.
_ELEMENT_PATH = {"ReducerConfig": "reducers[]"}


class ConfigError(ValueError):
    """A configuration that cannot run; the message is one line with the valid choices."""


def _field_names(object_type) -> list[str]:
    from dataclasses import fields, is_dataclass

    return [f.name for f in fields(object_type)] if is_dataclass(object_type) else []


def _unparsable(err) -> str:
    """An override Hydra's grammar rejects: which one, why, and how to write it."""
    text = str(getattr(err, "override", "") or "")
    key, eq, value = text.partition("=")
    if eq and not text.isascii() and not any(q in value for q in "'\""):
        return (
            f"cannot parse the override {text!r}: Hydra takes characters outside ASCII only "
            f"inside quotes; write it as '{key}=\"{value}\"'"
        )
    words = text.split()
    if len(words) > 1 and all("=" in w for w in words):  # a command line given as one string
        listed = ", ".join(repr(w) for w in words)
        return (
            f"cannot parse the override {text!r}: it holds {len(words)} overrides; give each as "
            f"an argument (a string) of its own: {listed}"
        )
    lines = [ln for ln in str(err).splitlines() if ln.strip() and not ln.startswith("See https")]
    reason = _flat(lines[-1]) if lines else type(err).__name__
    return (
        f"cannot parse the override {text!r}: {reason}; write overrides as key=value (quote "
        "values with spaces or special characters; see --help)"
    )


def _unusable_plugin(group: str, option: str) -> str | None:
    """Why the plug-in dataset or reducer ``option`` has no option in its group (two plug-ins
    declare its name, or it fails to load), in one line; None if no plug-in of that name is."""
    if group == "dataset":
        from kmdr.datasets import plugin_clash

        return plugin_clash(option)
    if group == "reducer":
        from kmdr.reducers import unusable_plugin

        return unusable_plugin(option)
    return None


def _missing_config(err, text: str, where: str) -> str:
    """A config group option or primary config that does not exist."""
    missing = str(getattr(err, "missing_cfg_file", "") or "")
    group, _, option = missing.partition("/")
    # Chosen on the command line (Hydra names the primary config), not by a preset's file.
    chosen_here = "/" not in where
    if group in GROUPS and "/" not in option and err.options is not None and chosen_here:
        unusable = _unusable_plugin(group, option)
        if unusable is not None:  # two plug-ins declare it, or it fails to load: no option
            return unusable
        options = err.options
        if group == "reducer":  # name the reducers, not every alias that also selects one
            from kmdr.reducers import canonical_reducer

            options = sorted({canonical_reducer(o) for o in options})
        return f"unknown {group} {option!r}; valid {GROUPS[group]}: {', '.join(options)}"
    first = text.split("\n", 1)[0]
    source = re.match(r"In '([^']+)':", first)
    first = first[source.end() :].strip() if source else first.strip()
    if err.options:
        return f"{first}{where}; available: {', '.join(err.options)}"
    return _flat(first + where)


# Hydra's messages that need the fix said, by what they start with.
_FOLDER_MISSING = re.compile(r"Additional config directory '(?P<path>[^']*)' not found")
_SWEEP_UNSUPPORTED = re.compile(r"\w+ does not support sweep type : INTERVAL_SWEEP")


def _hydra_message(text: str) -> str | None:
    """Hydra's own one-line errors that need the fix said, or None."""
    missing = _FOLDER_MISSING.search(text)
    if missing:
        path = missing.group("path")
        what = "is a file, not a folder" if os.path.isfile(path) else "does not exist"
        return (
            f"-cd {path}: the config folder {what}; give the folder that holds your dataset/, "
            "reducer/ and experiment/ configs"
        )
    if _SWEEP_UNSUPPORTED.search(text):
        return (
            "interval sweeps need a sweeper plugin (hydra/sweeper=optuna, with kmdr[optuna]); "
            "give a list of values (a,b,c) or range(start,stop,step)"
        )
    return None


#: The config groups a run chooses an option of (``reducer=sign``) that are no key of its config,
#: and how to set what a dotted key under them (``reducer.params.eps=0.5``) meant to set.
_OPTION_GROUPS = {
    "reducer": "reducer=<name> chooses the run's reducer; set one of its parameters with "
    "+reducers.0.params.<parameter>=<value> (0: its place in the run's reducers)",
    "experiment": "experiment=<name> chooses a preset, whose keys are the run's own; give one "
    "without the prefix (repeats=5, not experiment.repeats=5)",
}


def config_line(err: BaseException) -> str:
    """One line for a Hydra or OmegaConf error: the key, what is wrong, the valid choices.

    Hydra wraps OmegaConf's error (which carries ``full_key`` and ``object_type``) in its own
    multi-line message, naming the config file (``In 'experiment/x': ...``) when the value came
    from one; both are kept, the rest (search path, object types) is dropped.
    """
    from hydra.errors import MissingConfigException, OverrideParseException
    from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

    if isinstance(err, ConfigError):
        return _flat(err)
    if isinstance(err, OverrideParseException):
        return _unparsable(err)
    text = str(err)
    known = _hydra_message(text)
    if known is not None:
        return known
    source = re.match(r"In '([^']+)':", text)
    where = f" (in {source.group(1)}.yaml)" if source else ""
    if isinstance(err, MissingConfigException):
        return _missing_config(err, text, where)
    inner = next((e for e in error_chain(err) if isinstance(e, OmegaConfBaseException)), None)
    if inner is None:
        return _flat(text)
    key = str(getattr(inner, "full_key", None) or getattr(inner, "key", None) or "")
    object_type = getattr(inner, "object_type", None)
    if key and "." not in key and object_type is not None:
        prefix = _ELEMENT_PATH.get(object_type.__name__)
        key = f"{prefix}.{key}" if prefix else key
    msg = str(getattr(inner, "msg", None) or inner).split("\n", 1)[0].strip()
    if isinstance(inner, ConfigKeyError | ConfigAttributeError) and key:
        valid = _field_names(object_type)
        if valid and key in _OPTION_GROUPS:  # reducer.params.eps=...: a group, not a key
            return f"unknown config key '{key}'{where}: {_OPTION_GROUPS[key]}"
        if valid:
            parent = key.rpartition(".")[0]
            scope = f" of {parent}" if parent else ""
            return f"unknown config key '{key}'{where}; valid keys{scope}: {', '.join(valid)}"
        # A free-form mapping (dataset.params, quick_grid): new keys are added with '+'.
        return f"unknown config key '{key}'{where}; to add a key to a mapping use +{key}=..."
    if key and "is not a ListConfig, list or tuple" in msg:
        # a scalar where a list goes: most often a sweep written as a list (-m r_grid=10,20)
        return (
            f"{key} takes a list, got one value{where}: write {key}=[10,20] (quoted in a shell: "
            f"'{key}=[10,20]'); to sweep over lists with -m, give each as a list: "
            f"'{key}=[10],[20]'"
        )
    if key:
        return f"{key}: {msg}{where}"
    return _flat(f"{msg}{where}")
