"""The image catalog (images/catalog.yaml): load, validate, and answer questions about it.

Validation is hand-written rather than a schema library so that every error names
the exact field path (``flavours.open.variants.devel.packages[3]``) in one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from moatbridge.core.gfx import concrete_targets, generic_of, is_code_target_name, is_gfx_name, served_by
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

    def packages_for(self, variant: Variant) -> tuple[str, ...]:
        return dict(self.packages).get(variant.name, variant.packages)

    def size_gb(self, variant: Variant) -> float | None:
        return dict(self.sizes).get(variant.name, variant.size_gb)

    def components_lacking(self, target: str, optional: bool = True) -> tuple[str, ...]:
        return tuple(c.name for c in self.components if (optional or not c.optional) and not c.serves(target))

    def compiles_for(self, target: str) -> bool:
        return target in self.compiler_targets

    def serves(self, target: str) -> bool:
        """Its compiler builds for ``target`` and every required library has code that loads there."""
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

    def code_targets_for(self, target: str) -> tuple[str, ...]:
        """The code-object targets that load on ``target``: itself and its generic processor."""
        generic = generic_of(target)
        return (target,) if generic is None else (target, generic)


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
    repositories: tuple[tuple[str, str], ...]
    distros: tuple[Distro, ...]  # the first is the default
    variants: tuple[Variant, ...]

    def variant(self, name: str) -> Variant:
        return _named(self.variants, name, f"The {self.name} flavour has no variant {name!r}.")

    def distro(self, name: str | None) -> Distro:
        if name is None:
            return self.distros[0]
        return _named(self.distros, name, f"The {self.name} flavour has no distro {name!r}.")

    @property
    def rocm(self) -> str:
        return self.distros[0].rocm

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


# --- validation helpers --------------------------------------------------------------


def _fail(path: str, problem: str) -> CatalogError:
    return CatalogError(f"Invalid image catalog: {path}: {problem}.", "fix images/catalog.yaml")


def _get(data: Mapping[str, Any], key: str, path: str, kind: type, required: bool = True) -> Any:
    where = f"{path}.{key}" if path else key
    if key not in data:
        if required:
            raise _fail(where, "missing")
        return None
    value = data[key]
    if kind is str and isinstance(value, (int, float)) and not isinstance(value, bool):
        raise _fail(where, f"expected a string, got the number {value!r} (quote it)")
    if not isinstance(value, kind):
        raise _fail(where, f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _strings(data: Mapping[str, Any], key: str, path: str, required: bool = True) -> tuple[str, ...]:
    values = _get(data, key, path, list, required)
    if values is None:
        return ()
    for index, value in enumerate(values):
        if not isinstance(value, str) or not value:
            raise _fail(f"{path}.{key}[{index}]", "expected a non-empty string")
    return tuple(values)


def _targets(data: Mapping[str, Any], key: str, path: str, generic: bool = False) -> tuple[str, ...]:
    values = _strings(data, key, path)
    valid = is_code_target_name if generic else is_gfx_name
    for index, value in enumerate(values):
        if not valid(value):
            raise _fail(f"{path}.{key}[{index}]", f"{value!r} is not a gfx target name")
    return values


def _mapping(data: Mapping[str, Any], key: str, path: str, required: bool = True) -> dict[str, Any]:
    value = _get(data, key, path, dict, required)
    return value if value is not None else {}


def _size(data: Mapping[str, Any], path: str, key: str = "size_gb") -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise _fail(f"{path}.{key}", "expected a positive number of gigabytes")
    return float(value)


def _pinned(data: Mapping[str, Any], path: str) -> tuple[tuple[str, str], ...]:
    pinned = _mapping(data, "pinned", path, required=False)
    for pkg, ver in pinned.items():
        if not isinstance(ver, str):
            raise _fail(f"{path}.pinned.{pkg}", "expected a version string (quote it)")
    return tuple(sorted(pinned.items()))


def _component_targets(data: Mapping[str, Any], path: str) -> tuple[tuple[str, ...], tuple[Component, ...]]:
    targets = _mapping(data, "targets", path)
    tpath = f"{path}.targets"
    compiler = _targets(targets, "compiler", tpath, generic=True)
    components = []
    for cname, cdata in _mapping(targets, "components", tpath).items():
        cpath = f"{tpath}.components"
        optional = False
        if isinstance(cdata, dict):  # {targets: [...], optional: true}
            cpath = f"{cpath}.{cname}"
            optional = bool(_get(cdata, "optional", cpath, bool, required=False))
            ctargets = _targets(cdata, "targets", cpath, generic=True)
        else:
            ctargets = _targets(targets["components"], cname, cpath, generic=True)
            cpath = f"{cpath}.{cname}"
        extra = sorted(set(ctargets) - set(compiler))
        if extra:
            raise _fail(cpath, f"{', '.join(extra)} not in the compiler's targets")
        header_only = set(ctargets) == set(compiler)
        components.append(Component(cname, ctargets, optional=optional, header_only=header_only))
    return compiler, tuple(components)


def _apt(data: Mapping[str, Any], path: str) -> AptSources | None:
    apt = _mapping(data, "apt", path, required=False)
    if not apt:
        return None
    apath = f"{path}.apt"
    suites = _strings(apt, "suites", apath)
    pin = _mapping(apt, "pin", apath, required=False)
    release = packages = None
    if pin:
        release = _get(pin, "release", f"{apath}.pin", str)
        packages = _get(pin, "packages", f"{apath}.pin", str)
        if release not in suites:
            raise _fail(f"{apath}.pin.release", f"{release!r} is not one of the suites")
        if not _PIN_PATTERN.fullmatch(packages):
            raise _fail(f"{apath}.pin.packages", "expected package names or one /regex/ (apt_preferences)")
    for index, suite in enumerate(suites):
        if not _SUITE.fullmatch(suite):
            raise _fail(f"{apath}.suites[{index}]", f"{suite!r} is not a suite name")
    check = _get(apt, "check_valid_until", apath, bool, required=False)
    return AptSources(
        suites=suites, pin_release=release, pin_packages=packages, check_valid_until=check is not False
    )


# They reach a Dockerfile RUN line: names and a /regex/ of safe characters only.
_SUITE = re.compile(r"[a-z][a-z0-9.-]{0,39}", re.ASCII)
_PIN_PATTERN = re.compile(
    r"(/[A-Za-z0-9^$()|?*+.\[\]-]{1,200}/|[a-z0-9][a-z0-9.+*-]*( [a-z0-9][a-z0-9.+*-]*)*)", re.ASCII
)

_STACK_KEYS = ("rocm", "status", "clang", "default_cuda", "apt", "pinned", "targets", "packages", "size_gb")


def _distro(
    name: str, data: Any, path: str, defaults: Mapping[str, Any], variants: tuple[Variant, ...]
) -> Distro:
    """A distribution; stack facts it does not state come from the flavour's level."""
    if not isinstance(data, dict):
        raise _fail(path, "expected a mapping")
    base = _mapping(data, "base", path)
    boot = _mapping(base, "bootstrap", f"{path}.base", required=False)
    bootstrap = None
    if boot:
        bpath = f"{path}.base.bootstrap"
        bootstrap = Bootstrap(
            suite=_get(boot, "suite", bpath, str),
            variant=_get(boot, "variant", bpath, str),
            mirror=_get(boot, "mirror", bpath, str),
            tag=_get(boot, "tag", bpath, str),
        )
    # Each stack fact: the distro's own, else the flavour's (the error names where it was read).
    own = {key: (data, path) for key in _STACK_KEYS if key in data}
    where = {key: own.get(key, (defaults["data"], defaults["path"])) for key in _STACK_KEYS}
    status = _get(where["status"][0], "status", where["status"][1], str, required=False) or "stable"
    if status not in ("stable", "preview"):
        raise _fail(f"{where['status'][1]}.status", f"expected 'stable' or 'preview', got {status!r}")
    clang = _get(where["clang"][0], "clang", where["clang"][1], str, required=False)
    compiler, components = _component_targets(*where["targets"])
    known = {v.name for v in variants}
    packages = []
    ppath = where["packages"][1]
    for vname in _mapping(where["packages"][0], "packages", ppath, required=False):
        if vname not in known:
            raise _fail(f"{ppath}.packages.{vname}", "not a variant of this flavour")
        packages.append((vname, _strings(where["packages"][0]["packages"], vname, f"{ppath}.packages")))
    sizes = []
    spath = where["size_gb"][1]
    for vname in _mapping(where["size_gb"][0], "size_gb", spath, required=False):
        if vname not in known:
            raise _fail(f"{spath}.size_gb.{vname}", "not a variant of this flavour")
        size = _size(where["size_gb"][0]["size_gb"], f"{spath}.size_gb", vname)
        if size is not None:
            sizes.append((vname, size))
    return Distro(
        name=name,
        recipe=_get(data, "recipe", path, str),
        base_image=_get(base, "image", f"{path}.base", str),
        bootstrap=bootstrap,
        codename=_get(data, "codename", path, str, required=False),
        rocm=_get(where["rocm"][0], "rocm", where["rocm"][1], str),
        status=status,
        clang=clang,
        default_cuda=_get(where["default_cuda"][0], "default_cuda", where["default_cuda"][1], str),
        apt=_apt(*where["apt"]),
        packages=tuple(packages),
        sizes=tuple(sizes),
        pinned=_pinned(*where["pinned"]),
        compiler_targets=compiler,
        components=components,
    )


