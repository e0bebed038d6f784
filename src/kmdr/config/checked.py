"""The checked dataclass every typed config object is: its fields validated when it is built,
against a constraint table declared beside them (scikit-learn's ``Interval``/``StrOptions``, whose
messages are generated), then sealed, its mappings read-only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from numbers import Integral, Real
from typing import ClassVar

from sklearn.utils._param_validation import Interval

from kmdr.config.errors import ConfigError

__all__ = ["Checked", "FrozenMapping", "check_constraints", "frozen", "integers", "seconds"]


def integers(low: int | None = 1, high: int | None = None):
    """The integers from ``low`` to ``high`` (None: unbounded), both included."""
    closed = {(True, True): "both", (True, False): "left", (False, True): "right"}
    return Interval(Integral, low, high, closed=closed[low is not None, high is not None])


def seconds():
    """A positive number of seconds, finite: an infinite limit is no limit (null says that)."""
    return Interval(Real, 0, None, closed="neither")


class FrozenMapping(dict):
    """A checked object's mapping (a reducer's or a dataset's params, ``backend_params``): read as
    a dict (JSON, ``**params``, pickling), never changed in place after its object's check."""

    def _refuse(self, *args, **kwargs):
        raise TypeError(
            "a checked kmdr config's mapping cannot be changed: use dataclasses.replace"
        )

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __reduce__(self):
        return (type(self), (dict(self),))


def frozen(value, field: bool = True):
    """``value`` with its mappings made read-only (a :class:`FrozenMapping`), and a field's list a
    tuple. A list inside a mapping stays a list: a parameter's value is recorded and compared
    (with a run record's, read back from JSON) as given."""
    if isinstance(value, Mapping):
        return FrozenMapping({k: frozen(v, field=False) for k, v in value.items()})
    if field and isinstance(value, list):
        return tuple(value)
    return value


class Checked:
    """A dataclass whose fields are checked when it is constructed, against its constraint table
    (``_constraints``: scikit-learn's :func:`validate_parameter_constraints`, which words the
    message) and its :meth:`validate` for what one field alone cannot say, then sealed: no field
    is assigned after, and its mappings are read-only (``dataclasses.replace`` makes a checked
    copy). Not a frozen dataclass: Hydra composes a config by assigning into the schema's nodes,
    which a frozen dataclass's config refuses."""

    _constraints: ClassVar[dict] = {}
    _prefix: ClassVar[str] = ""

    def __setattr__(self, name: str, value) -> None:
        if self.__dict__.get("_sealed"):
            raise FrozenInstanceError(
                f"cannot assign to field {name!r} of a checked {type(self).__name__}; use "
                "dataclasses.replace, which checks the copy"
            )
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        check_constraints(self._constraints, vars(self), self._caller())
        for name, value in list(vars(self).items()):  # enums as their values
            object.__setattr__(self, name, frozen(getattr(value, "value", value)))
        self.validate()
        object.__setattr__(self, "_sealed", True)

    def _caller(self) -> str:
        """Where the object sits in a run's config, for the messages."""
        return self._prefix or type(self).__name__

    def validate(self) -> None:
        """What the constraint table cannot say (a field against another); normalizes values."""


def check_constraints(constraints: dict, values: dict, caller: str) -> None:
    """``values`` against ``constraints`` (scikit-learn's tables), a one-line ConfigError."""
    from sklearn.utils._param_validation import (
        InvalidParameterError,
        validate_parameter_constraints,
    )

    try:
        validate_parameter_constraints(
            constraints, {k: values[k] for k in constraints}, caller_name=caller
        )
    except InvalidParameterError as err:
        raise ConfigError(str(err)) from None
