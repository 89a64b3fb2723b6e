"""Secrets: credentials reach no image layer, history, label, log,
environment of a committed image, process argument list or crash report.

Three kinds of secret travel through moatbridge: repository credentials (a private
credentials file), a token in a repository or mirror URL's query, and credentials in
a mirror URL's userinfo. The engine tests build with all of them, each a fresh random
value, and then look for their bytes everywhere: every file of every layer of a
``docker save``, ``docker history --no-trunc``, ``docker inspect``, the build output,
the state directory (crash reports), the engine's log, and the command line and
environment of every process on the machine while the build runs. Each scan first
proves on a positive control that it would have seen the secret.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from moatbridge import cli as cli_module
from moatbridge.adapters.repo_proxy import Credentials, serve_repo_proxy
from moatbridge.core.redact import (
    MASK,
    has_secret,
    is_secret_name,
    redact_argv,
    redact_text,
    redact_url,
    split_userinfo,
    strip_secrets,
)
from moatbridge.errors import InputError, MoatbridgeError

from support.consent import accepting_env
from support.scale_standin import StandinRepo, StandinRepoServer, build_standin_repo, missing_tools
from support.secret_scan import scan_bytes, scan_saved_image

# --- the pure redaction rules -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://user:pass@host/debian", "https://***@host/debian"),
        ("https://user@host:8443/debian", "https://***@host:8443/debian"),
        ("https://user:p%40ss@host/x", "https://***@host/x"),
        ("http://u:p@127.0.0.1:9/deb", "http://***@127.0.0.1:9/deb"),
        ("https://host/repo?token=abc", "https://host/repo?token=***"),
        ("https://host/repo?sv=1&sig=abc%2F", "https://host/repo?sv=***&sig=***"),
        ("https://host/repo?abcdef", "https://host/repo?***"),
        ("https://host/repo#frag", "https://host/repo#***"),
        ("https://u:p@host/r?t=1#f", "https://***@host/r?t=***#***"),
        ("https://host/debian", "https://host/debian"),
        ("http://deb.debian.org/debian", "http://deb.debian.org/debian"),
        ("not a url", "not a url"),
        ("/a/local/path", "/a/local/path"),
        ("http://[::1", MASK),
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected
    assert has_secret(url) == (expected != url)


@pytest.mark.parametrize(
    ("url", "stripped"),
    [
        ("https://user:pass@host/debian", "https://host/debian"),
        ("https://host:1/debian?token=abc#x", "https://host:1/debian"),
        ("https://host/debian", "https://host/debian"),
        ("relative/path", "relative/path"),
    ],
)
def test_strip_secrets(url: str, stripped: str) -> None:
    assert strip_secrets(url) == stripped


def test_split_userinfo_decodes_and_keeps_the_rest() -> None:
    assert split_userinfo("https://al%3Aice:p%40ss:w@host:8/d?q=1") == (
        "https://host:8/d?q=1", "al:ice", "p@ss:w"
    )  # fmt: skip
    assert split_userinfo("https://bob@host/d") == ("https://host/d", "bob", "")
    assert split_userinfo("https://host/d") == ("https://host/d", None, None)


@pytest.mark.parametrize(
    "name",
    [
        "API_KEY", "api_key", "SSH_KEY", "KEY", "DB_PASS", "PASSWORD", "passwd", "MY_PASSWORD",
        "TOKEN", "github_token", "SECRET", "AWS_SECRET_ACCESS_KEY", "CREDENTIALS", "HTTP_AUTH",
        "Authorization", "--password", "--api-key", "--token", "x-auth-token",
    ],
)  # fmt: skip
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "SCALE_VERSION", "SCALE_PREREQS", "SCALE_PACKAGE", "KEEP_TARGETS", "BASE_IMAGE", "PATH",
        "CUDA_VERSION", "--credentials-file", "PASSWORD_FILE", "KEY_PATH", "--mirror", "--repo-url",
    ],
)  # fmt: skip
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("API_KEY=abc123 next", "API_KEY=*** next"),
        ("--password=hunter2", "--password=***"),
        ("db_pass: hunter2", "db_pass: ***"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: *** ***"),
        ("header Bearer abcdefgh12345678 sent", "header Bearer *** sent"),
        ("fetch https://u:pw@h/x failed (token=z)z;y)", "fetch https://***@h/x failed (token=***"),
        ("SCALE_VERSION=1.7.2 PATH=/usr/bin", "SCALE_VERSION=1.7.2 PATH=/usr/bin"),
        ("KeyError: 'username'", "KeyError: 'username'"),
        ("KeyError: username", "KeyError: username"),
        ("nothing to hide", "nothing to hide"),
    ],
)
def test_redact_text(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_redact_argv() -> None:
    argv = [
        "moatbridge", "setup", "--mirror", "https://user:s3cr3t@host/debian", "--token", "t0k3n",
        "--repo-url=https://host/deb?token=qq", "--build-arg", "API_KEY=k3y", "--credentials-file",
        "/home/u/c.json", "--password=pw",
    ]  # fmt: skip
    redacted = redact_argv(argv)
    assert redacted == [
        "moatbridge", "setup", "--mirror", "https://***@host/debian", "--token", MASK,
        "--repo-url=https://host/deb?token=***", "--build-arg", "API_KEY=***", "--credentials-file",
        "/home/u/c.json", "--password=***",
    ]  # fmt: skip
    assert not any(s in " ".join(redacted) for s in ("s3cr3t", "t0k3n", "qq", "k3y", "=pw"))


# --- crash reports ------------------------------------------------------------------------------


def _crash_in_process(monkeypatch: pytest.MonkeyPatch, words: list[str], message: str) -> int:
    """``main(words)`` with `setup` raising an unexpected error carrying ``message``."""
    import moatbridge.commands.setup as setup_command

    def explode(args: Any) -> int:
        raise RuntimeError(message)

    monkeypatch.setattr(setup_command, "run", explode)
    return cli_module.main(words)


def test_crash_reports_are_private_redacted_and_unique(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secret = secrets.token_hex(12)
    mirror = f"https://user:{secret}@mirror.example/debian"
    words = ["setup", "--yes", "--mirror", mirror, "--repo-url", f"https://h/deb?token={secret}x"]
    # Both crashes in the same second: the names must still differ.
    monkeypatch.setattr(time, "strftime", lambda *args: "20261201-000000")
    previous = os.umask(0o000)  # the most permissive umask: the mode must not depend on it
    try:
        for _ in range(2):
            code = _crash_in_process(monkeypatch, words, f"cannot reach {mirror} (password={secret})")
            assert code == cli_module.EXIT_CRASH
    finally:
        os.umask(previous)
    err = capsys.readouterr().err
    assert "internal error (RuntimeError: cannot reach https://***@mirror.example/debian" in err
    assert secret not in err
    state = tmp_path / "moatbridge-home" / "state"
    reports = sorted(state.glob("crash-*.log"))
    assert len(reports) == 2, reports
    for report in reports:
        assert stat.S_IMODE(report.stat().st_mode) == 0o600
        text = report.read_text()
        assert secret not in text
        assert "https://***@mirror.example/debian" in text  # the argv is there, redacted
        assert "token=***" in text
        assert "RuntimeError: cannot reach" in text and "password=***" in text
        assert "Traceback" in text
    assert stat.S_IMODE(state.stat().st_mode) & 0o077 == 0


def test_crash_report_from_a_real_process(tmp_path: Path) -> None:
    """A fresh interpreter, the secret in its real argv; the report is 0600 and clean."""
    secret = secrets.token_urlsafe(18)
    home = tmp_path / "mbhome"
    script = (
        "import sys\n"
        "import moatbridge.commands.detect as detect\n"
        "def explode(args):\n"
        "    raise ValueError('mirror ' + sys.argv[-1] + ' refused')\n"
        "detect.run = explode\n"
        "from moatbridge.cli import main\n"
        "sys.exit(main(['detect', '--root', sys.argv[-1]]))\n"
    )
    env = {**os.environ, "MOATBRIDGE_HOME": str(home)}
    argv = [sys.executable, "-c", script, f"https://customer:{secret}@pkgs.example/deb"]
    results = [subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env) for _ in range(2)]
    for result in results:
        assert result.returncode == cli_module.EXIT_CRASH, result.stderr
        assert secret not in result.stderr + result.stdout
        assert "https://***@pkgs.example/deb" in result.stderr
    reports = sorted((home / "state").glob("crash-*.log"))
    assert len(reports) == 2
    for report in reports:
        assert stat.S_IMODE(report.stat().st_mode) == 0o600
        data = report.read_bytes()
        assert secret.encode() not in data
        assert b"--root" in data and b"https://***@pkgs.example/deb" in data


def test_a_crash_report_never_follows_a_planted_symlink(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = tmp_path / "moatbridge-home" / "state"
    state.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("untouched\n")
    monkeypatch.setattr(time, "strftime", lambda *args: "20261201-000000")
    names = iter(["aaaaaa", "aaaaaa", "bbbbbb"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(names))
    planted = state / f"crash-20261201-000000-{os.getpid()}-aaaaaa.log"
    planted.symlink_to(victim)
    assert _crash_in_process(monkeypatch, ["setup", "--yes"], "boom") == cli_module.EXIT_CRASH
    assert victim.read_text() == "untouched\n"  # the name taken: another one, never through the link
    written = state / f"crash-20261201-000000-{os.getpid()}-bbbbbb.log"
    assert f"details in {written}" in capsys.readouterr().err
    assert "RuntimeError: boom" in written.read_text()
    assert planted.is_symlink()


def test_a_crash_without_anywhere_to_report_is_still_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """No home for the report (no HOME, no MOATBRIDGE_HOME, a uid without a passwd entry, as
    in some containers): the crash is still the one line, not a traceback from the writer."""
    import pwd

    def no_entry(uid: int) -> Any:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.delenv("MOATBRIDGE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    import moatbridge.commands.detect as detect_command  # detect runs without a usable home

    def explode(args: Any) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(detect_command, "run", explode)
    assert cli_module.main(["detect"]) == cli_module.EXIT_CRASH
    err = capsys.readouterr().err
    assert err.count("moatbridge: ") == 1 and "RuntimeError: boom" in err and "Traceback" not in err
    assert "no crash report could be written" in err


def test_error_messages_are_redacted_on_the_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import moatbridge.commands.setup as setup_command

    secret = secrets.token_hex(8)

    def fail(args: Any) -> int:
        raise MoatbridgeError(
            f"Cannot fetch https://u:{secret}@host/deb.", f"its last output was: token={secret}"
        )

    monkeypatch.setattr(setup_command, "run", fail)
    assert cli_module.main(["setup", "--yes"]) == 1
    err = capsys.readouterr().err
    assert secret not in err
    assert "https://***@host/deb" in err and "token=***" in err


# --- the build-arg filter -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["API_KEY", "REPO_KEY", "DB_PASS", "PASSWORD", "MY_PASSWD", "GITHUB_TOKEN", "SECRET", "CREDENTIAL",
     "HTTP_AUTH", "signing_key", "Pass"],
)  # fmt: skip
def test_secret_looking_build_args_are_refused(name: str) -> None:
    from moatbridge.core.scale_recipes import extra_build_args as _extra_build_args

    value = secrets.token_hex(6)
    with pytest.raises(InputError) as caught:
        _extra_build_args((f"{name}={value}",))
    assert caught.value.exit_code == 2
    assert "looks like a secret" in caught.value.message
    assert value not in caught.value.message + (caught.value.hint or "")


def test_ordinary_build_args_pass() -> None:
    from moatbridge.core.scale_recipes import extra_build_args as _extra_build_args

    assert _extra_build_args(("SCALE_VERSION=1.7.2", "SCALE_PREREQS=")) == (
        ("SCALE_VERSION", "1.7.2"), ("SCALE_PREREQS", "")
    )  # fmt: skip


# --- secrets recognised by their value's shape, whatever their name ----------------------------


def _shaped_tokens() -> dict[str, str]:
    """One fresh value of each shape (random, so no test data is a real credential)."""
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    def pick(n: int, alphabet: str = alnum) -> str:
        return "".join(secrets.choice(alphabet) for _ in range(n)) + "7"

    upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return {
        "github-classic": "ghp_" + pick(36), "github-oauth": "gho_" + pick(36), "github-user": "ghu_" + pick(36),
        "github-server": "ghs_" + pick(36), "github-refresh": "ghr_" + pick(36),
        "github-fine-grained": "github_pat_" + pick(22) + "_" + pick(59), "gitlab": "glpat-" + pick(20),
        "slack-bot": "xoxb-" + pick(12, "0123456789") + "-" + pick(24), "slack-user": "xoxp-" + pick(30),
        "aws-key-id": "AKIA" + pick(15, upper), "aws-session-key-id": "ASIA" + pick(15, upper),
        "sk-key": "sk-proj-" + pick(40), "hugging-face": "hf_" + pick(34), "npm": "npm_" + pick(36),
        "pypi": "pypi-AgEIcHlwaS5vcmc" + pick(40),
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI" + pick(20) + "." + pick(43),
    }  # fmt: skip


TOKENS = _shaped_tokens()


@pytest.mark.parametrize("kind", TOKENS)
def test_tokens_are_masked_by_their_shape(kind: str) -> None:
    token = TOKENS[kind]
    for text in (f"GH_PAT={token}", f"pushing with {token} failed", f"'{token}'", f"--flag={token}"):
        masked = redact_text(text)
        assert token not in masked and MASK in masked, masked
    assert token not in " ".join(redact_argv(["moatbridge", "setup", "--build-arg", f"GH_PAT={token}"]))


@pytest.mark.parametrize(
    "text",
    [
        "sha256:" + "0f3a9c2b7d1e4f5a" * 4, "SCALE_SHA256=0f3a9c2b7d1e4f5a6b8c9d0e1f2a3b4c",
        "PATH=/usr/local/bin:/usr/bin", "SCALE_VERSION=1.7.2", "task-runner-something-long-name",
        "disk-0123456789abcdefghijkl", "moatbridge/open:12.4-devel-trixie-gfx1030", "SESSION_NAME=nightly-build",
        "https://deb.debian.org/debian", "eyJ alone", "AKIA", "hf_short",
        "PWD=/srv/build/7f3a9c2e41b84d0c9a1e5b6d", "OLDPWD=/tmp/pytest-of-root/pytest-3/test_x0",
    ],
)  # fmt: skip
def test_ordinary_values_keep_their_shape(text: str) -> None:
    assert redact_text(text) == text


def test_a_random_value_under_a_name_hinting_at_a_secret_is_masked() -> None:
    value = secrets.token_hex(20)
    for text in (f"GH_PAT={value}", f"db_pwd: {value}", f"SESSION_COOKIE={value}"):
        assert value not in redact_text(text), text
    assert redact_argv(["x", "--pat", value, "--pat", "short"]) == ["x", "--pat", MASK, "--pat", "short"]
    assert redact_text("GH_PAT=my-team") == "GH_PAT=my-team"  # not random: a name, not a key


SECRET_BUILD_ARGS = {
    **{f"{kind}-under-gh-pat": f"GH_PAT={token}" for kind, token in TOKENS.items()},
    **{f"{kind}-under-extra": f"EXTRA={TOKENS[kind]}" for kind in ("gitlab", "aws-key-id", "jwt")},
    "url-password": "MIRROR=https://user:hunter2@mirror.example/debian",
    "bearer": "HEADER=Bearer abcdefgh12345678",
    "random-hex-under-gh-pat": f"GH_PAT={secrets.token_hex(20)}",
    "random-under-db-pwd": f"DB_PWD={secrets.token_urlsafe(24)}7",
}


@pytest.mark.parametrize("argument", SECRET_BUILD_ARGS.values(), ids=SECRET_BUILD_ARGS)
def test_build_args_holding_a_secret_by_value_are_refused(argument: str) -> None:
    from moatbridge.core.scale_recipes import extra_build_args as _extra_build_args

    with pytest.raises(InputError) as caught:
        _extra_build_args((argument,))
    assert "looks like a secret" in caught.value.message
    value = argument.partition("=")[2]
    assert value not in caught.value.message + (caught.value.hint or "")


def test_build_args_that_only_resemble_a_secret_pass() -> None:
    from moatbridge.core.scale_recipes import extra_build_args as _extra_build_args

    digest = "0f3a9c2b7d1e4f5a6b8c9d0e1f2a3b4c"
    assert _extra_build_args((f"SCALE_SHA256={digest}", "GH_PAT_OWNER=my-team", "MIRROR=https://h/d")) == (
        ("SCALE_SHA256", digest), ("GH_PAT_OWNER", "my-team"), ("MIRROR", "https://h/d")
    )  # fmt: skip


def test_a_crash_report_masks_a_token_under_an_ordinary_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    token = TOKENS["github-classic"]
    words = ["setup", "--yes", "--build-arg", f"GH_PAT={token}"]
    assert _crash_in_process(monkeypatch, words, f"build arg GH_PAT={token} and {TOKENS['aws-key-id']}") == 70
    assert token not in capsys.readouterr().err
    (report,) = (tmp_path / "moatbridge-home" / "state").glob("crash-*.log")
    text = report.read_text()
    assert token not in text and TOKENS["aws-key-id"] not in text
    assert "GH_PAT=***" in text and "RuntimeError" in text


def test_build_output_shown_masks_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    from moatbridge.adapters.docker_api import StreamEvent
    from moatbridge.adapters.progress import BuildView, TransferView

    token = TOKENS["gitlab"]
    with BuildView("Building", verbose=True) as view:
        view(StreamEvent("step", f"Step 3/9 : RUN curl -H 'PRIVATE-TOKEN: {token}' https://x"))
        view(StreamEvent("log", f"fetching https://ci:{token}@git.example/repo"))
    with TransferView("Pulling") as transfer:
        transfer(StreamEvent("status", f"auth {TOKENS['jwt']}"))
    out = capsys.readouterr()
    assert "Step 3/9" in out.out + out.err
    assert token not in out.out + out.err and TOKENS["jwt"] not in out.out + out.err


# --- the proxy carries a URL's query token ------------------------------------------------------


def test_the_proxy_keeps_a_query_token_upstream(tmp_path: Path) -> None:
    (tmp_path / "dists" / "trixie").mkdir(parents=True)
    (tmp_path / "dists" / "trixie" / "Release").write_text("Suite: trixie\n")
    token = f"token={secrets.token_hex(10)}"
    with StandinRepoServer(tmp_path, query=token) as server:
        direct = f"{server.url}/dists/trixie/Release"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(direct, timeout=10)  # the control: no token, no file
        assert refused.value.code == 403
        with serve_repo_proxy(f"{server.url}?{token}", None) as proxy:
            assert token not in proxy
            with urllib.request.urlopen(f"{proxy}/dists/trixie/Release", timeout=10) as response:
                assert response.read() == b"Suite: trixie\n"
            with urllib.request.urlopen(f"{proxy}/dists/trixie/Release?x=1", timeout=10) as response:
                assert response.status == 200
        seen = server.requests
    assert [r.path for r in seen if r.status == 200] == [
        f"/dists/trixie/Release?{token}", f"/dists/trixie/Release?x=1&{token}"
    ]  # fmt: skip


# --- scanning helpers ---------------------------------------------------------------------------


def scan_metadata(image: str, needles: dict[str, bytes]) -> tuple[list[str], str]:
    """``docker history --no-trunc`` and ``docker inspect``; returns (findings, the history text)."""
    history = subprocess.run(
        ["docker", "history", "--no-trunc", "--format", "{{.CreatedBy}}", image],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    inspect = subprocess.run(["docker", "inspect", image], capture_output=True, text=True, check=True).stdout
    found: list[str] = []
    scan_bytes("docker history", history.encode(), needles, found)
    scan_bytes("docker inspect", inspect.encode(), needles, found)
    return found, history


class ProcessWatch:
    """Samples /proc/*/cmdline and /proc/*/environ of every process while active.

    ``ignore`` holds PIDs whose own argv carries a secret on purpose (the moatbridge
    the test starts with a token in its --repo-url). ``argv_of`` records the argv
    of processes whose name matches, so a test can check what they were given.
    """

    def __init__(self, needles: dict[str, bytes], watch_names: tuple[str, ...] = ()) -> None:
        self.needles = needles
        self.ignore: set[int] = {os.getpid()}
        # The exact argv of commands the test starts with a secret in them on purpose: known
        # before they start (a PID is known only after, when the sampler may have seen it).
        self.ignore_cmdlines: set[bytes] = set()
        self.watch_names = watch_names
        self.findings: list[str] = []
        self.seen_argv: dict[int, list[str]] = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or int(entry.name) in self.ignore:
                continue
            for what in ("cmdline", "environ"):
                try:
                    with open(f"/proc/{entry.name}/{what}", "rb") as handle:
                        data = handle.read()
                except OSError:
                    continue
                if what == "cmdline" and data in self.ignore_cmdlines:
                    break  # the process the user started: its argv is theirs; nothing else to read
                if what == "cmdline" and data:
                    words = [w.decode(errors="replace") for w in data.rstrip(b"\0").split(b"\0")]
                    if any(os.path.basename(w) in self.watch_names for w in words[:2]):
                        self.seen_argv[int(entry.name)] = words
                for label, needle in self.needles.items():
                    if needle in data:
                        self.findings.append(f"{label} in /proc/{entry.name}/{what}: {data[:200]!r}")
        self.samples += 1

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(0.02)

    @contextmanager
    def active(self) -> Iterator[ProcessWatch]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join(10)


def _engine_log_findings(needles: dict[str, bytes], offset: int) -> list[str]:
    log = Path("/var/log/dockerd.log")
    if not log.is_file():
        return []
    with log.open("rb") as handle:
        handle.seek(offset)
        data = handle.read()
    return [f"{label} in the engine's log" for label, needle in needles.items() if needle in data]


def _log_offset() -> int:
    log = Path("/var/log/dockerd.log")
    return log.stat().st_size if log.is_file() else 0


def _remove_image(image: str) -> None:
    subprocess.run(["docker", "rmi", "-f", image], capture_output=True, check=False)


# --- a mirror with credentials and a token: debootstrap's argv and the base image ----------------

FAKE_DEBOOTSTRAP = r"""#!/bin/sh
# Stands in for debootstrap (the real one fetches a whole distribution): records its
# argv, fetches the suite's Release file with wget (which, like debootstrap, would use
# credentials in the URL) through the mirror URL it was given, and leaves a root
# filesystem with the sources list debootstrap writes, naming that URL.
set -eu
printf '%s\n' "$@" > "$MB_TEST_ARGV"
variant="$1"; suite="$2"; target="$3"; mirror="$4"
mkdir -p "$target/etc/apt" "$target/var/lib/apt/lists" "$target/debootstrap"
wget -q -O "$target/etc/apt/Release.fetched" "$mirror/dists/$suite/Release"
echo "deb $mirror $suite main" > "$target/etc/apt/sources.list"
echo "$mirror" > "$target/var/lib/apt/lists/left-behind"
"""


@pytest.mark.engine
def test_a_mirror_with_credentials_reaches_neither_debootstrap_nor_the_image(
    engine_version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moatbridge.adapters import docker_api
    from moatbridge.adapters.bootstrap import bootstrap_base
    from moatbridge.core.catalog import Bootstrap

    if os.geteuid() != 0:
        pytest.skip("bootstrapping needs root")
    mirror_root = tmp_path / "mirror"
    (mirror_root / "dists" / "trixie").mkdir(parents=True)
    release = f"Suite: trixie\nLabel: secrets-test-{secrets.token_hex(4)}\n"
    (mirror_root / "dists" / "trixie" / "Release").write_text(release)
    user, password, token = f"mbuser{secrets.token_hex(5)}", secrets.token_urlsafe(20), secrets.token_hex(12)
    needles = {"username": user.encode(), "password": password.encode(), "token": token.encode()}

    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "debootstrap"
    fake.write_text(FAKE_DEBOOTSTRAP)
    fake.chmod(0o755)
    argv_file = tmp_path / "argv"
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    monkeypatch.setenv("MB_TEST_ARGV", str(argv_file))
    tag = f"moatbridge-test/secrets-base:{secrets.token_hex(4)}"
    client = docker_api.connect()
    offset = _log_offset()
    watch = ProcessWatch(needles, watch_names=("debootstrap",))
    try:
        with StandinRepoServer(mirror_root, user, password, query=f"token={token}") as server:
            host = server.url.removeprefix("http://")
            mirror = f"http://{user}:{password}@{host}/?token={token}"
            boot = Bootstrap(
                suite="trixie", variant="minbase", mirror="http://unused.invalid/debian", tag=tag
            )
            with watch.active():
                image_id = bootstrap_base(client, boot, mirror, lambda line: None, workdir=str(tmp_path))
            seen = server.requests
        # The secrets went where they belong: to the mirror, and only there.
        assert [r.status for r in seen] == [200]
        assert seen[0].path == f"/dists/trixie/Release?token={token}"
        assert seen[0].authorization == Credentials(user, password).header_value()

        argv = argv_file.read_text().splitlines()
        assert argv[:3] == ["--variant=minbase", "trixie", argv[2]]
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/[0-9a-f]{32}", argv[3]), argv
        assert [label for label, needle in needles.items() if needle.decode() in "\n".join(argv)] == []
        assert watch.samples > 0 and watch.findings == []

        sources = docker_api.read_file_from_image(client, image_id, "/etc/apt/sources.list")
        assert sources == f"deb {server.url}/ trixie main\n"  # the mirror, without its secrets
        fetched = docker_api.read_file_from_image(client, image_id, "/etc/apt/Release.fetched")
        assert fetched == release  # the proxy really served debootstrap
        assert docker_api.read_file_from_image(client, image_id, "/var/lib/apt/lists/left-behind") is None

        found, files = scan_saved_image(image_id, {**needles, "control": release.encode()}, tmp_path)
        assert files >= 2
        assert [f for f in found if f.startswith("control")], "the layer scan would not see a secret"
        assert [f for f in found if not f.startswith("control")] == []
        found, _ = scan_metadata(image_id, needles)
        assert found == []
        assert _engine_log_findings(needles, offset) == []
    finally:
        client.close()
        _remove_image(tag)


@pytest.mark.engine
@pytest.mark.parametrize(
    ("mirror", "shown"),
    [
        ("http://u:hunter2@mirror.example/debian", "http://***@mirror.example/debian"),  # plain http
        ("https://u:hunter2@mirror.example/debian#x", "https://***@mirror.example/debian#***"),
        ("https://u:hunter2@[::1/debian", "The mirror *** cannot"),  # unparseable
        ("https://:hunter2@mirror.example/debian", "https://***@mirror.example/debian"),  # no user
    ],
)
def test_unusable_mirrors_with_credentials_are_refused_cleanly(
    engine_version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mirror: str, shown: str
) -> None:
    from moatbridge.adapters import docker_api
    from moatbridge.adapters.bootstrap import bootstrap_base
    from moatbridge.core.catalog import Bootstrap

    if os.geteuid() != 0:
        pytest.skip("bootstrapping needs root")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    (tmp_path / "debootstrap").write_text('#!/bin/sh\ntouch "$MB_TEST_RAN"\nexit 1\n')
    (tmp_path / "debootstrap").chmod(0o755)
    monkeypatch.setenv("MB_TEST_RAN", str(tmp_path / "ran"))
    boot = Bootstrap(suite="trixie", variant="minbase", mirror="http://unused.invalid/debian", tag="x/y:z")
    client = docker_api.connect()
    try:
        with pytest.raises(InputError) as caught:
            bootstrap_base(client, boot, mirror, lambda line: None)
    finally:
        client.close()
    assert "hunter2" not in caught.value.message + (caught.value.hint or "")
    assert shown in caught.value.message
    assert not (tmp_path / "ran").exists()  # refused before debootstrap started


# --- a commercial SCALE build: credentials file + a token in the repository URL -------------------


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> StandinRepo:
    missing = missing_tools()
    if missing:
        pytest.fail(f"the stand-in repository needs: {' '.join(missing)}")
    return build_standin_repo(tmp_path_factory.mktemp("secrets-standin"))


@pytest.mark.engine
def test_a_build_with_credentials_leaves_no_secret_byte_anywhere(
    debian_base: str, standin: StandinRepo, tmp_path: Path
) -> None:
    user = f"mbx-customer-{secrets.token_hex(6)}"
    password = secrets.token_urlsafe(24)
    token = secrets.token_hex(16)
    needles = {
        "username": user.encode(),
        "password": password.encode(),
        "base64 user:password": Credentials(user, password).header_value().split()[1].encode(),
        "token": token.encode(),
    }
    creds = tmp_path / "credentials.json"
    creds.write_text(json.dumps({"username": user, "password": password}))
    creds.chmod(0o600)
    env = accepting_env(["--credentials-file"])  # the commercial licence, accepted
    home = Path(env["MOATBRIDGE_HOME"])  # every file the build writes there is scanned

    offset = _log_offset()
    image_id = ""
    try:
        with StandinRepoServer(standin.root, user, password, query=f"token={token}") as server:
            repo_url = f"{server.url}?token={token}"
            common = [
                sys.executable, "-m", "moatbridge", "image", "build", "--flavour", "scale",
                "--distro", "ubuntu24.04", "--base-image", debian_base, "--repo-url", repo_url,
                "--credentials-file", str(creds), "--build-arg", "SCALE_PREREQS=", "--no-space-check",
                "--build-arg", f"SCALE_VENDOR_HOSTS={standin.vendor_host}",
                "--json",
            ]  # fmt: skip
            dry = subprocess.run([*common, "--dry-run"], capture_output=True, text=True, env=env, timeout=300)
            assert dry.returncode == 0, dry.stderr
            assert token not in dry.stdout + dry.stderr
            assert json.loads(dry.stdout)["buildargs"]["SCALE_REPO_URL"] == f"{server.url}?token=***"

            watch = ProcessWatch(needles)
            # Its own argv carries the token: the user put it there.
            watch.ignore_cmdlines.add(b"".join(word.encode() + b"\0" for word in [*common, "--verbose"]))
            with watch.active():
                build = subprocess.Popen(
                    [*common, "--verbose"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
                )  # fmt: skip
                out, err = build.communicate(timeout=900)
            seen = server.requests
        assert build.returncode == 0, err[-3000:]
        image_id = json.loads(out)["id"]

        # The controls: the secrets did reach the repository, and only through the proxy.
        expected = Credentials(user, password).header_value()
        assert seen and all(r.authorization == expected for r in seen)
        assert [r for r in seen if r.status in (401, 403)] == []  # (apt asks for InRelease: 404 is fine)
        assert all(r.path.endswith(f"?token={token}") for r in seen)
        assert any(r.path.startswith("/pool/main/s/scale/scale_") for r in seen)

        findings: list[str] = []
        scan_bytes("build output", (out + err).encode(), needles, findings)
        for path in home.rglob("*"):
            if path.is_file():
                scan_bytes(f"state file {path.relative_to(home)}", path.read_bytes(), needles, findings)
        found, history = scan_metadata(image_id, needles)
        findings += found
        assert "SCALE_REPO_URL=http://127.0.0.1:" in history  # build args are in the history, as feared
        layer_findings, files = scan_saved_image(
            image_id, {**needles, "control": b"TEST STAND-IN -- NOT SPECTRAL"}, tmp_path
        )
        assert files > 1000, "the layer scan saw suspiciously few files"
        assert any(f.startswith("control") for f in layer_findings), "the layer scan would not see a secret"
        findings += [f for f in layer_findings if not f.startswith("control")]
        findings += [f"process {f}" for f in watch.findings]
        findings += _engine_log_findings(needles, offset)
        assert watch.samples > 10
        assert findings == []

        config = json.loads(
            subprocess.run(["docker", "inspect", image_id], capture_output=True, text=True, check=True).stdout
        )[0]["Config"]
        assert not any("127.0.0.1" in e for e in config["Env"] or [])
        assert not any("127.0.0.1" in v for v in (config["Labels"] or {}).values())
    finally:
        if image_id:
            _remove_image(image_id)
