"""Which extension modules of `make compile` are older than their sources (tests/conftest.py
refuses to start the suite on them)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "battlehall"


def stale_compiled_modules(package: Path = PACKAGE) -> list[str]:
    """The sources edited since `make compile` built them: Python would import the old
    extension module in their place, and the suite would test code that is not there."""
    stale = []
    for built in sorted(package.rglob("*.so")):
        source = built.with_name(built.name.split(".", 1)[0] + ".py")
        if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
            stale.append(str(source.relative_to(package.parent)))
    return stale
