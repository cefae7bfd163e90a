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

.PHONY: demo test fuzz bench soak crash-soak env browser screenshots clean bytecode

# bt_executive_interfaces (the ExecuteTree action, ListTrees, the typed status topics) is
# generated from its definitions with the wheels' rosidl generators and the system's C
# compiler, and installed into the venv (tools/install_interfaces.py); without a compiler
# it says why and the executive runs without them. A changed definition rebuilds it.
INTERFACES := $(wildcard bt_executive_interfaces/msg/*.msg bt_executive_interfaces/srv/*.srv \
	bt_executive_interfaces/action/*.action) bt_executive_interfaces/package.xml \
	tools/build_interfaces.py tools/install_interfaces.py

# The wheels go in with uv (from PyPI, into the venv first): the same packages as pip
# installs, fetched and unpacked in parallel and byte-compiled on both cores; 11 s on a
# cold cache against pip's 42-55 s (2026-12-03). Where uv cannot be had, pip does it.
UV := $(VENV)/bin/uv
$(STAMP): requirements.txt requirements-test.txt setup.py $(INTERFACES)
	@echo "==> creating $(VENV) (first run only; installs the ROS 2 wheels from PyPI)"
	$(PYTHON) -m venv $(VENV)
	@if $(PY) -m pip install --quiet --disable-pip-version-check uv && \
	  $(UV) pip install --quiet --python $(PY) --compile-bytecode -r requirements-test.txt && \
	  $(UV) pip install --quiet --python $(PY) --no-deps -e . ; then :; else \
	  echo "==> uv did not install the wheels: pip installs them"; \
	  $(PY) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt && \
	  $(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e . ; fi
	$(PY) tools/install_interfaces.py
	@touch $@

env: $(STAMP) browser

# The browser tests (test/ros/test_webview.py) drive headless Chromium and are skipped
# without it. As root (CI containers) install the distribution's chromium when missing;
# otherwise only say so. Never fails the build.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "==> installing chromium for the browser tests (apt-get, first run only)"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq chromium >/dev/null; } || \
	      echo "==> could not install chromium: the browser tests will be skipped"; \
	  else \
	    echo "==> chromium not found: the browser tests will be skipped (apt-get install chromium)"; \
	  fi; } || true

# The repository's bytecode, written before every command that starts Python processes
# (make exports PYTHONDONTWRITEBYTECODE, and a CI may set it too): without it each
# executive, sim, peer and CLI process compiles bt_executive again, 0.2 s of CPU each;
# make test starts hundreds (20 % of their CPU time). Stale files are rewritten.
# (bench/run.py writes the package's itself, also when run without make.)
bytecode: $(STAMP)
	@$(PY) -m compileall -q -j 0 bt_executive test bench tools launch >/dev/null || true

demo: $(STAMP) bytecode
	$(VENV)/bin/bt-executive demo $(ARGS)

# The suite runs on JOBS parallel workers (pytest-xdist), each in a ROS domain of its own
# (test/conftest.py), in a random order (pytest-randomly) whose seed the header prints
# ("Using --randomly-seed=N"): ARGS='--randomly-seed=N' repeats the order,
# ARGS='-p no:randomly' keeps the file order, JOBS=0 runs in this one process.
# Six workers on 2 cores: most tests wait on processes they started, so four left a
# third of the CPU idle (159 % of 200); six used 175 % and took 360 s against 394-407 s.
JOBS ?= 6
# Each worker imports every test module, and pytest rewrites their asserts on import;
# with PYTHONDONTWRITEBYTECODE it cannot keep the result, so all JOBS workers did it
# again: 6.5 s of CPU each to collect, 2 s with the rewritten modules cached. One
# collection first, allowed to write them, leaves them for the workers (stale files are
# rewritten; a collection error shows in the run itself).
test: $(STAMP) browser bytecode
	@env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest --collect-only -q -p no:randomly \
	  -p no:cacheprovider >/dev/null 2>&1 || true
	$(PY) -m pytest -n $(JOBS) --dist worksteal $(ARGS)

bench: $(STAMP)
	$(PY) bench/run.py $(ARGS)

# The patrol on the sim for an hour (ARGS='--minutes 5' for less), then 50 executives
# stopped at once (test/ros/test_exit_storm.py), then the viewer churn at 100 cycles
# (test/ros/test_viewer_churn.py); RELIABILITY.md.
soak: $(STAMP) bytecode
	$(PY) bench/soak.py $(ARGS)
	BT_EXECUTIVE_SOAK=1 $(PY) -m pytest -s test/ros/test_exit_storm.py
	BT_CHURN_CYCLES=100 $(PY) -m pytest -s test/ros/test_viewer_churn.py

# The patrol's executive SIGKILLed at 50 seeded points and respawned (docs/resume.md).
crash-soak: $(STAMP) bytecode
	$(PY) bench/crash_resume.py --kills 50 $(ARGS)

# The fuzz tests searching longer than in make test (CONTRIBUTING.md).
fuzz: $(STAMP) bytecode
	BT_FUZZ_EXAMPLES=25000 BT_FUZZ_COMMANDS=2500 $(PY) -m pytest -n $(JOBS) \
	  test/test_fuzz_loader.py test/test_fuzz_commands.py $(ARGS)

# The web view's pictures in docs/ (graph view of a 500-node tree, search, the fleet page,
# a recorded patrol replayed at a docking, the debugger),
# taken by the headless Chromium tests that check them.
# The README's pictures (docs/*.png), made by the browser tests that check them, run from
# an empty temporary directory: the pages show no folder of this machine (the tests start
# their processes from neutral folders too, and check every page's text before a picture).
screenshots: $(STAMP) browser bytecode
	@dir="$$(mktemp -d)" && cd "$$dir" && \
	  BT_EXECUTIVE_SCREENSHOTS="$(CURDIR)/docs" PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" \
	  "$(abspath $(PY))" -m pytest -q -p no:cacheprovider -c "$(CURDIR)/pytest.ini" \
	  --rootdir "$(CURDIR)" "$(CURDIR)/test/ros/test_webview_graph.py" \
	  "$(CURDIR)/test/ros/test_fleet_view.py" "$(CURDIR)/test/ros/test_replay_demo.py" \
	  "$(CURDIR)/test/ros/test_rqt_widget.py" "$(CURDIR)/test/ros/test_webview_debug.py"; \
	  status=$$?; cd /; rm -rf "$$dir"; exit $$status

clean:
	rm -rf $(VENV) build *.egg-info
	find . -name __pycache__ -prune -exec rm -rf {} +
