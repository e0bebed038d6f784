"""The suite's case tables: one row per message a user can meet, with why it comes and the fix.

A test of refusals or warnings takes its rows from a table built with :func:`case` and asserts the
row's ``says`` (the part of kmdr's message, or Hydra's, that the user reads). Each row carries an
``error`` marker holding the same text; ``scripts/errors_guide.py`` collects those markers into
``docs/errors.md``, grouped by what the user was doing, so the guide lists exactly the messages the
suite checks::

    @pytest.mark.parametrize(("overrides", "says"), [
        case(["r_grid=[]"], says="r_grid must be a non-empty list", doing="configure",
             cause="an empty r-grid leaves no cell to run", fix="give at least one r: r_grid=[10]"),
    ])
    def test_refused(overrides, says):
        with pytest.raises(kmdr.ConfigError, match=re.escape(says)):
            kmdr.compose(*overrides)
"""

from __future__ import annotations

import pytest

# What the user was doing when the message came: the guide's sections, in this order.
DOING = {
    "configure": "Configuring a run (the command line, kmdr.compose, kmdr.run's arguments)",
    "run": "Running it (workers, backends, time limits, interruptions, the results folder)",
    "data": "Getting the data (downloads, the mirror, files on disk)",
    "read": "Reading, comparing and reporting results",
    "plugin": "Writing or installing a plug-in",
}


def case(*values, says: str, doing: str, cause: str, fix: str, warning: bool = False, id=None):
    """One row of a case table: the test's own ``values``, then ``says``.

    ``says`` is what the test asserts the user reads; ``cause`` and ``fix`` are what the guide
    tells them; ``warning`` marks a message that warns (the run goes on) rather than refuses.
    """
    if doing not in DOING:
        raise ValueError(f"doing={doing!r} is not one of {sorted(DOING)}")
    for field, text in (("says", says), ("cause", cause), ("fix", fix)):
        if not text.strip():
            raise ValueError(f"a case needs a {field}")
    mark = pytest.mark.error(says=says, doing=doing, cause=cause, fix=fix, warning=warning)
    return pytest.param(*values, says, id=id, marks=mark)


# Messages every plug-in registry gives (datasets, reducers, papers and their parts), checked by
# the tests of each: one entry in the guide, whichever test meets it (``case(..., **SHADOWED)``).
SHADOWED = dict(
    says="is ignored: the built-in",
    doing="plugin",
    cause="an installed plug-in declares a name a built-in of kmdr already has (a dataset, "
    "reducer, paper or figure style); the built-in keeps the name and the plug-in's is not used",
    fix="rename the plug-in's entry point (or its paper's declaration) and reinstall it",
    warning=True,
)
DOES_NOT_IMPORT = dict(
    says="failed to import (ModuleNotFoundError",
    doing="plugin",
    cause="an installed plug-in's module (the one its entry point names) needs a module that is "
    "not installed; that plug-in is unavailable, the others load",
    fix="install what the message names, or reinstall the plug-in, or uninstall it "
    "(`python -c 'import MODULE'` shows the whole error)",
)
