# `make demo` and `make test` each work as the first command on a fresh machine:
# they create .venv and install the project into it when missing or stale.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(if $(wildcard $(VENV)/.pi-installed),--system-site-packages) $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mycelium-companion demo

# two workers, one per core; a test file stays on one worker (its module fixtures are built
# once), and files go out in collection order, the longest first (tests/run_order.py), so the
# run does not end with one worker alone on a long file
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder

bench: $(STAMP)
	$(BIN)/python bench/rules.py
	$(BIN)/python bench/rfid.py
	$(BIN)/python bench/firmware_sim.py
	$(BIN)/python bench/vision.py
	$(BIN)/python bench/table.py
	$(BIN)/python bench/dashboard.py
	$(BIN)/python bench/gamelog.py

clean:
	rm -rf $(VENV) build *.egg-info

# The Raspberry Pi appliance (README, "Setting up a real table"): apt packages, a venv that
# sees the system's picamera2, the reader's udev rule and the boot service. Safe to re-run.
.PHONY: pi pi-uninstall
pi:
	/usr/bin/python3 scripts/install-pi

pi-uninstall:
	/usr/bin/python3 scripts/install-pi --uninstall
