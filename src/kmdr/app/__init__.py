"""``kmdr``: run an experiment, a preset or a sweep, as a plain Hydra app.

    kmdr experiment=bzmd14_orl
    kmdr dataset=coil20 reducer=sign 'r_grid=[10,20,40]' repeats=5 kmeans.n_init=5
    kmdr -m dataset=orl,coil20 'reducer=glob(svd*)'      # any of Hydra's sweeps
    kmdr experiment=bzmd14_orl reducer=sign              # only the preset's sign entries
    kmdr --cfg job experiment=bzmd14_orl                 # print the composed config

:mod:`kmdr.app.entry` is the command (``main``): Hydra's ``@hydra.main`` on the task, on the
typed schema of :mod:`kmdr.config.schema`, every error one line. :mod:`kmdr.app.task` is the task
Hydra runs for each job: it checks the composed config once and runs it, and returns a
``JobResult`` (the run's mean accuracy, for an optimising sweeper). :mod:`kmdr.app.callbacks` are
the Hydra callbacks that follow a job (its summaries and figures, drawn by
:mod:`kmdr.app.drawing`) and a multirun (its closing line). :mod:`kmdr.app.argv` is what kmdr
reads from the command line itself (``--version``, two misplaced flags).
:mod:`kmdr.app.api` is the same task from Python (``kmdr.run``), returning the run's cells.
"""

from kmdr.app.entry import main
from kmdr.config.presets import CONF_ENV, conf_dir

__all__ = ["CONF_ENV", "conf_dir", "main"]
