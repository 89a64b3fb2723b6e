"""Commands that generated files suggest to their reader are real: each parses with the
CLI's own parser (an option that does not exist would send the user to an error)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.core.ci_templates import CiSpec, github_workflow, gitlab_ci
from moatbridge.parser import build_parser

from support.environ import environ_without

LOCAL = "moatbridge/open:12.4-devel-trixie-gfx1030"
_SUGGESTED = re.compile(r"moatbridge (image [^)\n]*)")


def suggested_commands(text: str) -> list[list[str]]:
    return [shlex.split(found.replace("REGISTRY/REPO:TAG", "reg.example/t/open:1")) for found in
            _SUGGESTED.findall(text)]  # fmt: skip


def assert_parses(words: list[str]) -> None:
    try:
        build_parser().parse_args(words)
    except SystemExit:
        pytest.fail(f"the suggested `moatbridge {shlex.join(words)}` is not a valid command")


@pytest.mark.parametrize("render", [github_workflow, gitlab_ci], ids=["github", "gitlab"])
@pytest.mark.parametrize("pulled", [LOCAL, "reg.example/team/open:1"], ids=["local", "registry"])
def test_ci_headers_suggest_a_real_push_command(render: object, pulled: str) -> None:
    assert callable(render)
    text = render(CiSpec("open-gfx1030", "open", "gfx1030", pulled, local_image=LOCAL))
    commands = suggested_commands(text)
    assert commands, text[:400]
    for words in commands:
        assert_parses(words)
        assert words[:2] == ["image", "push"] and "--from" in words and LOCAL in words


def test_the_k8s_header_suggests_a_real_push_command(tmp_path: Path) -> None:
    home = tmp_path / "mbh"
    home.mkdir()
    toolchain = {
        "name": "open-gfx1030", "flavour": "open", "variant": "devel", "targets": ["gfx1030"],
        "cuda_version": "12.4", "image": LOCAL, "image_id": "sha256:" + "0" * 64,
        "licence": "open-components", "digest": None, "created": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    state = {"version": 1, "default": "open-gfx1030", "toolchains": [toolchain], "consents": [], "files": []}
    (home / "state.json").write_text(json.dumps(state))
    env = environ_without("MOATBRIDGE_", "XDG_")
    env.update(HOME=str(tmp_path), MOATBRIDGE_HOME=str(home), DOCKER_HOST="unix:///nonexistent/docker.sock")
    for extra in ((), ("--image", "reg.example/team/open:1")):
        result = subprocess.run(
            [sys.executable, "-m", "moatbridge", "k8s", *extra, "--", "make"],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        commands = suggested_commands(result.stdout)
        assert commands, result.stdout[:400]
        for words in commands:
            assert_parses(words)
            assert "--from" in words and LOCAL in words
