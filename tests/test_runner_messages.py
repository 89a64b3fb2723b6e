"""The shims' runner shows what its messages quote by the rule of core.textsafe.printable:
printable UTF-8 (a project directory named "café") as it is, while control characters,
invalid UTF-8, C1 controls, bidirectional and zero-width format characters stay escaped.
The runner is sh, so its rule (core.sh_bytes.SH_SHOWN) is checked byte for byte against the
Python one, in dash and bash, and through the real runner with a pin in such a directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.core.pins import PIN_FILE
from moatbridge.core.sh_bytes import SH_SHOWN, shown_bytes
from moatbridge.core.shims import render_runner
from moatbridge.core.textsafe import printable

SHELLS = ("dash", "bash")

# bytes -> why they are here; the expected text is always textsafe.printable's
SAMPLES: dict[bytes, str] = {
    b"plain/ascii path": "printable ASCII",
    "café".encode(): "a letter of two bytes",
    "日本語/プロジェクト".encode(): "letters of three bytes",
    "\U0001f600".encode(): "a character of four bytes",
    b"caf\xe9": "Latin-1, not UTF-8",
    b"\x1b]52;c;ZXZpbA==\x07": "an OSC 52 clipboard write",
    b"\x1b[2J\x1b[H": "clear the screen",
    b"tab\there\nnewline\rcr\x7f": "C0 controls and DEL",
    "\u0085 \u009b".encode(): "C1 controls, as UTF-8",
    b"\x9b31m": "a lone C1 byte",
    "a\u202eb\u200bc\ufeffd\u2066e\u2028f".encode(): "bidirectional and zero-width format characters",
    b"\xc0\xaf \xe0\x80\xaf": "overlong forms",
    b"\xed\xa0\x80": "a UTF-16 surrogate",
    b"\xf4\x90\x80\x80": "above U+10FFFF",
    b"\xe2\x82": "cut short at the end",
    b"\xe2\x82A\xf0\x9f\x98": "cut short before ASCII, and at the end",
    b"\xc3\xa9\xc3": "a whole letter, then a cut one",
    b"\xff\xfe\x80": "bytes that never start UTF-8",
    "é\u00a0ü".encode(): "non-ASCII printable, a no-break space",
}


def _shell(shell: str) -> str:
    found = shutil.which(shell)
    if found is None:
        pytest.fail(f"{shell} is not installed (.ci/run installs it)")
    return found


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
def test_the_runner_shows_bytes_by_the_rule_of_printable(shell: str, locale: str) -> None:
    script = SH_SHOWN + 'for v in "$@"; do mb_shown "$v"; printf "\\n"; done\n'
    result = subprocess.run(
        [_shell(shell), "-c", script, "sh", *SAMPLES],
        capture_output=True, timeout=30, env={"PATH": os.environ["PATH"], "LC_ALL": locale},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    shown = result.stdout.decode("utf-8").split("\n")[:-1]
    for (data, why), got in zip(SAMPLES.items(), shown, strict=True):
        expected = printable(data.decode("utf-8", "surrogateescape"), newlines=False)
        assert got == expected, (why, data, got)
        assert shown_bytes(data) == expected, (why, data)


_PYTHON_READER = """
from moatbridge.errors import InputError
from moatbridge.services.toolchains import pin_here
try:
    print("selected:%s" % (pin_here(),))
except InputError as error:
    print("moatbridge: %s\\nhint: %s" % (error.message, error.hint))
"""


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize(
    ("directory", "shown"),
    [
        ("café-プロジェクト", "café-プロジェクト"),
        ("red\x1b[31mtitle\x1b]0;pwned\x07", "red\\x1b[31mtitle\\x1b]0;pwned\\x07"),
    ],
)
def test_a_pin_in_a_directory_of_such_a_name_is_shown_so(
    tmp_path: Path, shell: str, directory: str, shown: str
) -> None:
    """A pin that names nothing, in that directory: the runner's sentence shows the path by
    the rule above, and says what the Python commands say."""
    home, project = tmp_path / "home", tmp_path / directory
    (home / "libexec").mkdir(parents=True)
    runner = home / "libexec" / "moatbridge-exec"
    runner.write_text(render_runner(str(home), "/nonexistent/moatbridge"))
    project.mkdir()
    (project / PIN_FILE).write_bytes(b"\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "PWD": str(project), "LC_ALL": "C"}
    ran = subprocess.run([_shell(shell), str(runner), "nvcc"], capture_output=True, cwd=project, env=env,
                         timeout=30, stdin=subprocess.DEVNULL)  # fmt: skip
    said = ran.stderr.decode("utf-8")
    assert ran.returncode == 127 and said.startswith("moatbridge: The pin file "), (ran.returncode, said)
    assert f"{tmp_path}/{shown}/{PIN_FILE} names no toolchain." in said, said
    assert not [c for c in said if ord(c) < 32 and c != "\n"], repr(said)
    python = subprocess.run([sys.executable, "-c", _PYTHON_READER], capture_output=True, cwd=project,
                            env={**env, "PYTHONPATH": os.pathsep.join(sys.path)}, timeout=30)  # fmt: skip
    assert python.returncode == 0, python.stderr.decode()
    assert python.stdout.decode("utf-8") == said


def test_the_sentences_the_runner_fills_in_are_plain_text() -> None:
    """The runner puts these in double quotes with its own variables in place: a quote, `$`,
    a backquote or a backslash in them would end the word or expand there."""
    from moatbridge.errors import IMAGE_GONE, IMAGE_GONE_HINT

    for template in (IMAGE_GONE, IMAGE_GONE_HINT):
        assert not set(template) & set('"$`\\'), template
