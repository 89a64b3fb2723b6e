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
from typing import Any

from moatbridge.core.catalog import Distro, Flavour
from moatbridge.core.gfx import family_of


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
    lacking = distro.components_lacking(target, optional=False)
    return f"its {', '.join(lacking)} {'has' if len(lacking) == 1 else 'have'} no code for {target}"


def choose_stack(
    flavour: Flavour, targets: tuple[str, ...], requested: str | None = None, why: str | None = None
) -> StackChoice:
    """The stack a toolchain for ``targets`` should stand on (``requested`` wins; ``why``
    names where it was requested, as a phrase: the --distro flag when not given)."""
    if requested is not None:
        distro = flavour.distro(requested)
        return StackChoice(distro, f"{describe(distro)}, {why or f'as asked (--distro {distro.name})'}")
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
            skipped = ordered[: ordered.index(distro)]
            lacking = "; ".join(f"not {d.name}: {_lacks(d, targets)}" for d in skipped)
            return StackChoice(distro, f"{describe(distro)}: the oldest stack whose libraries serve "
                                       f"{', '.join(targets)} ({lacking})")  # fmt: skip
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


# --- the coverage table (image stacks; docs/images.md is generated from it) ---------------

MARK_SERVED = "yes"
MARK_COMPILE = "compile"  # kernels compile; some required library lacks code for it


def stack_rows(flavour: Flavour) -> list[dict[str, Any]]:
    """One row per stack: what it is, and which processors its libraries serve."""
    rows: list[dict[str, Any]] = []
    for distro in flavour.distros:
        rows.append({
            "distro": distro.name, "status": distro.status, "rocm": distro.rocm, "clang": distro.clang,
            "default_cuda": distro.default_cuda,
            "valid_until_checked": distro.apt is None or distro.apt.check_valid_until,
            "library_targets": sorted(distro.library_targets, key=_order),
            "components": {c.name: list(c.targets) for c in distro.components if not c.header_only},
            "optional": [c.name for c in distro.components if c.optional],
        })  # fmt: skip
    return rows


def _order(target: str) -> tuple[int, str]:
    return (len(target), target)


def coverage_markdown(flavour: Flavour) -> str:
    """The stack x target table: every processor some stack compiles for, one row each."""
    stacks = flavour.distros
    header = "| target | family | " + " | ".join(describe(d) for d in stacks) + " |"
    lines = [header, "|" + "---|" * (len(stacks) + 2)]
    for target in sorted(flavour.compiler_targets, key=_order):
        cells = []
        for distro in stacks:
            if distro.serves(target):
                generic = [
                    c.name for c in distro.components
                    if not c.header_only and target not in c.targets and c.serves(target)
                ]  # fmt: skip
                cells.append(MARK_SERVED + (f" ({', '.join(generic)} generic)" if generic else ""))
            elif distro.compiles_for(target):
                required = [c for c in distro.components if not c.header_only and not c.optional]
                some = [c.name for c in required if c.serves(target)]
                cells.append(MARK_COMPILE + (f" (+{', '.join(some)})" if some else ""))
            else:
                cells.append("-")
        lines.append(f"| {target} | {family_of(target) or ''} | " + " | ".join(cells) + " |")
    legend = (
        f"\n`{MARK_SERVED}`: kernels compile and every required math library (rocBLAS, hipBLAS, "
        'rocSOLVER, rocSPARSE, rocRAND, rocFFT) has code that loads on it ("generic": through a '
        f"generic code object). `{MARK_COMPILE}`: your kernels compile, library calls fail on that "
        "GPU (`+lib`: except those libraries'). `-`: the stack's clang cannot build for it. "
        "Optional libraries (RCCL, hipBLASLt) are listed per stack by `moatbridge image stacks --json`.\n"
    )
    return "\n".join(lines) + "\n" + legend
