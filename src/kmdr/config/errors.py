"""The error of kmdr's own checks: :class:`ConfigError`, whose message is one line naming the
setting, what is wrong and the fix. Hydra's and OmegaConf's errors are theirs, as Hydra words
them."""

from __future__ import annotations

import warnings

from kmdr._errors import one_line


class ConfigError(ValueError):
    """A configuration that cannot run; the message is one line with the valid choices."""


def config_line(err: BaseException) -> str:
    """``err``'s message on one line (a library's multi-line message flattened, not re-worded)."""
    return one_line(err)


def warn_unused(warning: str | Warning) -> None:
    """A setting given that changes nothing: one warning line (attributed to no source file, so
    no source line is printed under it), and the run goes on, as scikit-learn warns."""
    category = type(warning) if isinstance(warning, Warning) else UserWarning
    warnings.warn_explicit(warning, category, filename="kmdr", lineno=0)
