"""A generator's parameters, declared once as a dataclass: their names, types and defaults.

A generated dataset (``kind="synthetic"``) declares its parameters as a subclass of
:class:`GeneratorParams`. That one declaration is

- the schema of ``dataset.params`` in a config (:mod:`kmdr.config.schema` registers it, and
  ``conf/dataset/<name>.yaml`` names it in its defaults list), so ``dataset.params.n_samples=...``
  is a typed key;
- the generator's defaults and checks (:meth:`GeneratorParams.checked`), which the generator and
  the config (before any work) both apply;
- the parameters a cell records as its ``dataset_params`` (:meth:`GeneratorParams.recorded`):
  those that differ from their defaults and those declared :attr:`~GeneratorParams.ALWAYS_RECORDED`
  (the seed, the draw the data is). So a config that spells out a default records the same cell
  as one that leaves it out; the data's fingerprint fills in every default either way.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["GeneratorParams", "float_param", "int_param"]


def int_param(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"parameter {name!r} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def float_param(name: str, value, low: float, high: float = float("inf"), *, open_low=True):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    ok = ok and abs(float(value)) != float("inf") and value == value  # finite
    ok = ok and (value > low if open_low else value >= low) and value <= high
    if not ok:
        bound = f"> {low}" if open_low else f">= {low}"
        raise ValueError(
            f"parameter {name!r} must be a number {bound} and <= {high}, got {value!r}"
        )
    return float(value)


class GeneratorParams:
    """Base of a generator's parameter dataclass (see the module docstring).

    A subclass is a ``@dataclass`` whose fields (``int`` or ``float``, each with its default) are
    the parameters, and whose :meth:`_check` checks and normalizes them in place (ints as int,
    floats as float), raising a one-line ValueError naming the parameter.
    """

    #: Recorded in a cell's ``dataset_params`` even at their default.
    ALWAYS_RECORDED: ClassVar[tuple[str, ...]] = ("seed",)

    def _check(self) -> None:
        raise NotImplementedError

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every parameter and its default, in declaration order."""
        return dataclasses.asdict(cls())

    @classmethod
    def checked(cls, params: Mapping[str, Any]):
        """An instance holding ``params`` over the defaults, checked; a one-line ValueError for
        an unknown name or a bad value."""
        valid = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(params) - set(valid))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; valid: {sorted(valid)}")
        checked = cls(**params)
        checked._check()
        return checked

    def recorded(self) -> dict[str, Any]:
        """The parameters a cell records: those not at their default, and ALWAYS_RECORDED."""
        default = type(self)()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name in self.ALWAYS_RECORDED or getattr(self, f.name) != getattr(default, f.name)
        }
