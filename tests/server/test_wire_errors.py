"""The tree of wire errors (battlehall/server/errors.py) against docs/protocol.md: every
code documented is a class, every class is documented, each with the HTTP status and the
WebSocket close code the protocol gives it; and the answers are built in one place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from battlehall.engine import errors as engine_errors
from battlehall.server import errors
from battlehall.server.http.responses import error_response

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text()
CLOSE_CODE = re.compile(r"\b([14]\d{3})\b")


def table(heading: str, header: str) -> list[list[str]]:
    """The cells of each row of the table that begins with `header`, under `heading`."""
    section = PROTOCOL[PROTOCOL.index(f"\n{heading}\n"):]
    rows = section[section.index(header):]
    rows = rows[:rows.index("\n\n")].splitlines()[2:]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


def codes_in(cell: str) -> list[str]:
    return re.findall(r"`([a-z_]+)`", cell)


def http_table() -> dict[str, int]:
    """code -> status, from "HTTP errors"."""
    found = {}
    for status, codes, _ in table("### HTTP errors", "| status | code | when |"):
        for code in codes_in(codes):
            assert code not in found, f"{code} is listed twice in HTTP errors"
            found[code] = int(status)
    return found


def ws_table() -> dict[str, set[int]]:
    """code -> the close codes its row of "Error codes" names (none: it never closes)."""
    found = {}
    for code, when, then in table("## Error codes", "| code | when | what the client does |"):
        (code,) = codes_in(code)
        found[code] = {int(number) for number in CLOSE_CODE.findall(when + " " + then)}
    return found


TREE = errors.tree()


def test_every_code_is_one_class():
    codes = [cls.code for cls in TREE]
    assert len(codes) == len(set(codes)), "a code given to two classes"
    assert set(errors.BY_CODE) == set(codes)
    for cls in TREE:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", cls.code), cls
        assert cls.default, f"{cls.__name__} has no default message"


def test_the_tree_is_the_documented_codes():
    documented = set(http_table()) | set(ws_table())
    in_tree = set(errors.BY_CODE)
    assert sorted(documented - in_tree) == [], "documented codes with no class in errors.py"
    assert sorted(in_tree - documented) == [], "codes of errors.py missing from docs/protocol.md's error tables"


def test_http_statuses_are_as_documented():
    documented = http_table()
    for cls in TREE:
        assert cls.status == documented.get(cls.code), \
            f"{cls.code}: errors.py says HTTP {cls.status}, docs/protocol.md {documented.get(cls.code)}"


def test_close_codes_are_as_documented():
    for code, closes in ws_table().items():
        cls = errors.BY_CODE[code]
        if closes:
            assert cls.close_code in closes, f"{code}: errors.py closes with {cls.close_code}, the docs say {closes}"
        else:
            assert cls.close_code is None, f"{code}: errors.py closes with {cls.close_code}, the docs never do"
    for code in set(errors.BY_CODE) - set(ws_table()):  # HTTP only: never on a socket
        assert errors.BY_CODE[code].close_code is None, code
    for case, answer in table("### Refused", "| case | answer, then close |"):
        code = codes_in(answer)[0]  # `not_here` with `redirect`, 4009
        (close,) = CLOSE_CODE.findall(answer)
        assert errors.BY_CODE[code].close_code == int(close), f"Refused: {case}"
    for close, meaning, _ in table("## Close codes", "| code | meaning | what the client does |"):
        for code in codes_in(meaning):
            if code in errors.BY_CODE:
                assert errors.BY_CODE[code].close_code == int(close), f"close {close} names {code}"


def test_every_engine_code_maps_onto_its_class():
    for cls in [engine_errors.EngineError, *engine_errors.EngineError.__subclasses__()]:
        assert cls.code in errors.BY_CODE, cls
        args = ("field", "text") if cls is engine_errors.SetupError else ("text",)
        mapped = errors.of(cls(*args))
        assert type(mapped) is errors.BY_CODE[cls.code] and mapped.message == "text"
    assert errors.of(engine_errors.SetupError("options.hp", "too high")).path == "options.hp"
    bug = errors.of(KeyError("secret detail"))
    assert isinstance(bug, errors.Internal) and "secret" not in bug.message


def test_a_websocket_error_message():
    assert errors.ws_message(errors.IllegalOption("no", id="a-1")) == \
        {"t": "error", "code": "illegal_option", "message": "no", "id": "a-1"}
    assert errors.ws_message(errors.NotHere("ws://n2/ws/m_1")) == {
        "t": "error", "code": "not_here", "message": errors.NotHere.default, "redirect": "ws://n2/ws/m_1"}
    assert "redirect" not in errors.ws_message(errors.NotHere(None))
    shared = errors.Unavailable()
    assert [errors.ws_message(shared.answering(i))["id"] for i in (1, 2)] == [1, 2] and shared.id is None


@pytest.mark.parametrize("error, headers", [
    (errors.BadSetup("bad", path="seats[1]"), {}),
    (errors.Unauthorized("who?"), {"WWW-Authenticate": "Bearer"}),
    (errors.TokenExpired(path="profile"), {"WWW-Authenticate": "Bearer"}),
    (errors.RateLimited("slow down", retry_after=7), {"Retry-After": "7"}),
    (errors.Busy(), {"Retry-After": "1"}),
    (errors.MethodNotAllowed("no", headers={"Allow": "GET"}), {"Allow": "GET"}),
])
def test_an_http_error_answer(error, headers):
    response = error_response(error)
    assert response.status_code == error.status
    assert response.headers["content-type"] == "application/json"
    assert {name: response.headers[name] for name in headers} == headers
    body = {"code": error.code, "message": error.message}
    if error.path is not None:
        body["path"] = error.path
    assert errors.body(error) == {"error": body}
    raw = errors.raw_response(error)
    assert raw.startswith(b"HTTP/1.1 %d " % error.status) and b"connection: close\r\n" in raw
    assert all(f"{name}: {value}\r\n".encode() in raw for name, value in headers.items())


def test_a_socket_only_code_reaching_http_is_a_bug():
    response = error_response(errors.Spectator())
    assert response.status_code == 500 and b'"internal"' in response.body


def test_errors_are_built_in_errors_py_only():
    """No module of the server spells a code or builds an error message of its own:
    "spectator" (a role) and "timeout" (a log entry's field) are other words too."""
    other_words = {"spectator", "timeout"}
    for path in sorted((ROOT / "battlehall" / "server").glob("*.py")):
        if path.name == "errors.py":
            continue
        text = path.read_text()
        assert '"t": "error"' not in text, f"{path.name} builds an error message: use errors.ws_message"
        for literal in re.findall(r'"([a-z_]+)"', text):
            assert literal not in set(errors.BY_CODE) - other_words, \
                f"{path.name} spells the code {literal!r}: raise the class of errors.py"
