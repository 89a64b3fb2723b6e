"""The setup wizard's target picker as data (pure): one line per target a person can read
and search by product name, grouped by family, the targets the chosen stacks' libraries
serve first, compile-only ones marked, this machine's GPU preselected.

The prompt itself is adapters/picker.py, asked by commands/setup_wizard.py; its filter is
`TargetMenu.search`, so what typing a product name leaves on screen is tested here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from moatbridge.core.catalog import Distro
from moatbridge.core.gfx import family_of, is_gfx_name, is_nvidia_target
from moatbridge.core.names import GFX_PRODUCTS

# Newest first within each line of products; consumer (RDNA) before data-centre (CDNA)
# before the older GCN parts, as people shop for them today.
FAMILY_ORDER = (
    "RDNA4", "RDNA3.5", "RDNA3", "RDNA2", "RDNA1",
    "CDNA4", "CDNA3", "CDNA2", "CDNA1",
    "GCN5.1", "GCN5", "GCN3", "GCN2",
)  # fmt: skip
NVIDIA_FAMILY = "NVIDIA"
COMPILE_ONLY = "compile-only"
THIS_MACHINE = "this machine"


@dataclass(frozen=True)
class TargetChoice:
    target: str
    label: str  # the line the picker shows, and what typing searches
    family: str  # the group it is listed under ("RDNA3", "CDNA2", ...; "" when unknown)
    served: bool  # some offered stack's required libraries all have code that loads on it
    note: str  # one sentence: where its libraries are, or what compile-only means for it
    checked: bool  # preselected: this machine's GPU


@dataclass(frozen=True)
class TargetMenu:
    choices: tuple[TargetChoice, ...]
    unoffered: tuple[str, ...]  # detected targets none of the stacks compiles for

    @property
    def preselected(self) -> tuple[str, ...]:
        return tuple(c.target for c in self.choices if c.checked)

    def search(self, text: str) -> tuple[TargetChoice, ...]:
        """What typing ``text`` leaves in the picker: the lines holding each of its words, in
        any case, with or without their spaces ("rx 7900", "RX7900" and "7900 rx" all find
        the RX 7900 line). Nothing typed leaves every line."""
        return tuple(c for c in self.choices if matches(c.label, text))


def matches(label: str, text: str) -> bool:
    """Whether every word of ``text`` is in ``label`` (any case; spaces in the label optional)."""
    line = label.casefold()
    squeezed = "".join(line.split())
    return all(word in line or word in squeezed for word in text.casefold().split())


def _order(target: str) -> tuple[int, str]:
    return (len(target), target)


def _family_rank(family: str) -> int:
    return FAMILY_ORDER.index(family) if family in FAMILY_ORDER else len(FAMILY_ORDER)


def _served_note(target: str, stacks: Sequence[Distro]) -> str:
    serving = [d for d in stacks if d.serves(target)]
    if len(serving) == len(stacks):
        where = f"the {stacks[0].name} stack" if len(stacks) == 1 else "every stack"
        return f"served: the math libraries have code for it on {where}"
    names = ", ".join(d.name for d in serving)
    if all(d.status == "preview" for d in serving):
        return f"served on preview stacks only: the math libraries have code for it on {names}"
    return f"served: the math libraries have code for it on {names}"


def _compile_note(target: str, stacks: Sequence[Distro]) -> str:
    compiling = [d for d in stacks if d.compiles_for(target)]
    lacking = compiling[-1].components_lacking(target, optional=False)  # the newest stack
    libraries = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
    return f"{COMPILE_ONLY}: your kernels build for it; {libraries} have no code for it (their calls fail)"


def _label(target: str, family: str, products: str, marks: list[str]) -> str:
    # The marks before the products: a narrow terminal cuts the end of the line, not them.
    head = f"[{', '.join(marks)}] " if marks else ""
    return f"{target:<8} {family:<8} {head}{products or '-'}"


def target_menu(
    stacks: Sequence[Distro], detected: Sequence[str] = (), nvidia: Sequence[str] = ()
) -> TargetMenu:
    """The picker for a flavour's ``stacks`` (or the one stack asked for).

    ``detected``: this machine's AMD targets; ``nvidia``: its NVIDIA ones (sm_NN, offered
    when a stack builds for them: SCALE's NVIDIA mode). Both are preselected when offered.
    Order: NVIDIA targets here first, then the targets some stack serves, then the
    compile-only ones; each part by family (FAMILY_ORDER), then by target.
    """
    gfx = {t for d in stacks for t in d.compiler_targets if is_gfx_name(t)}
    sm = [t for t in dict.fromkeys(nvidia) if is_nvidia_target(t) and any(d.compiles_for(t) for d in stacks)]
    choices: list[TargetChoice] = [
        TargetChoice(t, _label(t, NVIDIA_FAMILY, "this machine's NVIDIA GPU (SCALE's NVIDIA mode)", []),
                     NVIDIA_FAMILY, True, "NVIDIA's own libraries serve it (SCALE's NVIDIA mode)", True)
        for t in sm
    ]  # fmt: skip
    rows = []
    for target in gfx:
        family = family_of(target) or ""
        served = any(d.serves(target) for d in stacks)
        here = target in detected
        marks = ([] if served else [COMPILE_ONLY]) + ([THIS_MACHINE] if here else [])
        if served and len(stacks) > 1 and all(d.status == "preview" for d in stacks if d.serves(target)):
            marks.insert(0, "preview stack")
        note = _served_note(target, stacks) if served else _compile_note(target, stacks)
        label = _label(target, family, GFX_PRODUCTS.get(target, ""), marks)
        rows.append(((not served, _family_rank(family), _order(target)), TargetChoice(
            target, label, family, served, note, here)))  # fmt: skip
    choices += [choice for _, choice in sorted(rows, key=lambda row: row[0])]
    unoffered = tuple(t for t in dict.fromkeys(detected) if t not in gfx)
    return TargetMenu(tuple(choices), unoffered)


def stacks_for(distros: Sequence[Distro], requested: str | None) -> tuple[Distro, ...]:
    """The stacks the picker describes: the one asked for (--distro), else all of them."""
    chosen = [d for d in distros if d.name == requested] if requested else []
    return tuple(chosen or distros)
