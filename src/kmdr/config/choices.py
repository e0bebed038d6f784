"""The closed sets of values a setting takes (a backend, an aggregation, a verbosity...), as
enums whose members are their own names."""

from __future__ import annotations

from enum import Enum


# str mixins: a value compares equal to its name ("loky" == Backend.loky) and json-dumps as it.
class Backend(str, Enum):
    """joblib backends the runner supports; ``sequential`` runs in the main process."""

    loky = "loky"
    threading = "threading"
    multiprocessing = "multiprocessing"
    dask = "dask"
    ray = "ray"
    sequential = "sequential"


class Aggregation(str, Enum):
    """How a summary combines repetitions: the mean (bzmd14, lst17) or the best F (bmd09)."""

    mean = "mean"
    best = "best"


class LeverageReducer(str, Enum):
    """The sampler behind ``kind: leverage_scores`` (bmd09 Figure 1)."""

    leverage = "leverage"
    leverage_approx = "leverage_approx"


class Verbosity(str, Enum):
    """How much a run says (:mod:`kmdr._log`): quiet (warnings and errors only), normal, or
    verbose (every library warning and the backends' logs too)."""

    quiet = "quiet"
    normal = "normal"
    verbose = "verbose"


class Reproduce(str, Enum):
    """What ``make reproduce`` (``scripts/reproduce.py``) does with a preset."""

    paper = "paper"
    diagnostic = "diagnostic"
    none = "none"


def values_of(enum) -> tuple[str, ...]:
    return tuple(member.value for member in enum)
