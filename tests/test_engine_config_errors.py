"""A docker configuration that cannot be used, and advice when the chosen engine does not answer.

The real docker CLI is the oracle. It warns about a config.json it cannot parse ("WARNING:
Error parsing config file") and uses the default context; moatbridge does the same (one
sentence naming the file, once, on stderr; `status` shows it as a note). A named context
that does not exist or whose meta.json is broken stops the CLI, and moatbridge: one
sentence naming the file and a hint that works for where the name came from, exit 2
(doctor reports it as a failing check). When an engine does not answer, the advice
follows what chose it: DOCKER_HOST, a docker context, a rootless socket, the system daemon.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from moatbridge.adapters.engine_client import connect
from moatbridge.adapters.engine_endpoint import (
    DEFAULT_SOCKET,
    Endpoint,
    meta_path,
    resolve_endpoint,
    start_advice,
)
from moatbridge.errors import EngineUnavailable, InputError

from support.docker_config_files import (
    config_env,
    docker_cli,
    moatbridge_cli,
    needs_cli,
    resolution_error,
)

NESTED = "[" * 200_000  # deeper than Go's 10000 levels: the docker CLI cannot parse it either
# A rootless Docker socket of a user that does not exist here: nothing listens there.
ROOTLESS = "unix:///run/user/4242424/docker.sock"


def _context(config: Path, name: str, text: str) -> Path:
    meta = meta_path(config, name)
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(text)
    return meta


# --- config.json: a warning and the default engine, as the CLI does ------------------------------


@needs_cli
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{bad", "is not valid JSON"),
        ('["currentContext"]', "is not a JSON object"),
        ('{"currentContext": 7}', "has a currentContext that is not a name"),
        (b"\xff\xfe{}", "is not valid JSON"),
        (NESTED, "is not valid JSON (it is nested more than 10000 levels deep)"),
        ('{"currentContext": ' + NESTED, "is not valid JSON (it is nested more than 10000 levels deep)"),
    ],
)
def test_a_config_json_the_cli_cannot_parse_warns_and_uses_the_default(
    tmp_path: Path, text: str | bytes, words: str
) -> None:
    config = tmp_path / "config.json"
    config.write_bytes(text if isinstance(text, bytes) else text.encode())
    shown = docker_cli(tmp_path, "context", "show")
    assert shown.returncode == 0 and shown.stdout.strip() == "default"  # the oracle: default ...
    assert f"WARNING: Error parsing config file ({config})" in shown.stderr  # ... with a warning
    chosen = resolve_endpoint(config_env(tmp_path), warn=False)
    assert (chosen.host, chosen.context) == (DEFAULT_SOCKET, "default")
    assert chosen.warning is not None and "\n" not in chosen.warning
    assert f"the docker configuration {config} {words}" in chosen.warning
    assert "so the default engine is used" in chosen.warning
    assert resolve_endpoint(config_env(tmp_path, DOCKER_HOST="tcp://h:1")).host == "tcp://h:1"  # not read


@needs_cli
def test_a_directory_as_config_json_warns_as_the_cli_does(tmp_path: Path) -> None:
    (tmp_path / "config.json").mkdir()
    shown = docker_cli(tmp_path, "context", "show")
    assert shown.stdout.strip() == "default" and "WARNING: Error parsing config file" in shown.stderr
    chosen = resolve_endpoint(config_env(tmp_path), warn=False)
    assert chosen.host == DEFAULT_SOCKET and "is not a regular file" in (chosen.warning or "")


def test_a_fifo_as_config_json_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "config.json")  # reading it would wait for a writer forever (the CLI does)
    chosen = resolve_endpoint(config_env(tmp_path), warn=False)
    assert chosen.host == DEFAULT_SOCKET and "is not a regular file" in (chosen.warning or "")


def test_the_warning_is_written_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "config.json").write_text("{once")
    for _ in range(3):
        assert resolve_endpoint(config_env(tmp_path)).host == DEFAULT_SOCKET
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("moatbridge: warning: the docker configuration ")


@pytest.mark.engine
@needs_cli
@pytest.mark.parametrize(
    ("text", "words"),
    [
        (NESTED, "default engine is used"),  # before: exit 2 from resolving, then RecursionError in the SDK
        ('["currentContext"]', "default engine is used"),  # the SDK's proxy lookup: 'list' has no 'get'
        ('{"proxies": 5}', "in proxies, so moatbridge does not use them"),  # the CLI drops it and warns
        ('{"auths": {"registry.example": 5}}', "in auths, so"),  # the SDK raised InvalidConfigFile
    ],
)
def test_commands_warn_and_use_the_default_engine(
    engine_version: str, tmp_path: Path, text: str, words: str
) -> None:
    config = tmp_path / "config.json"
    config.write_text(text)
    env = {"DOCKER_CONFIG": str(tmp_path)}
    cli = docker_cli(tmp_path, "version", "--format", "{{.Server.Version}}")  # the oracle: it warns, goes on
    assert cli.stdout.strip() == engine_version and "WARNING: Error parsing config file" in cli.stderr
    doctor = moatbridge_cli("doctor", "--json", env=env)
    assert doctor.returncode in (0, 1) and "Traceback" not in doctor.stderr, doctor.stderr
    warnings = [line for line in doctor.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and str(config) in warnings[0] and words in warnings[0], doctor.stderr
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["engine-daemon"]["status"] == "pass", checks["engine-daemon"]
    assert engine_version in checks["engine-version"]["detail"]
    images = moatbridge_cli("image", "list", "--json", env=env)
    assert images.returncode == 0 and images.stderr.count("warning:") == 1, images.stderr
    status = moatbridge_cli("status", "--json", env=env)
    assert status.returncode == 0 and "warning" not in status.stderr, status.stderr
    data = json.loads(status.stdout)
    assert data["engine"]["running"] is True and data["engine"]["endpoint"] == DEFAULT_SOCKET
    notes = [p for p in data["problems"] if str(config) in p and words in p]
    assert len(notes) == 1, data["problems"]
    shown = moatbridge_cli("status", env=env)
    assert shown.returncode == 0 and "note: The docker configuration" in shown.stdout, shown.stdout


# --- a named context: an error naming the file, with a hint that works ----------------------------


@needs_cli
def test_a_missing_context_from_docker_context_says_to_unset_it(tmp_path: Path) -> None:
    assert docker_cli(tmp_path, "version", DOCKER_CONTEXT="gone").returncode != 0  # the CLI stops too
    error = resolution_error(config_env(tmp_path, DOCKER_CONTEXT="gone"))
    assert "docker context 'gone' (DOCKER_CONTEXT) does not exist" in error.message
    assert str(meta_path(tmp_path, "gone")) in error.message
    assert "unset DOCKER_CONTEXT" in (error.hint or "")
    # `docker context use default` would not help: DOCKER_CONTEXT wins over it (the CLI says so).
    assert docker_cli(tmp_path, "context", "use", "default").returncode == 0
    assert docker_cli(tmp_path, "context", "show", DOCKER_CONTEXT="gone").stdout.strip() == "gone"
    assert resolve_endpoint(config_env(tmp_path)).host == DEFAULT_SOCKET  # the hint followed: unset


@needs_cli
@pytest.mark.parametrize(
    ("meta", "words"),
    [
        (None, "does not exist"),
        ("not json", "is not valid JSON"),
        ('{"Endpoints": ' + NESTED, "is not valid JSON (it is nested more than 10000 levels deep)"),
        ('{"Endpoints": {"docker": {"Host": 5}}}', "has no usable Endpoints.docker.Host"),
    ],
)
def test_a_current_context_that_cannot_be_used_has_a_hint_that_repairs_it(
    tmp_path: Path, meta: str | None, words: str
) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"currentContext": "odd"}')
    if meta is not None:
        _context(tmp_path, "odd", meta)
    assert docker_cli(tmp_path, "version").returncode != 0  # the CLI stops too
    error = resolution_error(config_env(tmp_path))
    assert "'odd'" in error.message and words in error.message
    assert str(meta_path(tmp_path, "odd")) in error.message
    assert f"(currentContext in {config})" in error.message
    assert "docker context use default" in (error.hint or "")
    assert docker_cli(tmp_path, "context", "use", "default").returncode == 0  # the hint, followed
    assert resolve_endpoint(config_env(tmp_path)) == Endpoint(DEFAULT_SOCKET, "default")


@pytest.mark.parametrize(
    ("meta", "words"),
    [
        ('{"Endpoints": {"docker": "tcp://h:1"}}', "has no usable Endpoints.docker.Host"),
        ('{"Endpoints": []}', "has no usable Endpoints.docker.Host"),
        ("[]", "has no usable Endpoints.docker.Host"),
        ('{"Endpoints": {"docker": {"Host": "http://h:2375"}}}', "which is not unix://, tcp:// or ssh://"),
        ('{"Endpoints": {"docker": {"Host": "npipe:////./pipe/docker_engine"}}}', "which is not unix://"),
        ('{"Endpoints": {"docker": {"Host": "/var/run/docker.sock"}}}', "which is not unix://"),
        ('{"Endpoints": {"docker": {"Host": "fd://"}}}', "which is not unix://"),
        (NESTED, "is not valid JSON (it is nested more than 10000 levels deep)"),
    ],
)
def test_a_broken_context_is_named(tmp_path: Path, meta: str, words: str) -> None:
    path = _context(tmp_path, "odd", meta)
    error = resolution_error(config_env(tmp_path, DOCKER_CONTEXT="odd"))
    assert str(path) in error.message and words in error.message and "'odd'" in error.message


def test_commands_stop_and_doctor_reports_the_context(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"currentContext": "gone"}')
    env = {"DOCKER_CONFIG": str(tmp_path)}
    result = moatbridge_cli("image", "list", env=env)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[1].startswith("hint: "), result.stderr
    assert "docker context 'gone'" in lines[0] and "does not exist" in lines[0]
    assert "docker context use default" in lines[1]
    doctor = moatbridge_cli("doctor", "--json", env=env)  # before: exit 2 and no report
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr, doctor.stderr
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    daemon = checks["engine-daemon"]
    assert daemon["status"] == "fail" and "docker context 'gone'" in daemon["detail"], daemon
    assert "docker context use default" in daemon["fix"]
    assert checks["engine-version"]["status"] == "skip"
    text = moatbridge_cli("doctor", env={**env, "COLUMNS": "400"})  # the detail on one line
    assert text.returncode == 1 and "does not exist" in text.stdout and "Not ready" in text.stdout
    status = moatbridge_cli("status", "--json", env=env)
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert data["engine"]["endpoint"] is None and data["engine"]["running"] is False
    assert (
        "docker context 'gone'" in data["engine"]["problem"] and "does not exist" in data["engine"]["problem"]
    )
    assert data["next"][0]["command"] == "docker context ls"  # the hint, as the next step
    assert "docker context use default" in data["next"][0]["why"]


# --- DOCKER_HOST=unix:// is the default socket (the SDK and the CLI agree) ------------------------


@pytest.mark.engine
@needs_cli
def test_an_empty_unix_address_is_the_default_socket(engine_version: str, tmp_path: Path) -> None:
    cli = docker_cli(tmp_path, "version", "--format", "{{.Server.Version}}", DOCKER_HOST="unix://")
    assert cli.returncode == 0 and cli.stdout.strip() == engine_version  # the oracle
    env = {"DOCKER_CONFIG": str(tmp_path), "DOCKER_HOST": "unix://"}
    status = moatbridge_cli("status", "--json", env=env)
    assert json.loads(status.stdout)["engine"]["running"] is True, status.stdout  # before: not running
    doctor = moatbridge_cli("doctor", "--json", env=env)
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["engine-daemon"]["status"] == "pass"


# --- advice for an engine that does not answer follows what chose it ------------------------------


def test_start_advice_follows_where_the_address_came_from() -> None:
    assert start_advice(Endpoint(DEFAULT_SOCKET, "default"))[0] == "sudo systemctl start docker"
    command, why = start_advice(Endpoint("tcp://box:2375", None))
    assert command == "unset DOCKER_HOST" and "DOCKER_HOST names tcp://box:2375" in why
    command, why = start_advice(Endpoint("tcp://box:2375", "box"))
    assert command == "docker context inspect box" and "docker context use default" in why
    for endpoint in (Endpoint(ROOTLESS, "rootless"), Endpoint(ROOTLESS, None), Endpoint(ROOTLESS, "default")):
        command, why = start_advice(endpoint)
        assert command == "systemctl --user start docker" and "sudo" not in why, endpoint
    assert "unset DOCKER_HOST" in start_advice(Endpoint(ROOTLESS, None))[1]
    assert "docker context use default" in start_advice(Endpoint(ROOTLESS, "rootless"))[1]


@needs_cli
@pytest.mark.parametrize(
    ("extra", "step"),
    [
        ({"DOCKER_CONTEXT": "rootless"}, "systemctl --user start docker"),
        ({"DOCKER_CONTEXT": "away"}, "docker context inspect away"),
        ({"DOCKER_HOST": "unix:///nonexistent/docker.sock"}, "unset DOCKER_HOST"),
    ],
)
def test_status_and_doctor_advise_for_the_engine_that_was_chosen(
    tmp_path: Path, extra: dict[str, str], step: str
) -> None:
    assert not Path(ROOTLESS[len("unix://") :]).exists()
    for name, host in (("rootless", ROOTLESS), ("away", "unix:///nonexistent/away.sock")):
        assert docker_cli(tmp_path, "context", "create", name, "--docker", f"host={host}").returncode == 0
    env = {"DOCKER_CONFIG": str(tmp_path), **extra}
    status = moatbridge_cli("status", "--json", env=env)
    data = json.loads(status.stdout)
    assert data["engine"]["problem"] == "not running", data
    assert data["next"][0]["command"] == step and "sudo" not in data["next"][0]["why"], data["next"]
    doctor = moatbridge_cli("doctor", "--json", env=env)
    daemon = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}["engine-daemon"]
    assert daemon["status"] == "fail" and step in daemon["fix"] and "sudo" not in daemon["fix"], daemon


@needs_cli
def test_connect_advises_for_the_context_and_never_says_unset_it(tmp_path: Path) -> None:
    for name, host in (("rootless", ROOTLESS), ("away", "unix:///nonexistent/away.sock")):
        assert docker_cli(tmp_path, "context", "create", name, "--docker", f"host={host}").returncode == 0
    cases = {"rootless": "systemctl --user start docker", "away": "docker context inspect away"}
    for name, command in cases.items():
        with pytest.raises(EngineUnavailable) as caught:
            connect(config_env(tmp_path, DOCKER_CONTEXT=name), timeout=5)
        assert f"(docker context {name!r})" in caught.value.message
        assert command in (caught.value.hint or "") and "sudo" not in (caught.value.hint or "")
    with pytest.raises(EngineUnavailable) as caught:
        connect(config_env(tmp_path, DOCKER_HOST="unix:///nonexistent/docker.sock"), timeout=5)
    assert "unset DOCKER_HOST" in (caught.value.hint or "")
    _context(tmp_path, "badport", '{"Endpoints": {"docker": {"Host": "tcp://h:notaport"}}}')
    with pytest.raises(InputError) as bad:
        connect(config_env(tmp_path, DOCKER_CONTEXT="badport"), timeout=5)
    assert "docker context 'badport'" in bad.value.message
    assert "unset it" not in (bad.value.hint or "") and "docker context update badport" in (
        bad.value.hint or ""
    )


# --- hints name contexts so that the command can be pasted (the CLI runs it) ------------------------


def _command_in(hint: str, start: str) -> list[str]:
    """The shell command in a hint that begins with `start` and runs to the end or a ' ('."""
    command = hint[hint.index(start) :].split(" (")[0].rstrip(")")
    return shlex.split(command)


@needs_cli
@pytest.mark.parametrize("name", ["odd", "odd one", "it's"])
def test_the_hint_removes_a_broken_current_context(tmp_path: Path, name: str) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"currentContext": name}))
    _context(tmp_path, name, "not json")
    error = resolution_error(config_env(tmp_path))
    command = _command_in(error.hint or "", "docker context rm")
    assert command[:3] == ["docker", "context", "rm"] and command[-1] == name, error.hint
    # before: `docker context rm odd`: the CLI refuses ('context "odd" is in use, set -f flag')
    removed = docker_cli(tmp_path, *command[1:])
    assert removed.returncode == 0, removed.stderr
    assert resolve_endpoint(config_env(tmp_path)) == Endpoint(DEFAULT_SOCKET, "default")


@needs_cli
def test_hints_quote_context_names(tmp_path: Path) -> None:
    name = "far away; rm -rf ~"  # `docker context create` refuses it; a hand-written file need not
    _context(
        tmp_path, name, json.dumps({"Name": name, "Endpoints": {"docker": {"Host": "unix:///nonexistent/s"}}})
    )
    command, _ = start_advice(resolve_endpoint(config_env(tmp_path, DOCKER_CONTEXT=name)))
    assert shlex.split(command) == ["docker", "context", "inspect", name]
    assert docker_cli(tmp_path, *shlex.split(command)[1:]).returncode == 0  # the hint, run as printed
    _context(tmp_path, "bad port $x", '{"Endpoints": {"docker": {"Host": "tcp://h:notaport"}}}')
    with pytest.raises(InputError) as bad:
        connect(config_env(tmp_path, DOCKER_CONTEXT="bad port $x"), timeout=5)
    update = _command_in(bad.value.hint or "", "docker context update")
    assert update[3] == "bad port $x", bad.value.hint
