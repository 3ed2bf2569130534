# The two commands of the README: `make serve` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: serve test bench install

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

install: $(VENV)/.installed

serve: $(VENV)/.installed
	$(VENV)/bin/battlehall serve $(ARGS)

test: $(VENV)/.installed
	$(PY) -m pytest -q $(ARGS)

bench: $(VENV)/.installed
	$(PY) bench/engine_throughput.py
	$(PY) bench/ack_latency.py
