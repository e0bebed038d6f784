"""What kmdr knows about a reducer, declared in one place: :class:`ReducerEntry`.

Everything a reader needs about a reducer (its class, the label figures and tables show, the
parameters its name pins, the paper it comes from, its line style, the other names a config may
use for it, what its time covers, whether it is the no-reduction baseline) is a field of its
entry. Readers look the entry up by the registry name (the ``reducer_name`` column of a result),
never by the spelling of a label. This module imports nothing heavy: declaring and reading
entries costs no scikit-learn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kmdr.reducers._plans import ReducerPlan

__all__ = ["LineStyle", "ReducerEntry"]


@dataclass(frozen=True)
class LineStyle:
    """How a reducer's curve is drawn: a matplotlib color, marker and line style."""

    color: str
    marker: str
    linestyle: str = "-"


@dataclass(frozen=True)
class ReducerEntry:
    """One reducer, declared once.

    Attributes
    ----------
    cls : type or str
        The reducer class (a :class:`~kmdr.reducers.BaseReducer` subclass), or ``"module:Class"``
        imported on first use (so that listing names and facts imports no reducer module).
    label : str
        The name figures and tables show.
    fixed : Mapping
        Constructor parameters this name pins (e.g. ``svd="approximate"``); they cannot be
        overridden through :func:`~kmdr.reducers.make_reducer`.
    paper : str
        Short reference to where the method comes from (``"bzmd14 Alg. 2"``); for methods from
        elsewhere, author and year. Empty for a plug-in that gives none.
    style : LineStyle or None
        Its color, marker and line style in figures; None lets the figures pick a free one.
    aliases : tuple of str
        Other names a config may use for it (each means this entry; none may be another
        reducer's name).
    time_includes : str
        What its ``reduce_seconds`` covers (the report's timing table); empty when not described.
    baseline : bool
        Whether it is the no-reduction baseline (k-means on all features), drawn as a reference
        line and compared against.
    plan : ReducerPlan or None
        What planning a sweep needs from its class (shared key, determinism, compat_version):
        the same object as the class's ``plan``, so a dry run reads it without importing the
        class. None: ask the class (imported, and given the loaded data).
    """

    cls: type | str
    label: str
    fixed: Mapping = field(default_factory=dict)
    paper: str = ""
    style: LineStyle | None = None
    aliases: tuple[str, ...] = ()
    time_includes: str = ""
    baseline: bool = False
    plan: ReducerPlan | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "aliases", tuple(self.aliases))
        if not isinstance(self.label, str) or not self.label:
            raise ValueError(f"ReducerEntry label={self.label!r} is invalid: give a non-empty str")
        if isinstance(self.cls, str) and ":" not in self.cls:
            raise ValueError(
                f"ReducerEntry cls={self.cls!r} is invalid: give the class or 'module:Class'"
            )
        if self.plan is not None and not isinstance(self.plan, ReducerPlan):
            raise TypeError(f"ReducerEntry plan={self.plan!r} is invalid: give a ReducerPlan")
        if self.style is not None and not isinstance(self.style, LineStyle):
            raise TypeError(
                f"ReducerEntry style={self.style!r} is invalid: give a kmdr.reducers.LineStyle"
            )
