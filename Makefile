# kmdr: every target installs what it needs itself (a virtual environment in .venv).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
RESULTS ?= results
# The exact versions every target installs (pip constraints), so that the committed results can be
# regenerated bit for bit; `make lock` rewrites it from pyproject.toml.
LOCK   := requirements/lock.txt
# The extras the project's own targets use (the tests run the dask backend, both launchers and
# the Optuna sweeper; the report writes the site's interactive plots).
EXTRAS := dev,dask,joblib-launcher,slurm,optuna,site,docs

# A local folder that mirrors the data files (copied from, hash still verified) instead of
# downloading. Beside a checkout of this project the workplace keeps one in ../shared/datasets.
KMDR_DATA_MIRROR ?= $(if $(wildcard ../shared/datasets/SOURCES.md),$(abspath ../shared/datasets),)
export KMDR_DATA_MIRROR

.PHONY: install lock test test-fast test-longhaul test-floors lint docs bench bench-scale bench-distributed bench-papers data reproduce reproduce-quick derived figures report clean

install: $(STAMP)

$(STAMP): pyproject.toml $(LOCK)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c $(LOCK) -e '.[$(EXTRAS)]'
	touch $(STAMP)

# Resolve pyproject.toml's ranges afresh in a clean environment and pin what was installed.
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet '.[$(EXTRAS)]'
	{ sed -n '1,/^# (make lock/p' $(LOCK); .lock-venv/bin/pip freeze --all --exclude kmdr --exclude pip; } > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf .lock-venv

# Every test but the long-haul ones (marked `longhaul`: millions of rows, many processes, or
# minutes each), which `make test-longhaul` runs alone; `make test-fast` also leaves out the slow
# ones (marked `slow`: they start a subprocess or send a signal), for the edit-and-check loop. The
# test files are spread over the cores (pytest-xdist, a file's tests in one worker so its module
# fixtures are built once): most slow tests wait on the processes they start, and a file's tests
# share nothing with another's.
PYTEST := -m pytest -q -n auto --dist loadfile
# kmdr's own modules compiled to bytecode once, before the tests: an editable install leaves them
# uncompiled, and where PYTHONDONTWRITEBYTECODE is set (some containers and CI images) each of the
# suite's hundreds of processes would compile them again (a tenth of a subset's time, measured).
COMPILE = $(1) -m compileall -q src >/dev/null
test: install
	$(call COMPILE,$(PY))
	$(PY) $(PYTEST) -m "not longhaul"

test-fast: install
	$(call COMPILE,$(PY))
	$(PY) $(PYTEST) -m "not slow and not longhaul"

# pytest's exit status 5 says that no test was collected: a marker nothing carries (yet) is not a
# failure of the suite.
test-longhaul: install
	$(call COMPILE,$(PY))
	$(PY) $(PYTEST) -m longhaul || test $$? -eq 5

# The declared floors, tested: a separate environment with every direct dependency (and those of
# the extras above) at its pyproject.toml floor, scripts/floors.py writing the `name==floor`
# constraints, then the fast tests and the slow ones marked `floors` (each checks a library's
# behaviour a floor was chosen for). Packages nobody names float to what the floors allow.
FLOORS_VENV ?= .venv-floors
# The docs extra is left out: its floors (Sphinx 7.3 with MyST 3.0, numpydoc 1.7, the theme 0.15)
# do not resolve together, and the site is built with the lock's versions only (make docs).
FLOORS_EXTRAS := dev,dask,joblib-launcher,slurm,optuna,site
test-floors:
	rm -rf $(FLOORS_VENV)
	$(PYTHON) -m venv $(FLOORS_VENV)
	$(FLOORS_VENV)/bin/python -m pip install --quiet --upgrade pip packaging
	$(FLOORS_VENV)/bin/python scripts/floors.py --extras $(FLOORS_EXTRAS) -o $(FLOORS_VENV)/floors.txt
	$(FLOORS_VENV)/bin/python -m pip install --quiet -c $(FLOORS_VENV)/floors.txt -e '.[$(FLOORS_EXTRAS)]'
	$(FLOORS_VENV)/bin/python -m pip freeze --exclude kmdr > $(FLOORS_VENV)/installed.txt
	$(call COMPILE,$(FLOORS_VENV)/bin/python)
	$(FLOORS_VENV)/bin/python $(PYTEST) -m "(not slow or floors) and not longhaul" -p no:cacheprovider

# The documentation site (docs/: the user guide, the API reference from the docstrings, and the
# gallery of examples/, each run at build time) into docs/_build/html, offline, every warning an
# error. tests/docs/test_docs_site.py opens the built site in headless chromium. The examples
# write their runs into temporary folders, which a reader running one by hand keeps to look at;
# the build gives them a temporary folder of its own and removes it after.
DOCS_OUT ?= docs/_build/html
docs: install
	rm -rf $(DOCS_OUT) docs/generated docs/auto_examples
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  TMPDIR="$$tmp" $(PY) -m sphinx -b html -W --keep-going -q docs $(DOCS_OUT)

