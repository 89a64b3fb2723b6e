"""`moatbridge image build`: base image, plan, cache check, space check, build, verify."""

from __future__ import annotations

import os
import re
import shutil
import sys
from argparse import Namespace
from contextlib import ExitStack
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from moatbridge.adapters import docker_api
from moatbridge.adapters.bootstrap import bootstrap_base
from moatbridge.adapters.build_context import context_digest
from moatbridge.adapters.console import print_json
from moatbridge.adapters.progress import BuildView
from moatbridge.adapters.records import load_catalog
from moatbridge.commands import _scale_build as scale_build
from moatbridge.commands import _scale_tarball as tarball
from moatbridge.core.apt_log import expired_release
from moatbridge.core.catalog import Catalog, Distro, Flavour
from moatbridge.core.recipes import (
    DIGEST_LABEL,
    MANAGED_LABEL,
    BuildPlan,
    BuildRequest,
    pinned_drift,
    plan_open_build,
)
from moatbridge.core.redact import has_secret, redact_text, redact_url
from moatbridge.core.references import parse_reference
from moatbridge.core.scale_tarball import tarball_refusal
from moatbridge.errors import InputError, MoatbridgeError
from moatbridge.paths import Paths

GB = 1_000_000_000


class InsufficientSpace(MoatbridgeError):
    exit_code = 6


@dataclass(frozen=True)
class BuildOptions:
    """What a build was asked for: `image build`'s flags, or what setup/upgrade decided."""

    flavour: str
    variant: str | None = None
    target: tuple[str, ...] | None = None
    cuda_version: str | None = None
    distro: str | None = None
    base: str = "auto"
    mirror: str | None = None
    dry_run: bool = False
    json: bool = False
    verbose: bool = False
    no_cache: bool = False
    no_space_check: bool = False
    base_image: str | None = None
    repo_url: str | None = None
    commercial: bool = False
    customer: str | None = None
    credentials_file: str | None = None
    build_arg: tuple[str, ...] = ()
    check_valid_until: bool | None = None
    tarball: str | None = None  # scale: the vendor's tarball, a local file or a URL
    # setup has applied the consent rule itself (it records the acceptance only once the
    # toolchain works); every other build of a licence-gated flavour asks it here.
    consent_checked: bool = False

    @classmethod
    def from_args(cls, args: Namespace) -> BuildOptions:
        values: dict[str, Any] = {f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)}
        if values.get("target") is not None:
            values["target"] = tuple(values["target"])
        values["build_arg"] = tuple(values.get("build_arg") or ())
        return cls(**values)


def ensure_base(
    client: Any, distro: Distro, mode: str, mirror: str | None, say: Any, dry_run: bool = False
) -> tuple[str, str]:
    """Find or make the base image; returns (reference, image ID).

    auto: a local copy of the catalog's base or of our bootstrapped one, else pull,
    else debootstrap (the path for sites that cannot reach Docker Hub). A dry run
    only looks for local copies.
    """
    boot = distro.bootstrap
    if dry_run:
        for candidate in (boot.tag if boot else None, distro.base_image):
            local = docker_api.inspect_image(client, candidate) if candidate else None
            if local is not None:
                return str(candidate), str(local["Id"])
        return (boot.tag if boot and mode != "pull" else distro.base_image), "not-yet-made"
    if mode in ("auto", "bootstrap") and boot is not None:
        local = docker_api.inspect_image(client, boot.tag)
        if local is not None and not (mode == "bootstrap" and mirror):
            return boot.tag, str(local["Id"])
    if mode in ("auto", "pull"):
        local = docker_api.inspect_image(client, distro.base_image)
        if local is not None:
            return distro.base_image, str(local["Id"])
        repository, _, tag = distro.base_image.rpartition(":")
        try:
            say(f"Pulling base image {distro.base_image}")
            docker_api.pull(client, repository, tag)
            pulled = docker_api.inspect_image(client, distro.base_image)
            if pulled is not None:
                return distro.base_image, str(pulled["Id"])
        except docker_api.TransferFailed as exc:
            if mode == "pull" or boot is None:
                raise
            say(f"Cannot pull {distro.base_image} ({exc.message}); bootstrapping it from a mirror")
    if boot is None:
        raise InputError(f"The {distro.name} recipe has no bootstrap recipe.", "use --base pull")
    say(f"Bootstrapping {boot.tag} with debootstrap from {redact_url(mirror or boot.mirror)}")
    image_id = bootstrap_base(client, boot, mirror, lambda line: None)
    return boot.tag, image_id


def _find_by_digest(client: Any, digest: str) -> dict[str, Any] | None:
    found = docker_api.list_images(client, f"{DIGEST_LABEL}={digest}")
    return found[0] if found else None


