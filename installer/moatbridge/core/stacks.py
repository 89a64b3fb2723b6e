"""Which stack (distribution + ROCm) a toolchain stands on, and why (pure).

The open flavour's distributions are stacks of different ages: Debian trixie's ROCm 5.7
(stable), sid's ROCm 6.4 and experimental's ROCm 7.2 (previews: they move under you). The
catalog lists them oldest first. The default for a set of targets is the oldest stable
stack whose libraries serve every one of them; failing that, the oldest preview that does;
failing that, the oldest whose compiler at least builds for them (the plan then warns).
`setup`, the wizard, `detect` and `doctor` all read this one table.
"""

from __future__ import annotations

from dataclasses import dataclass

from moatbridge.core.catalog import Distro, Flavour


@dataclass(frozen=True)
class StackChoice:
    distro: Distro
    reason: str  # one line a person can read: why this stack


def describe(distro: Distro) -> str:
    clang = f", clang {distro.clang}" if distro.clang else ""
    preview = ", preview" if distro.status == "preview" else ""
    return f"{distro.name} (ROCm {distro.rocm}{clang}{preview})"


def _lacks(distro: Distro, targets: tuple[str, ...]) -> str:
    missing = [t for t in targets if not distro.serves(t)]
    if not missing:
        return ""
    target = missing[0]
    if not distro.compiles_for(target):
        return f"its clang cannot compile for {target}"
    return f"its {', '.join(distro.components_lacking(target, optional=False))} have no code for {target}"


def choose_stack(flavour: Flavour, targets: tuple[str, ...], requested: str | None = None) -> StackChoice:
    """The stack a toolchain for ``targets`` should stand on (``requested`` wins)."""
    if requested is not None:
        distro = flavour.distro(requested)
        return StackChoice(distro, f"{describe(distro)}, as asked (--distro {distro.name})")
    if len(flavour.distros) == 1 or not targets:
        return StackChoice(flavour.distros[0], f"{describe(flavour.distros[0])}, the default")
    ordered = [d for d in flavour.distros if d.status == "stable"]
    ordered += [d for d in flavour.distros if d.status != "stable"]
    default = flavour.distros[0]
    for distro in ordered:
        if all(distro.serves(t) for t in targets):
            if distro is default:
                return StackChoice(distro, f"{describe(distro)}: the oldest stable stack, and it serves "
                                           f"{', '.join(targets)}")  # fmt: skip
            skipped = [d for d in ordered[: ordered.index(distro)]]
            why = "; ".join(f"not {d.name}: {_lacks(d, targets)}" for d in skipped)
            return StackChoice(distro, f"{describe(distro)}: the oldest stack whose libraries serve "
                                       f"{', '.join(targets)} ({why})")  # fmt: skip
    for distro in ordered:
        if all(distro.compiles_for(t) for t in targets):
            return StackChoice(distro, f"{describe(distro)}: no stack's libraries serve all of "
                                       f"{', '.join(targets)}; this one compiles for them")  # fmt: skip
    return StackChoice(
        default, f"{describe(default)}, the default (no stack compiles for {', '.join(targets)})"
    )


@dataclass(frozen=True)
class TargetCoverage:
    """What each stack offers one target: served, compile-only, or nothing."""

    target: str
    served_by: tuple[str, ...]  # stacks whose required libraries all carry code for it
    compile_only: tuple[str, ...]  # stacks whose clang builds for it but some library lacks it
    recommended: str | None

    def advice(self) -> str:
        if self.recommended is None:
            return f"{self.target}: no stack of the open flavour compiles for it"
        if self.served_by:
            extra = f" (also {', '.join(s for s in self.served_by if s != self.recommended)})" if len(
                self.served_by) > 1 else ""  # fmt: skip
            return f"{self.target}: open flavour on {self.recommended}{extra}"
        return f"{self.target}: open flavour compiles for it on {self.recommended}, but its libraries lack it"

    def to_json(self) -> dict[str, object]:
        return {"target": self.target, "served_by": list(self.served_by),
                "compile_only": list(self.compile_only), "recommended": self.recommended}  # fmt: skip


def coverage(flavour: Flavour, target: str) -> TargetCoverage:
    served = tuple(d.name for d in flavour.distros if d.serves(target))
    compile_only = tuple(d.name for d in flavour.distros if d.compiles_for(target) and not d.serves(target))
    recommended = choose_stack(flavour, (target,)).distro.name if served or compile_only else None
    return TargetCoverage(target, served, compile_only, recommended)
