"""The settings model (battlehall/server/config.py): the environment and `serve`'s options
read the same way, checked once, and the README's configuration table kept to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import uvicorn

from battlehall import cli
from battlehall.server.config import SettingError, Settings, specs

ROOT = Path(__file__).resolve().parents[2]


def readme_table() -> list[tuple[str, str, str]]:
    """The README's configuration table: (option, variable, default) per row."""
    text = (ROOT / "README.md").read_text()
    table = text[text.index("| option | environment | default | what |"):]
    table = table[:table.index("\n\n")]
    rows = []
    for line in table.splitlines()[2:]:
        option, env, default = (cell.strip() for cell in line.split(" | ")[:3])
        rows.append((option.lstrip("| ").strip("`").split()[0], env.strip("`"), default.replace("`", "")))
    return rows


def test_the_readme_table_lists_every_setting_and_no_other():
    rows = readme_table()
    in_readme = [env for _, env, _ in rows]
    in_model = [spec.env for spec in specs().values()]
    assert sorted(set(in_model) - set(in_readme)) == [], "settings missing from the README's table"
    assert sorted(set(in_readme) - set(in_model)) == [], "the README's table names settings that do not exist"
    assert len(in_readme) == len(set(in_readme)), "a setting listed twice"
    by_env = {spec.env: spec for spec in specs().values()}
    for option, env, default in rows:
        assert option == by_env[env].flag, f"{env}: the README says {option}, serve has {by_env[env].flag}"
        assert default.startswith(by_env[env].shown), f"{env}: the README's default {default!r}, " \
                                                      f"the model's {by_env[env].shown!r}"


def test_serve_has_an_option_for_every_setting():
    serve = cli.build_parser()._subparsers._group_actions[0].choices["serve"]
    options = {option for action in serve._actions for option in action.option_strings}
    assert {spec.flag for spec in specs().values()} <= options


def test_no_server_module_reads_the_environment_but_the_model():
    readers = [path.relative_to(ROOT).as_posix() for path in (ROOT / "battlehall" / "server").glob("*.py")
               if re.search(r"\benviron\b|\bgetenv\b", path.read_text())]
    assert readers == ["battlehall/server/config.py"]


def test_the_environment_is_read_by_the_names_the_readme_gives():
    settings = Settings.load({"BATTLEHALL_TAKEOVER_SCAN_MS": "200", "BATTLEHALL_FSYNC": "everysec",
                              "BATTLEHALL_ALLOWED_HOSTS": "Game.example, *.b.example", "REDIS_URL": "redis://r",
                              "BATTLEHALL_BENCH_NO_PERSIST": "1", "BATTLEHALL_ABANDON_S": "1.5",
                              "BATTLEHALL_CREATE_PER_MIN": "0", "BATTLEHALL_CREATE_BURST": "2",
                              "BATTLEHALL_KEY_FAILURES": "0", "BATTLEHALL_KEY_FAILURE_WINDOW_S": "5"})
    assert (settings.takeover_scan_ms, settings.fsync, settings.allowed_hosts, settings.redis_url) == \
        (200, "everysec", ("game.example", "*.b.example"), "redis://r")
    assert settings.bench_no_persist and settings.abandon_s == 1.5
    assert (settings.create_per_min, settings.create_burst, settings.key_failures,
            settings.key_failure_window_s) == (0, 2, 0, 5)
    assert Settings.load({}) == Settings()  # nothing set: the defaults


def test_the_former_node_variable_is_still_read_after_the_new_one():
    assert Settings.load({"BATTLEHALL_NODE": "old"}).node_id == "old"
    assert Settings.load({"BATTLEHALL_NODE": "old", "BATTLEHALL_NODE_ID": "new"}).node_id == "new"


def test_a_node_is_not_taken_for_dead_within_two_of_its_beats():
    with pytest.raises(SettingError, match="^BATTLEHALL_NODE_DEATH_MS must be at least twice BATTLEHALL_HEARTBEAT_MS "
                                           r"\(600\), not 500: a late beat is no death$"):
        Settings.load({"BATTLEHALL_HEARTBEAT_MS": "300", "BATTLEHALL_NODE_DEATH_MS": "500"})
    settings = Settings.load({"BATTLEHALL_HEARTBEAT_MS": "250", "BATTLEHALL_NODE_DEATH_MS": "800"})
    assert (settings.heartbeat_ms, settings.node_death_ms) == (250, 800)


def test_an_option_overrides_its_variable_before_anything_is_checked():
    # The variable alone is refused; the option given instead is what counts.
    with pytest.raises(SettingError, match="^BATTLEHALL_LEASE_MS must be at least 300, not 100$"):
        Settings.load({"BATTLEHALL_LEASE_MS": "100"})
    assert Settings.load({"BATTLEHALL_LEASE_MS": "100"}, lease_ms="1000").lease_ms == 1000
    assert Settings.load({"BATTLEHALL_CREATE_BURST": "x"}, create_burst="4").create_burst == 4
    with pytest.raises(SettingError, match="^--lease-ms must be at least 300, not 100$"):
        Settings.load({"BATTLEHALL_LEASE_MS": "1000"}, lease_ms="100")