def _flavour(name: str, data: Any, path: str) -> Flavour:
    if not isinstance(data, dict):
        raise _fail(path, "expected a mapping")
    source = _get(data, "source", path, str)
    if source not in ("build", "pull"):
        raise _fail(f"{path}.source", f"expected 'build' or 'pull', got {source!r}")
    variants = []
    for vname, vdata in _mapping(data, "variants", path).items():
        vpath = f"{path}.variants.{vname}"
        if not isinstance(vdata, dict):
            raise _fail(vpath, "expected a mapping")
        variants.append(
            Variant(
                name=vname,
                description=_get(vdata, "description", vpath, str),
                packages=_strings(vdata, "packages", vpath, required=False),
                provides=_strings(vdata, "provides", vpath),
                size_gb=_size(vdata, vpath),
            )
        )
    defaults = {"data": data, "path": path}
    distros = tuple(
        _distro(n, d, f"{path}.distros.{n}", defaults, tuple(variants))
        for n, d in _mapping(data, "distros", path).items()
    )
    if not distros or not variants:
        raise _fail(path, "needs at least one distro and one variant")
    if source == "build":
        for distro in distros:
            for variant in variants:
                if not distro.packages_for(variant):
                    raise _fail(
                        f"{path}.distros.{distro.name}", f"no packages for the {variant.name} variant"
                    )
    cuda_versions = _strings(data, "cuda_versions", path)
    for distro in distros:
        if distro.default_cuda not in cuda_versions:
            where = (
                f"{path}.distros.{distro.name}" if "default_cuda" in data["distros"][distro.name] else path
            )
            raise _fail(f"{where}.default_cuda", f"{distro.default_cuda!r} is not listed in cuda_versions")
    default_variant = _get(data, "default_variant", path, str)
    if default_variant not in {v.name for v in variants}:
        raise _fail(f"{path}.default_variant", f"{default_variant!r} is not a variant")
    repositories = _mapping(data, "repositories", path, required=False)
    return Flavour(
        name=name,
        description=" ".join(_get(data, "description", path, str).split()),
        licence=_get(data, "licence", path, str),
        commercial_licence=_get(data, "commercial_licence", path, str, required=False),
        source=source,
        version=_get(data, "version", path, str, required=False),
        cuda_versions=cuda_versions,
        default_variant=default_variant,
        tag=_get(data, "tag", path, str),
        registries=_strings(data, "registries", path, required=False),
        repositories=tuple((k, str(v)) for k, v in repositories.items()),
        distros=distros,
        variants=tuple(variants),
    )


def parse_catalog(data: Any, path: Path) -> Catalog:
    if not isinstance(data, dict):
        raise _fail("(top level)", "expected a mapping")
    schema = _get(data, "schema_version", "", int)
    if schema != CATALOG_SCHEMA:
        raise _fail("schema_version", f"this moatbridge reads version {CATALOG_SCHEMA}, the file is {schema}")
    flavours = tuple(_flavour(n, d, f"flavours.{n}") for n, d in _mapping(data, "flavours", "").items())
    if not flavours:
        raise _fail("flavours", "no flavour defined")
    return Catalog(path=path, local_repository=_get(data, "local_repository", "", str), flavours=flavours)


def catalog_from_text(text: str, path: Path) -> Catalog:
    """The catalog from its YAML text (adapters.records reads the file)."""
    import yaml  # only the commands that need the catalog pay for PyYAML

    try:
        data = yaml.safe_load(text)
    except RecursionError:
        raise CatalogError(f"The image catalog {path} is nested too deeply.", "fix it") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CatalogError(f"The image catalog {path} is not valid YAML{where}.", "fix its syntax") from None
    return parse_catalog(data, path)
