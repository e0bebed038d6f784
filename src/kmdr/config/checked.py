"""The checked dataclass every typed config object is: its fields validated when it is built,
against a table of attrs validators declared beside them (``ge``, ``in_``, ``instance_of``, whose
messages attrs generates), then sealed, its mappings read-only.

attrs, not scikit-learn's ``Interval``/``StrOptions``: every command builds these objects before
it runs anything, and scikit-learn's validation imports scipy.stats and pandas with it (0.8 s of
a dry run's 1.4 s, and of every ``--help`` and refusal); attrs imports in milliseconds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from numbers import Integral, Real
from types import SimpleNamespace
from typing import ClassVar

from attrs import validators

from kmdr.config.errors import ConfigError


def _not_bool(_, attribute, value) -> None:
    """A bool is an Integral to Python, never a count to kmdr (``repeats=True`` is a slip, which
    the command line's typed config refuses as well)."""
    if isinstance(value, bool):
        raise TypeError(f"'{attribute.name}' must be an integer, not a bool (got {value!r})")


def integers(low: int | None = 1, high: int | None = None, *more):
    """The integers from ``low`` to ``high`` (None: unbounded), both included, a bool none of
    them; ``more``: further validators."""
    bounds = ([validators.ge(low)] if low is not None else []) + (
        [validators.le(high)] if high is not None else []
    )
    return validators.and_(validators.instance_of(Integral), _not_bool, *bounds, *more)


def reals(low: float = 0, *, closed: bool = True):
    """The finite real numbers from ``low`` up (``low`` itself only if ``closed``); NaN is none
    of them."""
    bound = validators.ge(low) if closed else validators.gt(low)
    return validators.and_(validators.instance_of(Real), bound, validators.lt(float("inf")))


def seconds():
    """A positive number of seconds, finite: an infinite limit is no limit (null says that)."""
    return reals(0, closed=False)


def optional(*types):
    """A value of one of ``types``, or None."""
    return validators.optional(validators.instance_of(types))


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
    (``_constraints``: a field's name and its attrs validator, which words the message) and its
    :meth:`validate` for what one field alone cannot say, then sealed: no field is assigned
    after, and its mappings are read-only (``dataclasses.replace`` makes a checked copy). Not a
    frozen dataclass: Hydra composes a config by assigning into the schema's nodes, which a frozen
    dataclass's config refuses."""

    _constraints: ClassVar[dict] = {}
    _prefix: ClassVar[str] = ""  # its key in a run's config ("": its fields are top-level keys)

    def __setattr__(self, name: str, value) -> None:
        if self.__dict__.get("_sealed"):
            raise FrozenInstanceError(
                f"cannot assign to field {name!r} of a checked {type(self).__name__}; use "
                "dataclasses.replace, which checks the copy"
            )
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        check_constraints(self._constraints, vars(self), self._path())
        for name, value in list(vars(self).items()):  # enums as their values
            object.__setattr__(self, name, frozen(getattr(value, "value", value)))
        self.validate()
        object.__setattr__(self, "_sealed", True)

    def _path(self) -> str:
        """Where the object sits in a run's config, for the messages ("": at its top)."""
        return self._prefix

    def validate(self) -> None:
        """What the constraint table cannot say (a field against another); normalizes values."""


def check_constraints(constraints: dict, values: dict, path: str = "") -> None:
    """``values`` against ``constraints`` (a field's name and its attrs validator), a one-line
    ConfigError naming the setting as the command line does: ``kmeans.n_init`` (``path``
    kmeans), ``repeats`` (a key at the top of the config)."""
    for name, check in constraints.items():
        # an attrs validator reads only the attribute's name, for its message
        setting = SimpleNamespace(name=f"{path}.{name}" if path else name)
        try:
            check(None, setting, values[name])
        except (TypeError, ValueError) as err:
            raise ConfigError(str(err.args[0])) from None
