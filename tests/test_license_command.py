"""`moatbridge license ...` through the real CLI, with an isolated MOATBRIDGE_HOME."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from moatbridge.adapters.records import default_licences_dir, load_licences

from conftest import cli
from support.pty_session import PtySession


def licence_record(licence_id: str) -> Path:
    return default_licences_dir() / f"{licence_id}.yaml"


def _status(licence: str) -> dict[str, object]:
    rows = json.loads(cli("license", "status", "--json").stdout)["licences"]
    return next(r for r in rows if r["licence"] == licence)


def test_accept_status_revoke(tmp_path: Path) -> None:
    assert _status("scale-free")["status"] == "missing"
    dry = cli("license", "accept", "scale-free", "--use", "non-commercial", "--yes", "--dry-run")
    assert dry.returncode == 0 and "Would record" in dry.stdout
    assert _status("scale-free")["status"] == "missing"
    done = cli("license", "accept", "scale-free", "--use", "non-commercial", "--yes")
    assert done.returncode == 0, done.stderr
    row = _status("scale-free")
    assert (row["status"], row["use"]) == ("accepted", "non-commercial")
    record = (tmp_path / "moatbridge-home" / "consents" / "scale-free").read_bytes()
    licence = load_licences()["scale-free"]
    assert record.split(b"\n")[0] == licence.terms_hash().encode()  # what the shims' runner compares
    assert licence.terms_hash() == hashlib.sha256(licence_record("scale-free").read_bytes()).hexdigest()
    assert b"\nuse=non-commercial\n" in record and b"\nuser=" in record
    revoked = cli("license", "revoke", "scale-free")
    assert revoked.returncode == 0 and "Revoked" in revoked.stdout
    assert _status("scale-free")["status"] == "missing"
    assert not (tmp_path / "moatbridge-home" / "consents" / "scale-free").exists()


def test_commercial_use_of_the_free_licence_is_refused() -> None:
    result = cli("license", "accept", "scale-free", "--use", "commercial", "--yes")
    assert result.returncode == 2
    assert "does not allow commercial use" in result.stderr and "open flavour" in result.stderr


def test_no_terminal_without_yes_fails_at_once() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", "license", "accept", "scale-free", "--use", "non-commercial"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode == 2
    assert "--yes" in result.stderr


def _interactive(answer: str) -> tuple[int | None, str]:
    """Answer the confirmation on a real pseudo-terminal as soon as it is asked."""
    argv = [sys.executable, "-m", "moatbridge", "license", "accept", "scale-free", "--use", "non-commercial"]
    session = PtySession(argv, dict(os.environ))
    if session.appears("[y/N]", timeout=60):
        session.send(answer, settle=0)
    code = session.finish(60, until_eof=True)
    return code, session.screen


def test_declining_on_a_terminal_records_nothing() -> None:
    code, screen = _interactive("n\n")
    assert code == 2 and "was not accepted; nothing was recorded" in screen
    # The whole screen, in order: who, what use, the plain-words summary, where the binding
    # text is, then the question naming the use being accepted.
    lines = screen.splitlines()
    expected = [
        "SCALE Free Licence (scale-free, terms 2026) - Spectral Compute Ltd",
        "Covers: scale flavour(s). Allowed use: non-commercial.",
        "Acceptance required.",
        "In plain words (moatbridge's summary, not the licence itself):",
        "- Free of charge, for non-commercial use only: research, teaching, personal",
        "The binding text: https://docs.scale-lang.com/stable/licensing/",
        "Inside the image: /opt/scale/LICENSE.txt",
        "Do you accept the SCALE Free Licence for non-commercial use? [y/N] n",
    ]
    positions = [lines.index(line) for line in expected]  # ValueError names a missing line
    assert positions == sorted(positions), screen
    assert _status("scale-free")["status"] == "missing"


def test_accepting_on_a_terminal(tmp_path: Path) -> None:
    code, screen = _interactive("y\n")
    assert code == 0, screen
    assert _status("scale-free")["status"] == "accepted"


def test_unknown_licence() -> None:
    result = cli("license", "show", "gpl-9")
    assert result.returncode == 2 and "There is no licence 'gpl-9'." in result.stderr
