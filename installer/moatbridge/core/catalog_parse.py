"""Reading images/catalog.yaml into core/catalog.py's dataclasses, validating as it goes.

Validation is hand-written rather than a schema library so that every error names
the exact field path (``flavours.open.distros.sid.packages.devel[3]``) in one sentence.
A stack fact a distribution does not state comes from its flavour's level.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from moatbridge.core.catalog import (
    CATALOG_SCHEMA,
    AptSources,
    Bootstrap,
    Catalog,
    CatalogError,
    Component,
    Distro,
    Flavour,
    Variant,
)
from moatbridge.core.gfx import is_code_target_name, is_gfx_name, is_nvidia_target

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


def _cuda_notes(data: Mapping[str, Any], versions: tuple[str, ...], path: str) -> tuple[tuple[str, str], ...]:
    """`cuda_notes`: one line on who should pick a CUDA version, for listed versions only."""
    notes = _mapping(data, "cuda_notes", path, required=False)
    for version, note in notes.items():
        if version not in versions:
            raise _fail(f"{path}.cuda_notes", f"{version!r} is not listed in cuda_versions")
        if not isinstance(note, str) or not note.strip() or "\n" in note.strip():
            raise _fail(f"{path}.cuda_notes.{version}", "expected one line of text")
    return tuple((version, " ".join(str(note).split())) for version, note in notes.items())


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


def _nvidia_targets(data: Mapping[str, Any], path: str) -> tuple[str, ...]:
    targets = _mapping(data, "targets", path)
    values = _strings(targets, "nvidia", f"{path}.targets", required=False)
    for index, value in enumerate(values):
        if not is_nvidia_target(value):
            raise _fail(f"{path}.targets.nvidia[{index}]", f"{value!r} is not an NVIDIA target name (sm_89)")
    return values


_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/{}-]*)?", re.ASCII)
_HOST = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*", re.ASCII)


def _repositories(data: Mapping[str, Any], path: str) -> tuple[tuple[str, str], ...]:
    """``{deb: {free: URL, commercial: URL-with-{customer}}, rpm: {...}}``, flattened."""
    found = []
    for fmt, channels in _mapping(data, "repositories", path, required=False).items():
        fpath = f"{path}.repositories.{fmt}"
        if fmt not in ("deb", "rpm") or not isinstance(channels, dict):
            raise _fail(fpath, "expected deb: or rpm:, each a mapping of free:/commercial: URLs")
        for channel, url in channels.items():
            where = f"{fpath}.{channel}"
            if channel not in ("free", "commercial") or not isinstance(url, str) or not _URL.fullmatch(url):
                raise _fail(where, "expected free: or commercial: with an http(s) URL")
            placeholders_ok = url.count("{") == url.count("{customer}")
            if ("{customer}" in url) != (channel == "commercial") or not placeholders_ok:
                raise _fail(where, "only the commercial URL holds {customer}, and nothing else in braces")
            found.append((f"{fmt}/{channel}", url))
    return tuple(found)


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
        nvidia_targets=_nvidia_targets(*where["targets"]),
        package_format=_package_format(data, path),
    )


def _package_format(data: Mapping[str, Any], path: str) -> str | None:
    if "codename" in data:
        return "deb"
    recipe = str(data.get("recipe", ""))
    return "rpm" if recipe.endswith(".dnf") else None


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
    cuda_notes = _cuda_notes(data, cuda_versions, path)
    default_variant = _get(data, "default_variant", path, str)
    if default_variant not in {v.name for v in variants}:
        raise _fail(f"{path}.default_variant", f"{default_variant!r} is not a variant")
    vendor_hosts = _strings(data, "vendor_hosts", path, required=False)
    for index, host in enumerate(vendor_hosts):
        if not _HOST.fullmatch(host):
            raise _fail(f"{path}.vendor_hosts[{index}]", f"{host!r} is not a host name")
    return Flavour(
        name=name,
        description=" ".join(_get(data, "description", path, str).split()),
        licence=_get(data, "licence", path, str),
        commercial_licence=_get(data, "commercial_licence", path, str, required=False),
        source=source,
        version=_get(data, "version", path, str, required=False),
        cuda_versions=cuda_versions,
        cuda_notes=cuda_notes,
        default_variant=default_variant,
        tag=_get(data, "tag", path, str),
        registries=_strings(data, "registries", path, required=False),
        repositories=_repositories(data, path),
        distros=distros,
        variants=tuple(variants),
        vendor_hosts=vendor_hosts,
    )


def parse_catalog(data: Any, path: Path) -> Catalog:
    """The catalog from already-loaded YAML data (validated; errors name the field)."""
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

    from moatbridge.core import yaml_text

    try:
        data = yaml_text.safe_load(text)
    except RecursionError:
        raise CatalogError(f"The image catalog {path} is nested too deeply.", "fix it") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CatalogError(f"The image catalog {path} is not valid YAML{where}.", "fix its syntax") from None
    return parse_catalog(data, path)
