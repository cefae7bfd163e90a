# The two quick-start commands live here: `make demo` and `make test`.
# Both create the virtual environment (.venv) on first use from the PyPI wheels.

VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# Every ROS process started from here keeps DDS discovery on loopback.
# The product itself keeps the ROS defaults for real robots.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: demo test bench env clean

$(STAMP): requirements.txt requirements-test.txt setup.py
	@echo "==> creating $(VENV) (first run only; installs the ROS 2 wheels from PyPI)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $@

env: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/bt-executive demo $(ARGS)

test: $(STAMP)
	$(PY) -m pytest $(ARGS)

bench: $(STAMP)
	$(PY) bench/run.py $(ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
