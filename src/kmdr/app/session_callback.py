"""The Hydra callback that closes the session a process's jobs share.

Every job of ``kmdr`` runs in this process's session (:func:`kmdr.engine.session.default_session`),
so the jobs of a multirun that one process runs (the basic launcher runs them all; the joblib
launcher's workers each run several) reuse its warm workers and loaded data instead of paying
start-up per job. This callback ends that session when the run or the multirun ends, so its
workers and any dask LocalCluster are gone when ``kmdr`` returns. Registered in
``conf/config.yaml`` under ``hydra.callbacks``.
"""

from __future__ import annotations

from typing import Any

from hydra.experimental.callback import Callback


class SessionCallback(Callback):
    """Close the shared session at the end of a run or a multirun."""

    def on_run_end(self, config: Any, **kwargs: Any) -> None:
        from kmdr.engine.session import close_default_session

        close_default_session()

    def on_multirun_end(self, config: Any, **kwargs: Any) -> None:
        from kmdr.engine.session import close_default_session

        close_default_session()
