# `make demo` and `make test` each work as the first command on a fresh machine:
# they create .venv and install the project into it when missing or stale.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mycelium-companion demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/rules.py
	$(BIN)/python bench/rfid.py
	$(BIN)/python bench/vision.py
	$(BIN)/python bench/table.py
	$(BIN)/python bench/dashboard.py
	$(BIN)/python bench/gamelog.py

clean:
	rm -rf $(VENV) build *.egg-info
