"""``kmdr``: run an experiment, a preset or a sweep, as a plain Hydra app.

    kmdr experiment=bzmd14_orl
    kmdr dataset=coil20 reducer=sign 'r_grid=[10,20,40]' repeats=5 kmeans.n_init=5
    kmdr -m dataset=orl,coil20 'reducer=glob(svd*)'      # any of Hydra's sweeps
    kmdr experiment=bzmd14_orl reducer=sign              # only the preset's sign entries
    kmdr --cfg job experiment=bzmd14_orl                 # print the composed config

The only layer that uses Hydra's global state. :mod:`kmdr.app.entry` is the command (``main``):
Hydra's ``@hydra.main`` on the task, every error one line. :mod:`kmdr.app.compose` registers the
schema in Hydra's ConfigStore, composes and checks a job. :mod:`kmdr.app.task` is the task Hydra
runs for each job, and :func:`~kmdr.app.task.execute` the one function that runs a checked job,
for the command line, ``kmdr.run`` and ``make reproduce``, after :mod:`kmdr.app.protocol` has
checked that the run's protocol is its folder's; it returns a ``JobResult`` (the run's
mean accuracy, for an optimising sweeper). :mod:`kmdr.app.callbacks` are the Hydra callbacks that
follow a job (its summaries and figures, drawn by :mod:`kmdr.app.drawing`) and a multirun (its
closing line, the shared session closed). :mod:`kmdr.app.api` is the same from Python
(``kmdr.run``, ``kmdr.compose``), and :mod:`kmdr.app.listing` the ``kmdr-list`` command.
"""


def __getattr__(name: str):
    """``main`` (the console script) and ``conf_dir``, imported on first use: composing a config
    (:func:`kmdr.compose`) loads the app's modules it needs, not the command's run path."""
    if name == "main":
        from kmdr.app.entry import main

        return main
    if name == "conf_dir":
        from kmdr.config.presets import conf_dir

        return conf_dir
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
