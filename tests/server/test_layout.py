"""The server's layout (docs/architecture.md, The server's wings): each wing imports only
the wings below it, never one above, so a change to a wing can break only what stands
above it; and no module grows past what a reader takes in at once."""

from __future__ import annotations

import ast
from pathlib import Path

import battlehall.server as server

ROOT = Path(server.__file__).parent
#: The wings, lowest first: a module may import its own wing's, the root's and those before it.
WINGS = ("storage", "match", "players", "node", "tournaments", "transport", "http")
MAX_LINES = 450


def wing_of(path: Path) -> str | None:
    """The wing a module of battlehall/server belongs to; None for the root's modules."""
    parts = path.relative_to(ROOT).parts
    return parts[0] if len(parts) > 1 else None


def runtime_imports(path: Path) -> list[tuple[int, str]]:
    """The battlehall.server modules `path` imports when it runs (type-only imports, under
    `if TYPE_CHECKING:`, are annotations, not arrows)."""
    tree = ast.parse(path.read_text(), str(path))
    type_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            type_only |= {id(n) for child in node.body for n in ast.walk(child)}
    found = []
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found += [(node.lineno, name) for name in names if name.startswith("battlehall.server.")]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("battlehall.server.")]
    return found


def modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_is_in_a_wing_the_layout_names():
    assert {wing_of(p) for p in modules()} - {None} <= set(WINGS)


def test_a_wing_imports_only_the_wings_below_it():
    wrong = []
    for path in modules():
        wing = wing_of(path)
        rank = -1 if wing is None else WINGS.index(wing)
        for line, name in runtime_imports(path):
            target = name.split(".")[2]
            if target not in WINGS:
                continue  # the root's shared vocabulary: errors, config, codec, clock, metrics...
            if WINGS.index(target) > rank:
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({wing or 'root'}) imports {name}")
    assert wrong == []


def test_no_server_module_is_longer_than_a_reader_takes_in():
    long = {str(p.relative_to(ROOT)): n for p in modules() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}
