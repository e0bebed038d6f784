# kmdr: every target installs what it needs itself (a virtual environment in .venv).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
RESULTS ?= results

# A local folder that mirrors the data files (copied from, hash still verified) instead of
# downloading. Beside a checkout of this project the workplace keeps one in ../shared/datasets.
KMDR_DATA_MIRROR ?= $(if $(wildcard ../shared/datasets/SOURCES.md),$(abspath ../shared/datasets),)
export KMDR_DATA_MIRROR

.PHONY: install test lint bench data reproduce reproduce-quick figures report clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: install
	$(PY) -m pytest -q

lint: install
	$(VENV)/bin/ruff check src tests scripts
	$(VENV)/bin/ruff format --check src tests scripts

bench: install
	$(PY) scripts/bench_core.py
	$(PY) scripts/bench_runner.py

data: install
	$(VENV)/bin/kmdr-data --allow-missing

# The main job: fetch the data, run every paper experiment whose data is available, redraw the
# figures and write the report, all under $(RESULTS)/.
reproduce: install data
	$(PY) scripts/reproduce.py --results $(RESULTS)
	$(PY) -m kmdr.report.theory --results $(RESULTS)
	$(MAKE) figures report RESULTS=$(RESULTS)

# A reduced grid of the same experiments, in a few minutes, into results-quick/ (not committed).
reproduce-quick: install
	$(PY) scripts/reproduce.py --quick --results results-quick
	$(PY) -m kmdr.report.theory --quick --results results-quick
	$(MAKE) figures report RESULTS=results-quick

figures: install
	$(VENV)/bin/kmdr-figures $(RESULTS)

report: install
	$(VENV)/bin/kmdr-report $(RESULTS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache results-quick
