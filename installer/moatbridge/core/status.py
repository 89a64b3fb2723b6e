"""`moatbridge status`: a first look, composed from facts the adapters gathered. Pure.

What `rustup show` gives: the installed toolchains with the default and the active one
(and why it is active), whether each warm container runs, the engine, the GPUs found and
the next command to try. Nothing here asks the engine or reads the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from moatbridge.core.emulator import Emulator
from moatbridge.core.emulator_settings import EmulatorSetting
from moatbridge.core.engine_checks import START_SYSTEM_DAEMON
from moatbridge.core.shims import warm_container_name
from moatbridge.core.toolchains import State

# A warm container's state, as the engine reported it (or could not).
RUNNING, STOPPED, ABSENT, UNKNOWN = "running", "stopped", "not started", "unknown"


@dataclass(frozen=True)
class EngineView:
    endpoint: str | None  # None: the docker configuration naming it is broken (see problem)
    # Warm containers by name -> running; None when the engine could not be asked.
    containers: tuple[tuple[str, bool], ...] | None
    problem: str | None = None  # "not running", "permission denied", "not answering ..."
    # What chose the endpoint: "DOCKER_HOST" or "docker context 'x'"; None: the default socket.
    source: str | None = None
    hint: str | None = None  # how to mend a broken docker configuration or context
    # (command, why) when the engine does not answer: it depends on what chose the endpoint
    # (a rootless socket, DOCKER_HOST, a docker context, the system daemon).
    advice: tuple[str, str] | None = None

    @property
    def reachable(self) -> bool:
        return self.containers is not None


@dataclass(frozen=True)
class GpuView:
    vendor: str
    name: str
    target: str | None  # gfxNNNN or sm_NN; None when unknown
    usable: bool


@dataclass(frozen=True)
class Facts:
    """What the adapters found; `active` is (name, where it came from) or None."""

    home: str
    state: State
    active: tuple[str, str] | None
    engine: EngineView
    gpus: tuple[GpuView, ...]
    uid: int
    home_key: str  # Paths.engine_key: the warm containers are this home's
    nvcc: str | None  # what `nvcc` on PATH resolves to (None: nothing)
    notes: tuple[str, ...] = ()  # what the adapters could not find out (e.g. an unreadable pin file)
    emulator: Emulator | None = None  # the GPU emulator `run --emulate` here finds
    emulator_setting: EmulatorSetting | None = None  # the active toolchain's (`moatbridge emulator set`)


@dataclass(frozen=True)
class Step:
    command: str
    why: str = ""


@dataclass(frozen=True)
class ToolchainView:
    name: str
    flavour: str
    targets: tuple[str, ...]
    cuda_version: str
    image: str
    default: bool
    active: bool
    warm: str  # RUNNING, STOPPED, ABSENT or UNKNOWN


@dataclass(frozen=True)
class Overview:
    home: str
    toolchains: tuple[ToolchainView, ...]
    default: str | None
    active: str | None
    active_from: str | None
    engine: EngineView
    gpus: tuple[GpuView, ...]
    shims_on_path: bool
    next_steps: tuple[Step, ...]  # the first is the one to try now
    problems: tuple[str, ...]
    emulator: Emulator | None = None
    emulator_setting: EmulatorSetting | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "home": self.home,
            "toolchains": [
                {
                    "name": t.name,
                    "flavour": t.flavour,
                    "targets": list(t.targets),
                    "cuda_version": t.cuda_version,
                    "image": t.image,
                    "default": t.default,
                    "active": t.active,
                    "warm_container": t.warm,
                }
                for t in self.toolchains
            ],
            "default": self.default,
            "active": {"name": self.active, "from": self.active_from} if self.active else None,
            "engine": {
                "endpoint": self.engine.endpoint,
                "running": self.engine.reachable,
                "problem": self.engine.problem,
                "from": self.engine.source,
            },
            "gpus": [
                {"vendor": g.vendor, "name": g.name, "target": g.target, "usable": g.usable}
                for g in self.gpus
            ],
            "shims_on_path": self.shims_on_path,
            "emulator": _emulator_json(self.emulator),
            "emulator_setting": _setting_json(self.emulator_setting),
            "next": [{"command": step.command, "why": step.why} for step in self.next_steps],
            "problems": list(self.problems),
        }


def _emulator_json(emulator: Emulator | None) -> dict[str, Any] | None:
    if emulator is None:
        return None
    return {"cli": emulator.cli, "version": emulator.version, "found_by": emulator.found_by,
            "targets": list(emulator.targets)}  # fmt: skip


def _setting_json(setting: EmulatorSetting | None) -> dict[str, Any] | None:
    return None if setting is None else {"toolchain": setting.toolchain, **setting.to_json()}


def _warm(engine: EngineView, name: str) -> str:
    if engine.containers is None:
        return UNKNOWN
    found = dict(engine.containers)
    if name not in found:
        return ABSENT
    return RUNNING if found[name] else STOPPED


def _is_shim(path: str | None, home: str) -> bool:
    return path is not None and path.startswith(home.rstrip("/") + "/")


def _engine_step(engine: EngineView) -> Step:
    if engine.problem == "permission denied":
        return Step("sudo usermod -aG docker $USER", "the engine refused this user; log in again after it")
    if engine.problem == "not running":
        return Step(*(engine.advice or START_SYSTEM_DAEMON))
    if engine.endpoint is None:  # the docker CLI's own configuration names no usable engine
        return Step("docker context ls", engine.hint or "")
    return Step("moatbridge doctor", f"the engine: {engine.problem}")


def _next_steps(facts: Facts, views: tuple[ToolchainView, ...], on_path: bool) -> tuple[Step, ...]:
    steps: list[Step] = []
    if not facts.engine.reachable:
        steps.append(_engine_step(facts.engine))
    if not views:
        return (*steps, Step("moatbridge setup", "no toolchain yet: the wizard picks one for this machine"))
    if not on_path:
        steps.append(Step(f'. "{facts.home}/env"', "or open a new shell: nvcc is not on PATH in this one"))
    installed = {t for view in views for t in view.targets}
    missing = sorted({g.target for g in facts.gpus if g.target and g.usable} - installed)
    if missing and not any(g.target in installed for g in facts.gpus):
        flags = " ".join(f"--target {t}" for t in missing)
        steps.append(
            Step(f"moatbridge setup {flags}", "no installed toolchain builds for the GPU found here")
        )
    steps.append(Step("nvcc --version", "the active toolchain's compiler, through its shim"))
    emulated = facts.emulator is not None and installed & set(facts.emulator.targets)
    if any(g.usable for g in facts.gpus):
        steps.append(Step("nvcc -o app app.cu && moatbridge run ./app", "build, then run it on the GPU"))
    elif emulated:
        steps.append(
            Step(
                "nvcc -o app app.cu && moatbridge run --emulate ./app",
                "no GPU here: run it on an emulated one",
            )
        )
    else:
        steps.append(Step("nvcc -o app app.cu", "no usable GPU here: build here, run where there is one"))
    return tuple(steps)


def overview(facts: Facts) -> Overview:
    state = facts.state
    known = {t.name for t in state.toolchains}
    active_name, active_from = facts.active if facts.active else (None, None)
    problems = list(facts.notes)
    if active_name is not None and active_name not in known:
        problems.append(f"{active_from} names {active_name}, which is not installed")
    views = tuple(
        ToolchainView(
            name=t.name,
            flavour=t.flavour,
            targets=t.targets,
            cuda_version=t.spec.cuda_version or "",
            image=t.image,
            default=t.name == state.default,
            active=t.name == active_name,
            warm=_warm(facts.engine, warm_container_name(t.name, facts.uid, facts.home_key)),
        )
        for t in state.toolchains
    )
    on_path = _is_shim(facts.nvcc, facts.home)
    return Overview(
        home=facts.home,
        toolchains=views,
        default=state.default,
        active=active_name,
        active_from=active_from,
        engine=facts.engine,
        gpus=facts.gpus,
        shims_on_path=on_path,
        next_steps=_next_steps(facts, views, on_path),
        problems=tuple(problems),
        emulator=facts.emulator,
        emulator_setting=facts.emulator_setting,
    )
