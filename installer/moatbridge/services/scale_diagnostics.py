"""SCALE's own diagnostics in `doctor`: scaleinfo, scalediag and hsakmtsysinfo from
/opt/scale/bin, run in an installed SCALE toolchain's image with the GPU devices.

Without /dev/kfd they could only say that they cannot open it, so doctor says that in
one line instead of running them. A tool missing from the image is a warning.
"""

from __future__ import annotations

import os
from typing import Any

from moatbridge.adapters import proc
from moatbridge.adapters.containers import transient_label_args
from moatbridge.core.check import Check
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.toolchains import Toolchain
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths

TOOLS = ("scaleinfo", "scalediag", "hsakmtsysinfo")
_MARK = "@@moatbridge-tool"
# One container for the three; each tool's exit status and its last lines, between marks.
_SCRIPT = (
    "for t in " + " ".join(TOOLS) + "; do "
    f'if [ -x "/opt/scale/bin/$t" ]; then out=$(timeout 60 "/opt/scale/bin/$t" 2>&1); s=$?; '
    f'echo "{_MARK} $t $s"; printf "%s\\n" "$out" | tail -n 20; '
    f'else echo "{_MARK} $t missing"; fi; done'
)


def parse_tool_output(output: str) -> dict[str, tuple[str, list[str]]]:
    """{tool: (exit status or "missing", its output lines)} from the script's output."""
    found: dict[str, tuple[str, list[str]]] = {}
    current: str | None = None
    for line in output.splitlines():
        if line.startswith(_MARK + " "):
            parts = line.split()
            if len(parts) == 3 and parts[1] in TOOLS:
                current = parts[1]
                found[current] = (parts[2], [])
                continue
        if current is not None and line.strip():
            found[current][1].append(line.strip())
    return found


def verdicts(name: str, found: dict[str, tuple[str, list[str]]]) -> list[Check]:
    checks = []
    for tool in TOOLS:
        check_id, title = f"scale-{tool}-{name}", f"SCALE {tool} ({name})"
        status, lines = found.get(tool, ("missing", []))
        if status == "missing":
            missing = f"/opt/scale/bin/{tool} is not in the image"
            checks.append(Check(check_id, title, "warn", missing, "an older SCALE, or a trimmed image"))
        elif status == "0":
            checks.append(Check(check_id, title, "pass", lines[0] if lines else "exit 0"))
        else:
            said = lines[-1] if lines else "no output"
            checks.append(Check(check_id, title, "warn", f"exit {status}: {said}",
                                f"see its full output: moatbridge run -t {name} -- {tool}"))  # fmt: skip
    return checks


def run_tools(image: str, gpu_args: tuple[str, ...]) -> str:
    result = proc.run_captured(
        ["docker", "run", "--rm", *transient_label_args(), "--network", "host", *gpu_args,
         "--entrypoint", "bash", image, "-c", _SCRIPT],
        timeout=300,
    )  # fmt: skip
    return result.stdout + result.stderr


def scale_tool_checks(toolchain: Toolchain, report: Any) -> list[Check]:
    """The tools' verdicts for one SCALE toolchain, or one line saying why they were not run."""
    from moatbridge.services.consent import require_for
    from moatbridge.services.verify import gpu_run_args

    check_id, title = f"scale-tools-{toolchain.name}", f"SCALE's tools ({toolchain.name})"
    if is_nvidia_target(toolchain.target):
        return [
            Check(
                check_id, title, "skip", f"{toolchain.target} is NVIDIA mode; SCALE's AMD tools do not apply"
            )
        ]
    if not report.kfd.exists or not os.path.exists("/dev/kfd"):  # the container runs here
        return [
            Check(
                check_id,
                title,
                "skip",
                "skipped: no /dev/kfd (scaleinfo, scalediag and hsakmtsysinfo need it)",
            )
        ]
    try:
        require_for(Paths.from_environ(os.environ), toolchain, f"Running SCALE's tools of {toolchain.name}")
    except MoatbridgeError as exc:
        return [Check(check_id, title, "skip", f"not run: {exc.message}", exc.hint)]
    gpu_args = gpu_run_args(report, toolchain.target) or tuple(
        arg for path in ("/dev/kfd", "/dev/dri") if os.path.exists(path) for arg in ("--device", path)
    )
    try:
        output = run_tools(toolchain.image_id or toolchain.image, gpu_args)
    except (OSError, proc.CommandFailed) as exc:
        return [
            Check(
                check_id, title, "warn", f"could not run them: {exc}", "see 'moatbridge doctor' engine checks"
            )
        ]
    return verdicts(toolchain.name, parse_tool_output(output))
