"""Experiment kinds: what a run computes once its data is loaded and checked.

A kind is a small object with a ``name`` and ``run(ctx)`` (``ctx`` is the runner's
:class:`~kmdr.run.runner.RunContext`); ``writes_cells`` says whether it produces cells
(and so takes part in ``dry_run`` planning through ``plan(ctx)``). Kinds are looked up by the
config's ``kind`` key. The built-in ones are imported only when used, so no module of a kind
imports the runner and the runner imports no kind at module level.
"""

from __future__ import annotations

import importlib

__all__ = ["KINDS", "get_kind"]

#: The built-in kinds: name -> "module:attribute" of the kind object.
KINDS: dict[str, str] = {
    "cells": "kmdr.run.sweep:CELLS",
    "leverage_scores": "kmdr.papers.bmd09.leverage_scores:LEVERAGE_SCORES",
    "sampling_lemma": "kmdr.papers.bzmd14.sampling_lemma:SAMPLING_LEMMA",
}


def get_kind(name: str):
    """The kind object registered as ``name``."""
    try:
        target = KINDS[name]
    except KeyError:
        raise ValueError(
            f"unknown experiment kind {name!r}; valid kinds: {', '.join(KINDS)}"
        ) from None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