@pytest.mark.parametrize("env, said", [
    ({"BATTLEHALL_RATE_PER_S": "fast"}, "BATTLEHALL_RATE_PER_S must be a number, not 'fast'"),
    ({"BATTLEHALL_PORT": "80.5"}, "BATTLEHALL_PORT must be an integer, not '80.5'"),
    ({"BATTLEHALL_ABANDON_S": "nan"}, "BATTLEHALL_ABANDON_S must be a number, not 'nan'"),
    ({"BATTLEHALL_CREATE_BURST": "0"}, "BATTLEHALL_CREATE_BURST must be at least 1, not 0"),
    ({"BATTLEHALL_FSYNC": "sometimes"}, "BATTLEHALL_FSYNC must be one of always, everysec, not 'sometimes'"),
    ({"BATTLEHALL_REDIS_CLUSTER": "maybe"}, "BATTLEHALL_REDIS_CLUSTER must be 1 or 0, not 'maybe'"),
    ({"BATTLEHALL_NODE_URL": "http://x"}, "BATTLEHALL_NODE_URL must be a ws:// or wss:// URL, not 'http://x'"),
])
def test_a_bad_variable_is_named(env, said):
    with pytest.raises(SettingError) as refused:
        Settings.load(env)
    assert str(refused.value) == said


@pytest.fixture
def serve(monkeypatch, capsys):
    """`battlehall serve ARGS` in this process, with only `env` set: (exit code, stderr)."""
    def never(self, *args, **kwargs):
        raise AssertionError("the server was started")
    monkeypatch.setattr(uvicorn.Server, "run", never)

    def run(*args: str, env: dict | None = None) -> tuple[int, str]:
        for spec in specs().values():
            for name in (spec.env, *spec.old_env):
                monkeypatch.delenv(name, raising=False)
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        with pytest.raises(SystemExit) if "--help" in args else _nothing():
            code = cli.main(["serve", *args])
            return code, capsys.readouterr().err
        return 0, capsys.readouterr().out
    return run


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("args, env, said", [
    (("--create-per-min", "-1"), None, "battlehall serve: --create-per-min must be at least 0, not -1.0"),
    (("--port", "eighty"), None, "battlehall serve: --port must be an integer, not 'eighty'"),
    (("--fsync", "never"), {"BATTLEHALL_FSYNC": "always"},
     "battlehall serve: --fsync must be one of always, everysec, not 'never'"),
    ((), {"BATTLEHALL_TAKEOVER_SCAN_MS": "10"},
     "battlehall serve: BATTLEHALL_TAKEOVER_SCAN_MS must be at least 50, not 10"),
    (("--redis-cluster",), None, "battlehall serve: --redis-cluster (BATTLEHALL_REDIS_CLUSTER) needs --redis"),
])
def test_serve_refuses_a_bad_setting_in_one_line_naming_it(serve, args, env, said):
    code, err = serve(*args, env=env)
    assert code == 2 and err.startswith(said) and err.count("\n") == 1, err


def test_serve_help_shows_each_settings_variable_and_default(serve):
    _, out = serve("--help")
    text = " ".join(out.split())
    for spec in specs().values():
        assert spec.flag in text and spec.env in text, spec.env
    assert "BATTLEHALL_ABANDON_S; default 3600)" in text


def test_the_app_without_a_redis_url_says_so_when_made():
    """`serve` sets redis_url (a private Redis when none is given); an app made without one
    failed only at startup, with redis-py's "must specify one of the schemes" (found by
    mypy: Store takes a str, redis_url is str | None)."""
    from battlehall.server.http.app import create_app

    with pytest.raises(ValueError, match="redis_url"):
        create_app(Settings.load({}))


@pytest.mark.parametrize("value", ["javascript:", "data:", "blob:", "filesystem:", "ws:", "javascript://casters.example",
                                   "data://x", "https://a.example javascript:alert(1)", "chrome-extension:"])
def test_serve_refuses_a_frame_ancestor_csp_does_not_name_a_site_by(serve, value):
    """`javascript:` and `data:` were taken as frame-ancestors sources: a data: document is
    one any site can make, so any site could frame the spectator pages."""
    code, err = serve(env={"BATTLEHALL_FRAME_ANCESTORS": value})
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("battlehall serve: BATTLEHALL_FRAME_ANCESTORS: ") and "is not a frame-ancestors source" in err


@pytest.mark.parametrize("value", ["'none'", "'self'", "https:", "http:", "HTTPS:", "https://casters.example.org",
                                   "http://*.league.example:8443/embed", "casters.example.org:*",
                                   "'self' https://a.example data.example"])
def test_the_frame_ancestors_csp_allows_are_taken(value):
    assert Settings.load({"BATTLEHALL_FRAME_ANCESTORS": value}).frame_ancestors == value
