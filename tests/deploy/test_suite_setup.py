"""`make test` from a fresh clone does all the set-up the suite needs, as CI does: on a
machine without haproxy it failed (the deploy tests, and the several-nodes tests that
share their fixture), while `.ci/run` passed because it installed haproxy first."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: What the suite runs of Debian's, and where the tests look for it.
PACKAGES = {"chromium": "/usr/bin/chromium", "haproxy": "/usr/sbin/haproxy"}


def dry_run(*targets: str) -> list[str]:
    """What make would run for `targets` on a machine that has none of them (-B: every
    target out of date; -n: print, run nothing)."""
    done = subprocess.run(["make", "-n", "-B", *targets], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_make_test_installs_the_debian_packages_before_the_suite():
    commands = dry_run("test")
    suite = next(i for i, line in enumerate(commands) if "-m pytest" in line)
    for package in PACKAGES:
        installs = [i for i, line in enumerate(commands)
                    if re.search(rf"apt-get install .*\b{package}\b", line)]
        assert installs and installs[0] < suite, (package, commands)


def test_each_package_is_installed_only_when_missing():
    """Each install is the rule of the file the package provides: present, nothing runs."""
    database = subprocess.run(["make", "-p", "-n", "-q", "test"], cwd=ROOT, capture_output=True, text=True,
                              timeout=60).stdout
    prerequisites = re.search(r"^test: (.*)$", database, re.M).group(1).split()
    for package, path in PACKAGES.items():
        assert path in prerequisites, (package, prerequisites)
        assert any("apt-get install" in line and package in line for line in dry_run(path)), package


def test_ci_runs_nothing_but_the_readmes_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    commands = [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert commands == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "make test"], commands
    readme = (ROOT / "README.md").read_text()
    assert "make test      # the whole test suite: all its set-up" in readme
