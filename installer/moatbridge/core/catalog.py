"""The image catalog (images/catalog.yaml): load, validate, and answer questions about it.

Validation is hand-written rather than a schema library so that every error names
the exact field path (``flavours.open.variants.devel.packages[3]``) in one sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from moatbridge.core.gfx import is_gfx_name
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
class Distro:
    name: str
    recipe: str  # Dockerfile path relative to images/
    base_image: str
    bootstrap: Bootstrap | None
    codename: str | None


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    packages: tuple[str, ...]
    provides: tuple[str, ...]
    size_gb: float | None = None  # on-disk size of the multi-target image, for space checks


@dataclass(frozen=True)
class Flavour:
    name: str
    description: str
    licence: str
    commercial_licence: str | None
    source: str  # "build" | "pull": the default way to get the image
    version: str | None
    rocm: str
    cuda_versions: tuple[str, ...]
    default_cuda: str
    default_variant: str
    tag: str
    registries: tuple[str, ...]
    repositories: tuple[tuple[str, str], ...]
    distros: tuple[Distro, ...]
    variants: tuple[Variant, ...]
    pinned: tuple[tuple[str, str], ...]
    compiler_targets: tuple[str, ...]
    component_targets: tuple[tuple[str, tuple[str, ...]], ...]

    def variant(self, name: str) -> Variant:
        return _named(self.variants, name, f"The {self.name} flavour has no variant {name!r}.")

    def distro(self, name: str | None) -> Distro:
        if name is None:
            return self.distros[0]
        return _named(self.distros, name, f"The {self.name} flavour has no distro {name!r}.")

    def cuda(self, version: str | None) -> str:
        """The CUDA version to mimic: the one asked for (if this flavour has it) or the default."""
        chosen = version or self.default_cuda
        if chosen not in self.cuda_versions:
            raise CatalogError(
                f"The {self.name} flavour does not mimic CUDA {chosen}.",
                f"choose one of: {', '.join(self.cuda_versions)}",
            )
        return chosen

    def components_lacking(self, target: str) -> tuple[str, ...]:
        return tuple(name for name, targets in self.component_targets if target not in targets)

    @property
    def library_targets(self) -> frozenset[str]:
        """Targets every math library carries code for (what per-target images keep)."""
        sets = [set(t) for n, t in self.component_targets if set(t) != set(self.compiler_targets)]
        return frozenset(set.intersection(*sets)) if sets else frozenset(self.compiler_targets)


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


def _targets(data: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    values = _strings(data, key, path)
    for index, value in enumerate(values):
        if not is_gfx_name(value):
            raise _fail(f"{path}.{key}[{index}]", f"{value!r} is not a gfx target name")
    return values


def _mapping(data: Mapping[str, Any], key: str, path: str, required: bool = True) -> dict[str, Any]:
    value = _get(data, key, path, dict, required)
    return value if value is not None else {}


def _size(data: Mapping[str, Any], path: str) -> float | None:
    value = data.get("size_gb")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise _fail(f"{path}.size_gb", "expected a positive number of gigabytes")
    return float(value)


def _distro(name: str, data: Any, path: str) -> Distro:
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
    return Distro(
        name=name,
        recipe=_get(data, "recipe", path, str),
        base_image=_get(base, "image", f"{path}.base", str),
        bootstrap=bootstrap,
        codename=_get(data, "codename", path, str, required=False),
    )


def _flavour(name: str, data: Any, path: str) -> Flavour:
    if not isinstance(data, dict):
        raise _fail(path, "expected a mapping")
    source = _get(data, "source", path, str)
    if source not in ("build", "pull"):
        raise _fail(f"{path}.source", f"expected 'build' or 'pull', got {source!r}")
    distros = tuple(_distro(n, d, f"{path}.distros.{n}") for n, d in _mapping(data, "distros", path).items())
    variants = []
    for vname, vdata in _mapping(data, "variants", path).items():
        vpath = f"{path}.variants.{vname}"
        if not isinstance(vdata, dict):
            raise _fail(vpath, "expected a mapping")
        variants.append(
            Variant(
                name=vname,
                description=_get(vdata, "description", vpath, str),
                packages=_strings(vdata, "packages", vpath, required=source == "build"),
                provides=_strings(vdata, "provides", vpath),
                size_gb=_size(vdata, vpath),
            )
        )
    if not distros or not variants:
        raise _fail(path, "needs at least one distro and one variant")
    cuda_versions = _strings(data, "cuda_versions", path)
    default_cuda = _get(data, "default_cuda", path, str)
    if default_cuda not in cuda_versions:
        raise _fail(f"{path}.default_cuda", f"{default_cuda!r} is not listed in cuda_versions")
    default_variant = _get(data, "default_variant", path, str)
    if default_variant not in {v.name for v in variants}:
        raise _fail(f"{path}.default_variant", f"{default_variant!r} is not a variant")
    targets = _mapping(data, "targets", path)
    tpath = f"{path}.targets"
    compiler = _targets(targets, "compiler", tpath)
    components = tuple(
        (cname, _targets(targets["components"], cname, f"{tpath}.components"))
        for cname in _mapping(targets, "components", tpath)
    )
    for cname, ctargets in components:
        extra = sorted(set(ctargets) - set(compiler))
        if extra:
            raise _fail(f"{tpath}.components.{cname}", f"{', '.join(extra)} not in the compiler's targets")
    pinned = _mapping(data, "pinned", path, required=False)
    for pkg, ver in pinned.items():
        if not isinstance(ver, str):
            raise _fail(f"{path}.pinned.{pkg}", "expected a version string (quote it)")
    repositories = _mapping(data, "repositories", path, required=False)
    return Flavour(
        name=name,
        description=" ".join(_get(data, "description", path, str).split()),
        licence=_get(data, "licence", path, str),
        commercial_licence=_get(data, "commercial_licence", path, str, required=False),
        source=source,
        version=_get(data, "version", path, str, required=False),
        rocm=_get(data, "rocm", path, str),
        cuda_versions=cuda_versions,
        default_cuda=default_cuda,
        default_variant=default_variant,
        tag=_get(data, "tag", path, str),
        registries=_strings(data, "registries", path, required=False),
        repositories=tuple((k, str(v)) for k, v in repositories.items()),
        distros=distros,
        variants=tuple(variants),
        pinned=tuple(sorted(pinned.items())),
        compiler_targets=compiler,
        component_targets=components,
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
