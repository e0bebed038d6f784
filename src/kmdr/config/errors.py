"""The error of kmdr's own checks: :class:`ConfigError`, whose message is one line naming the
setting, what is wrong and the fix. Hydra's and OmegaConf's errors are theirs, as Hydra words
them."""

from __future__ import annotations

from kmdr._errors import one_line

__all__ = ["ConfigError", "config_line"]


class ConfigError(ValueError):
    """A configuration that cannot run; the message is one line with the valid choices."""


def config_line(err: BaseException) -> str:
    """``err``'s message on one line (a library's multi-line message flattened, not re-worded)."""
    return one_line(err)