lint: install
	$(VENV)/bin/ruff check src tests scripts examples docs/conf.py
	$(VENV)/bin/ruff format --check src tests scripts examples docs/conf.py

# The benches' comparison systems (the bench extra: dask-ml), installed beside the project's.
BENCH_STAMP := $(VENV)/.installed-bench
$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -c $(LOCK) -e '.[$(EXTRAS),bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(PY) scripts/bench/bench_core.py
	$(PY) scripts/bench/bench_runner.py
	$(PY) scripts/bench/bench_store.py
	$(PY) scripts/bench/bench_srht_ridge.py
	$(PY) scripts/bench/bench_sparsified.py
	$(PY) scripts/bench/bench_svd.py
	$(PY) scripts/bench/bench_memory.py
	$(PY) scripts/bench/bench_reproduction.py
	$(PY) scripts/bench/bench_startup.py
	$(PY) scripts/bench/bench_dask.py
	$(PY) scripts/bench/bench_overheads.py
	$(PY) scripts/bench/bench_dry_run.py
	$(PY) scripts/bench/bench_coresets.py
	$(PY) scripts/bench/bench_pipelines.py

# sparse_text from 25,000 to 804,414 rows: wall and peak memory per step (generate, reduce, cluster,
# score) and of the whole kmdr command, their exponents in n, into results/bench/ (a quarter hour;
# `.venv/bin/python scripts/bench/bench_scale.py --quick` for a minute or two at smaller n).
bench-scale: install
	$(PY) scripts/bench/bench_scale.py
	$(PY) scripts/bench/bench_tables.py

# One sparse_text cell at 4,000,000 rows (about five times RCV1-v2) from row blocks on a
# LocalCluster of 2 workers limited to 2 GiB each, sparse embedding and sign projection at
# r = 100, beside the same cells at 500,000 rows in one process: wall and peak memory per step and
# per process into results/bench/distributed.csv (about half an hour on 2 cores;
# `.venv/bin/python scripts/bench/bench_distributed.py --quick` for a minute).
bench-distributed: $(BENCH_STAMP)
	$(PY) scripts/bench/bench_distributed.py
	$(PY) scripts/bench/bench_distributed.py --vs-dask-ml
	$(PY) scripts/bench/bench_tables.py

# The benches the papers declare (kmdr.plugins.Paper's benches), e.g. pb17's large-N experiment
# into results/bench/pb17_large_n.csv (about an hour at its default sizes).
bench-papers: install
	$(PY) scripts/paper_steps.py --benches
	$(PY) scripts/bench/bench_tables.py

data: install
	$(VENV)/bin/kmdr-data --allow-missing

# The main job: fetch the data, run every paper experiment whose data is available (each run
# writes its summaries and draws its figures, once) and write the report, all under $(RESULTS)/.
# It ends with one line per experiment comparing the cells it computed with the committed ones
# of the same cell id: those $(RESULTS)/ held before the run, or results/'s when RESULTS is
# another folder (`make reproduce RESULTS=/tmp/check` recomputes and checks every cell).
# `make figures` redraws every experiment folder from its CSVs (e.g. after adding cells by hand).
# A cell that takes longer than CELL_TIME_LIMIT seconds (20 times the slowest committed cell) is
# stopped and named, and the run goes on with the others (cell_time_limit in docs/guide/running.md).
CELL_TIME_LIMIT ?= 3600
reproduce: install data
	$(PY) scripts/reproduce.py --results $(RESULTS) $(if $(filter-out results,$(RESULTS)),--compare-with results) --override cell_time_limit=$(CELL_TIME_LIMIT)
	$(PY) scripts/paper_steps.py --results $(RESULTS)
	$(MAKE) derived RESULTS=$(RESULTS)
	$(MAKE) report RESULTS=$(RESULTS)

# A reduced grid of the same experiments, in a few minutes, into results-quick/ (not committed).
reproduce-quick: install
	$(PY) scripts/reproduce.py --quick --results results-quick
	$(PY) scripts/paper_steps.py --quick --results results-quick
	$(MAKE) derived RESULTS=results-quick
	$(MAKE) report RESULTS=results-quick

# The report's files derived from the cells, which the report reads and does not compute: the
# distortion of every oblivious-map cell's partition and of partitions fixed before its map is
# drawn, with C made again from its seed, into theory/distortion.csv, distortion_fixed.csv and
# .png (about 5 minutes on the committed results, 2 cores at a load of 6), and each experiment's
# 'What to use' fronts, figure and CSV, under what_to_use/ (about 20 s).
derived: install
	$(PY) scripts/distortion.py --results $(RESULTS)
	$(PY) -m kmdr.report.what_to_use $(RESULTS)

figures: install
	$(VENV)/bin/kmdr-figures $(RESULTS)

report: install
	$(VENV)/bin/kmdr-report $(RESULTS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache results-quick docs/_build docs/generated docs/auto_examples
