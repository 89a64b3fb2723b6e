"""Device-node access as a real unprivileged user: modes, groups, ACLs, stale logins."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.hostfs import HostFS

from conftest import run_as_nobody
from fixtures import machines

RENDER_GID = 4242
ORPHAN_GID = 4243


def _machine(shared_tmp: Path, group_file: str) -> Path:
    root = machines.build("rdna3-desktop", shared_tmp / "machine")
    (root / "etc").mkdir(exist_ok=True)
    (root / "etc/group").write_text(group_file)
    for node in ("dev/kfd", "dev/dri/renderD128"):
        os.chown(root / node, 0, RENDER_GID)
        (root / node).chmod(0o660)
    return root


def _devices(shared_tmp: Path, root: Path, groups: list[int] | None = None) -> dict[str, Any]:
    result = run_as_nobody(shared_tmp, ["detect", "--json", "--root", str(root)], groups=groups)
    assert result.returncode == 0, result.stderr
    devices = json.loads(result.stdout)["devices"]
    return {"kfd": devices["kfd"], "render": devices["render_nodes"][0]}


def test_not_in_group(shared_tmp: Path) -> None:
    root = _machine(shared_tmp, f"root:x:0:\nrender:x:{RENDER_GID}:alice\n")
    kfd = _devices(shared_tmp, root)["kfd"]
    assert kfd == {
        "path": "/dev/kfd", "exists": True, "accessible": False,
        "group": "render", "gid": RENDER_GID, "membership": "none",
    }  # fmt: skip


def test_added_to_group_but_not_logged_in_again(shared_tmp: Path) -> None:
    root = _machine(shared_tmp, f"render:x:{RENDER_GID}:alice,nobody\n")
    found = _devices(shared_tmp, root)
    assert (found["kfd"]["accessible"], found["kfd"]["membership"]) == (False, "needs-relogin")
    assert found["render"]["membership"] == "needs-relogin"


def test_in_group_for_this_session(shared_tmp: Path) -> None:
    root = _machine(shared_tmp, f"render:x:{RENDER_GID}:nobody\n")
    found = _devices(shared_tmp, root, groups=[RENDER_GID])
    assert (found["kfd"]["accessible"], found["kfd"]["membership"]) == (True, "active")


def test_acl_grants_access_without_group(shared_tmp: Path) -> None:
    """Debian's uaccess rule: the seat user gets an ACL entry, not the group."""
    if shutil.which("setfacl") is None:
        pytest.fail("setfacl is missing: .ci/run installs Debian's acl package")
    root = _machine(shared_tmp, f"render:x:{RENDER_GID}:\n")
    subprocess.run(["setfacl", "-m", "u:nobody:rw", str(root / "dev/dri/renderD128")], check=True)
    found = _devices(shared_tmp, root)
    assert (found["render"]["accessible"], found["render"]["membership"]) == (True, "none")
    assert found["kfd"]["accessible"] is False


def test_gid_without_a_name(shared_tmp: Path) -> None:
    """Inside containers the host's render gid often has no name."""
    root = _machine(shared_tmp, "root:x:0:\n")
    os.chown(root / "dev/kfd", 0, ORPHAN_GID)
    kfd = _devices(shared_tmp, root)["kfd"]
    assert (kfd["group"], kfd["gid"], kfd["membership"]) == (None, ORPHAN_GID, "none")


def test_live_identity_uses_the_system_group_database() -> None:
    identity = HostFS("/").identity({0, os.getgid()})
    assert identity.group_name(0) == "root"
    assert identity.membership(os.getgid()) == "active"