def required_bytes(plan: BuildPlan, flavour: Flavour, rebuild: bool = False) -> int:
    size = plan.distro.size_gb(flavour.variant(plan.variant)) or 1.0
    if rebuild:
        # A new recipe for an image that exists (say, its CUDA layer changed): the engine's
        # layer cache usually keeps the package and pruning stages; allow for one new copy.
        return int(size * 1.0 * GB)
    # Per-target builds hold the shared package stage, the files pruning rewrote and the slim
    # image: measured 2.0x (trixie) and 2.1x (sid) of the package stage.
    return int(size * (2.4 if plan.stage == "slim" else 1.2) * GB)


def check_space(client: Any, needed: int, what: str) -> None:
    """Refuse early when the engine's data directory lacks room; say how much and where."""
    root = str(client.info().get("DockerRootDir") or "/var/lib/docker")
    try:
        free = shutil.disk_usage(root).free
    except OSError:
        return  # a remote engine: its disk is not ours to measure
    if free < needed:
        raise InsufficientSpace(
            f"{what} needs about {needed / GB:.1f} GB free at {root}; {free / GB:.1f} GB are.",
            "free space there (docker system prune), or pass --no-space-check to try anyway",
        )


_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\x00-\x20\x7f-\x9f]+", re.ASCII | re.IGNORECASE)


def _request(options: BuildOptions, catalog: Catalog) -> tuple[BuildRequest, Flavour]:
    """The build request, with everything cheap validated (flavour, variant, targets, CUDA
    version, distribution): bad input is exit 2 before the engine or a base image is touched."""
    flavour = catalog.flavour(options.flavour)
    request = BuildRequest(
        flavour=flavour.name,
        variant=options.variant,
        targets=tuple(options.target or ("all",)),
        cuda_version=options.cuda_version,
        distro=options.distro,
        check_valid_until=options.check_valid_until,
    )
    flavour.distro(options.distro)
    scale_build.extra_build_args(options.build_arg)
    if options.base_image is not None:
        parse_reference(options.base_image)  # a reference, nothing else (it reaches the engine's API)
    for flag, url in (("--mirror", options.mirror), ("--repo-url", options.repo_url)):
        if url is not None and not _URL.fullmatch(url):
            raise InputError(f"{flag} {url!r} is not a URL.", f"e.g. {flag} http://deb.example.org/debian")
    if options.tarball is not None:
        tarball.check_options(options.tarball, flavour, options.repo_url)
    if flavour.name != "scale":
        plan_open_build(flavour, request, catalog.images_dir, catalog.local_repository, "base", "id", "ctx")
    return request, flavour


def plan_for(options: BuildOptions, catalog: Catalog, client: Any, say: Any) -> tuple[BuildPlan, Flavour]:
    request, flavour = _request(options, catalog)
    distro = flavour.distro(options.distro)
    context = catalog.images_dir / Path(distro.recipe).parent
    if flavour.name == "scale":
        return scale_build.plan(options, catalog, flavour, request, client, say), flavour
    base_ref, base_id = ensure_base(client, distro, options.base, options.mirror, say, options.dry_run)
    plan = plan_open_build(
        flavour,
        request,
        catalog.images_dir,
        catalog.local_repository,
        base_ref,
        base_id,
        context_digest(context, Path(distro.recipe).name),
    )
    return plan, flavour


