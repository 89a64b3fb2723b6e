"""The image catalog (images/catalog.yaml) as data, and the questions it answers: which
flavours, distributions (the open flavour's stacks), variants and targets exist, and what
each serves. Reading and validating the YAML is core/catalog_parse.py's job.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from moatbridge.core.gfx import concrete_targets, is_gfx_name, is_nvidia_target, served_by
from moatbridge.errors import MoatbridgeError

CATALOG_SCHEMA = 1


class CatalogError(MoatbridgeError):
    exit_code = 2


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_N = TypeVar("_N", bound=_Named)


def _named(items: tuple[_N, ...], name: str, missing: str) -> _N:
    """The item called ``name``, or an error naming the choices."""
    for item in items:
        if item.name == name:
            return item
    raise CatalogError(missing, f"choose one of: {', '.join(i.name for i in items)}")


@dataclass(frozen=True)
class Bootstrap:
    suite: str
    variant: str
    mirror: str
    tag: str


@dataclass(frozen=True)
class AptSources:
    """Where a Debian-based stack's packages come from, and how apt is told to take them."""

    suites: tuple[str, ...]  # one `deb MIRROR SUITE main` line each, first = the base's suite
    # Packages (an apt preferences pattern) taken from another suite than the base's, e.g.
    # experimental's ROCm on sid; `apt-get -t` would drag libc, perl and cmake along.
    pin_release: str | None
    pin_packages: str | None
    # False: Release files whose Valid-Until has passed are accepted (apt's
    # Acquire::Check-Valid-Until=false) -- snapshot and stale mirrors; said on every build.
    check_valid_until: bool


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    packages: tuple[str, ...]
    provides: tuple[str, ...]
    size_gb: float | None = None  # on-disk size of the multi-target image, for space checks


@dataclass(frozen=True)
class Component:
    """A library with device code, and the code targets it ships (processors or generic ones)."""

    name: str
    targets: tuple[str, ...]
    # Some programs use it (hipBLASLt, MIOpen); a target it lacks is a note, not a reason to
    # choose another stack.
    optional: bool = False
    header_only: bool = False  # compiled with the user's code: serves whatever the compiler does

    def serves(self, target: str) -> bool:
        return self.header_only or served_by(self.targets, target) is not None


@dataclass(frozen=True)
class Distro:
    """One distribution a flavour is built on; for the open flavour a whole stack (Debian
    release, its ROCm and clang, the packages, what their device code serves)."""

    name: str
    recipe: str  # Dockerfile path relative to images/
    base_image: str
    bootstrap: Bootstrap | None
    codename: str | None
    rocm: str = ""
    status: str = "stable"  # "stable" | "preview" (moves under you: Debian unstable/experimental)
    clang: str | None = None  # the clang major version the stack's hipcc uses
    default_cuda: str = ""
    apt: AptSources | None = None
    packages: tuple[tuple[str, tuple[str, ...]], ...] = ()  # per variant; else the variant's list
    sizes: tuple[tuple[str, float], ...] = ()  # per variant, GB on disk of the multi-target image
    pinned: tuple[tuple[str, str], ...] = ()
    compiler_targets: tuple[str, ...] = ()
    components: tuple[Component, ...] = ()
    nvidia_targets: tuple[str, ...] = ()  # SCALE's NVIDIA mode: sm_NN, NVIDIA's own libraries
    package_format: str | None = None  # "deb" | "rpm": which of the flavour's repositories

    @property
    def package_format_or_default(self) -> str:
        return self.package_format or "deb"

    def packages_for(self, variant: Variant) -> tuple[str, ...]:
        return dict(self.packages).get(variant.name, variant.packages)

    def size_gb(self, variant: Variant) -> float | None:
        return dict(self.sizes).get(variant.name, variant.size_gb)

    def components_lacking(self, target: str, optional: bool = True) -> tuple[str, ...]:
        return tuple(c.name for c in self.components if (optional or not c.optional) and not c.serves(target))

    def compiles_for(self, target: str) -> bool:
        return target in self.compiler_targets or target in self.nvidia_targets

    def serves(self, target: str) -> bool:
        """Its compiler builds for ``target`` and every required library has code that loads
        there (NVIDIA targets use NVIDIA's libraries: compiling is all this stack does)."""
        if is_nvidia_target(target):
            return target in self.nvidia_targets
        return self.compiles_for(target) and not self.components_lacking(target, optional=False)

    @property
    def library_targets(self) -> frozenset[str]:
        """Processors every required math library carries code for (generic objects expanded)."""
        sets = [
            set(concrete_targets(c.targets)) & set(self.compiler_targets)
            for c in self.components
            if not c.header_only and not c.optional
        ]
        return frozenset(set.intersection(*sets)) if sets else frozenset(self.compiler_targets)


@dataclass(frozen=True)
class Flavour:
    name: str
    description: str
    licence: str
    commercial_licence: str | None
    source: str  # "build" | "pull": the default way to get the image
    version: str | None
    cuda_versions: tuple[str, ...]
    default_variant: str
    tag: str
    registries: tuple[str, ...]
    repositories: tuple[tuple[str, str], ...]  # ("deb/free", url), ("rpm/commercial", url with {customer})
    distros: tuple[Distro, ...]  # the first is the default
    variants: tuple[Variant, ...]
    vendor_hosts: tuple[str, ...] = ()  # whose repository lines a build may point elsewhere
    cuda_notes: tuple[tuple[str, str], ...] = ()  # (version, who should pick it)

    def cuda_note(self, version: str) -> str:
        return dict(self.cuda_notes).get(version, "")

    def repository(self, package_format: str, channel: str) -> str:
        """The vendor's repository URL for a package format and channel (free/commercial)."""
        try:
            return dict(self.repositories)[f"{package_format}/{channel}"]
        except KeyError:
            raise CatalogError(
                f"The {self.name} flavour has no {channel} {package_format} repository.",
                "use --repo-url URL",
            ) from None

    def variant(self, name: str) -> Variant:
        return _named(self.variants, name, f"The {self.name} flavour has no variant {name!r}.")

    def distro(self, name: str | None) -> Distro:
        if name is None:
            return self.distros[0]
        return _named(self.distros, name, f"The {self.name} flavour has no distro {name!r}.")

    @property
    def compiler_targets(self) -> tuple[str, ...]:
        """Every target some distribution of this flavour compiles for, in catalog order."""
        return tuple(dict.fromkeys(t for d in self.distros for t in d.compiler_targets if is_gfx_name(t)))

    def cuda(self, version: str | None, distro: Distro | None = None) -> str:
        """The CUDA version to mimic: the one asked for (if this flavour has it) or the default."""
        chosen = version or (distro or self.distros[0]).default_cuda
        if chosen not in self.cuda_versions:
            raise CatalogError(
                f"The {self.name} flavour does not mimic CUDA {chosen}.",
                f"choose one of: {', '.join(self.cuda_versions)}",
            )
        return chosen


@dataclass(frozen=True)
class Catalog:
    path: Path
    local_repository: str
    flavours: tuple[Flavour, ...]

    @property
    def images_dir(self) -> Path:
        return self.path.parent

    def flavour(self, name: str) -> Flavour:
        return _named(self.flavours, name, f"There is no flavour {name!r}.")