def build(options: BuildOptions, quiet: bool = False) -> dict[str, Any]:
    """Plan, skip when the recipe digest exists, else build. Returns the result record
    (``action``: would-build / up-to-date / built) with a human ``text``."""
    catalog = load_catalog()
    _request(options, catalog)  # bad flags: one clear error before the engine is asked
    client = docker_api.connect()

    def say(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr if options.json else sys.stdout, flush=True)

    plan, flavour = plan_for(options, catalog, client, say)
    if not options.dry_run and not options.consent_checked:
        scale_build.require_consent(flavour, options)
    for warning in plan.warnings:
        say(f"warning: {warning}")
    existing = _find_by_digest(client, plan.recipe_digest)
    result: dict[str, Any] = {"reference": plan.reference, "recipe_digest": plan.recipe_digest}
    if options.dry_run:
        result.update(action="would-build" if existing is None else "up-to-date")
        result.update(
            buildargs={name: redact_text(value) for name, value in plan.buildargs},
            labels={name: redact_text(value) for name, value in plan.labels},
        )
        if existing is not None:
            result["id"] = existing["Id"]
        if plan.aliases:
            result["aliases"] = list(plan.aliases)
        result["text"] = (
            f"Would build {plan.reference} (stage {plan.stage})" if existing is None
            else f"{plan.reference} is up to date"
        )  # fmt: skip
        return result
    if existing is not None and not options.no_cache:
        if plan.reference not in (existing.get("RepoTags") or []):
            repository, _, tag = plan.reference.rpartition(":")
            docker_api.tag_image(client, existing["Id"], repository, tag)
        _tag_aliases(client, plan, str(existing["Id"]))
        result.update(action="up-to-date", id=existing["Id"])
        result["text"] = f"{plan.reference} is up to date (recipe {plan.recipe_digest[:12]})"
        _check_pinned(client, plan.distro, str(existing["Id"]), result, say)
        return result
    previous = docker_api.inspect_image(client, plan.reference)
    if not options.no_space_check:
        needed = required_bytes(plan, flavour, rebuild=previous is not None)
        check_space(client, needed, f"Building {plan.reference}")
    credentials = scale_build.credentials(options) if plan.flavour == "scale" else None
    with ExitStack() as stack:
        buildargs = dict(plan.buildargs)
        repo_url = buildargs.get("SCALE_REPO_URL")
        if repo_url is not None and (credentials is not None or has_secret(repo_url)):
            # Build args are kept in the image history: the build sees only a loopback
            # URL; the proxy adds the credentials and the URL's query (a token).
            buildargs["SCALE_REPO_URL"] = scale_build.enter_repo_proxy(stack, repo_url, credentials)
        if options.tarball is not None:
            buildargs["SCALE_TARBALL_URL"] = tarball.enter(stack, options.tarball, credentials)
        view = stack.enter_context(
            BuildView(f"Building {plan.reference}", verbose=options.verbose, json=options.json or quiet)
        )
        try:
            image_id = docker_api.build(
                client,
                context=str(plan.recipe_dir),
                dockerfile=plan.dockerfile,
                tag=plan.reference,
                target=plan.stage,
                buildargs=buildargs,
                labels=dict(plan.labels),
                on_event=view,
                nocache=options.no_cache,
            )
        except docker_api.ImageBuildFailed as exc:
            _explain_build_failure(exc, plan)
            raise
    image = docker_api.inspect_image(client, image_id) or {}
    labels = (image.get("Config") or {}).get("Labels") or {}
    if labels.get(MANAGED_LABEL) != "1" or labels.get(DIGEST_LABEL) != plan.recipe_digest:
        raise MoatbridgeError(
            f"The built image {image_id} lacks moatbridge's labels.", "report this as a bug"
        )
    if previous is not None and previous["Id"] != image_id and previous["Id"] not in _toolchain_images():
        # The image this tag used to name is now unnamed: drop it rather than leave
        # gigabytes behind (kept while a container or an installed toolchain uses it).
        docker_api.remove_unused_image(client, str(previous["Id"]))
    _tag_aliases(client, plan, image_id)
    result.update(action="built", id=image_id, size=image.get("Size"))
    _check_pinned(client, plan.distro, image_id, result, say)
    result["text"] = f"Built {plan.reference} ({image_id[7:19]}, {int(image.get('Size') or 0) / GB:.2f} GB)"
    return result


def _tag_aliases(client: Any, plan: BuildPlan, image_id: str) -> None:
    """The vendor's moving tags (``latest``, ``latest-<version>``) for the default image."""
    for alias in plan.aliases:
        repository, _, tag = alias.rpartition(":")
        docker_api.tag_image(client, image_id, repository, tag)


def _explain_build_failure(exc: docker_api.ImageBuildFailed, plan: BuildPlan) -> None:
    """Causes a user can act on get their own sentence (the build's error otherwise)."""
    refused = tarball_refusal(exc.log)  # Dockerfile.tarball's own refusals: bad input, exit 2
    if refused is not None:
        raise InputError(*refused) from None
    expired = expired_release(exc.log)
    if expired is not None:
        failed = docker_api.ImageBuildFailed(
            f"The Debian mirror's Release file for {expired.suite} has expired (its Valid-Until passed "
            f"{expired.since} ago), so apt refuses it: {redact_url(expired.mirror)}.",
            "a snapshot or slow mirror serves old metadata; if you trust it, pass --no-check-valid-until "
            f"(or set apt.check_valid_until: false for the {plan.distro.name} stack in the catalog); "
            "else point --mirror at a current one",
        )
        failed.log = exc.log
        raise failed from None


def _check_pinned(client: Any, distro: Distro, image_id: str, result: dict[str, Any], say: Any) -> None:
    """Warn when the packages in the image differ from the versions the catalog pins."""
    if not distro.pinned:
        return
    listing = docker_api.read_file_from_image(client, image_id, "/opt/moatbridge/packages.tsv") or ""
    checked, drift = pinned_drift(distro.pinned, listing)
    result.update(pinned_checked=checked, pinned_drift=drift)
    for line in drift:
        say(f"warning: package version differs from the catalog: {line}")


def _toolchain_images() -> set[str]:
    from moatbridge.adapters.statestore import StateStore

    state = StateStore(Paths.from_environ(os.environ).state_file).read()
    return {t.image_id for t in state.toolchains}


def run(args: Namespace) -> int:
    result = build(BuildOptions.from_args(args))
    text = result.pop("text")
    if args.json:
        print_json(result)
    else:
        print(text)
    return 0
