"""Building a toolchain image from an ImageSpec: cheap checks, base image, plan, cache
check, space check, build (credentials only through the loopback proxy), verify."""

from __future__ import annotations

import os
import re
import shutil
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from moatbridge.adapters import docker_api
from moatbridge.adapters.build_context import context_digest, files_digest
from moatbridge.adapters.progress import BuildView
from moatbridge.adapters.records import load_catalog
from moatbridge.core.apt_log import expired_release
from moatbridge.core.build_plan import (
    DIGEST_LABEL,
    LABEL_PREFIX,
    MANAGED_LABEL,
    BaseImage,
    BuildPlan,
    pinned_drift,
)
from moatbridge.core.catalog import Catalog, Distro, Flavour
from moatbridge.core.image_spec import ImageSpec, RunOptions
from moatbridge.core.recipes import plan_build, recipe_context
from moatbridge.core.redact import has_secret, redact_text, redact_url
from moatbridge.core.references import parse_reference
from moatbridge.core.scale_recipes import extra_build_args, upstream_repository
from moatbridge.core.scale_tarball import tarball_refusal
from moatbridge.errors import InputError, MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.base_images import base_for
from moatbridge.services.consent import require_for_build
from moatbridge.services.scale_sources import credentials, enter_repo_proxy
from moatbridge.services.scale_tarballs import check_tarball_option, enter_tarball, with_tarball_facts

GB = 1_000_000_000


class InsufficientSpace(MoatbridgeError):
    exit_code = 6


def _find_by_digest(client: Any, digest: str) -> dict[str, Any] | None:
    found = docker_api.list_images(client, f"{DIGEST_LABEL}={digest}")
    return found[0] if found else None


# The labels that name what a build's package and pruning stages hold: an image that carries
# the same ones (an older recipe of the same image, or the same image under another
# repository) left those stages in the engine's layer cache.
_STAGE_LABELS = tuple(f"{LABEL_PREFIX}{key}" for key in ("flavour", "variant", "distro", "targets"))


def stages_cached(client: Any, plan: BuildPlan) -> bool:
    labels = dict(plan.labels)
    wanted = {key: labels.get(key) for key in _STAGE_LABELS}
    return any(
        {key: (image.get("Labels") or {}).get(key) for key in _STAGE_LABELS} == wanted
        for image in docker_api.list_images(client, f"{MANAGED_LABEL}=1")
    )


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


def validate(spec: ImageSpec, options: RunOptions, catalog: Catalog) -> None:
    """Everything cheap checked (flavour, variant, targets, CUDA version, distribution, the
    source's options): bad input is exit 2 before the engine or a base image is touched."""
    flavour = catalog.flavour(spec.flavour_name)
    flavour.distro(spec.distro)
    extra_build_args(spec.source.build_args)
    if spec.source.base_image is not None:
        parse_reference(spec.source.base_image)  # a reference, nothing else (it reaches the engine's API)
    for flag, url in (("--mirror", options.mirror), ("--repo-url", spec.source.repo_url)):
        if url is not None and not _URL.fullmatch(url):
            raise InputError(f"{flag} {url!r} is not a URL.", f"e.g. {flag} http://deb.example.org/debian")
    check_tarball_option(spec)
    if flavour.name != "scale":
        plan_build(spec, catalog, BaseImage("base", "id"), "ctx")
    elif spec.source.channel != "tarball":
        upstream_repository(flavour, spec)  # the customer's name and a URL without credentials


def plan_for(
    spec: ImageSpec, options: RunOptions, catalog: Catalog, client: Any, say: Any
) -> tuple[ImageSpec, BuildPlan]:
    """The spec with what was learnt on the way (a local tarball's SHA-256) and its plan."""
    spec, tree = with_tarball_facts(spec)
    base = base_for(spec, options, catalog, client, say)
    context = recipe_context(spec, catalog)
    digest = (
        files_digest(context.folder, context.files)
        if context.files is not None
        else context_digest(context.folder, context.dockerfile)
    )
    return spec, plan_build(spec, catalog, base, digest, tarball_tree=tree)


@dataclass(frozen=True)
class BuildResult:
    spec: ImageSpec  # as built, with what was learnt (a local tarball's SHA-256)
    record: dict[str, Any]  # what `image build --json` prints: reference, action, id, ...
    text: str  # the same in one line for people

    @property
    def reference(self) -> str:
        return str(self.record["reference"])

    @property
    def image_id(self) -> str:
        return str(self.record.get("id", ""))

    @property
    def action(self) -> str:
        return str(self.record["action"])


def build(spec: ImageSpec, options: RunOptions, consent_checked: bool = False) -> BuildResult:
    """Plan, skip when the recipe digest exists, else build (``action``: would-build /
    up-to-date / built).

    ``consent_checked``: the caller applied the consent rule itself (setup records the
    acceptance only once the toolchain works); every other build of a licence-gated
    flavour asks for it here."""
    catalog = load_catalog()
    validate(spec, options, catalog)  # bad input: one clear error before the engine is asked
    client = docker_api.connect()
    quiet = options.quiet

    def say(text: str) -> None:
        if not quiet:
            print(text, file=sys.stderr if options.json else sys.stdout, flush=True)

    spec, plan = plan_for(spec, options, catalog, client, say)
    flavour = catalog.flavour(plan.flavour)
    if not options.dry_run and not consent_checked:
        require_for_build(flavour, spec)
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
        text = (
            f"Would build {plan.reference} (stage {plan.stage})" if existing is None
            else f"{plan.reference} is up to date"
        )  # fmt: skip
        return BuildResult(spec, result, text)
    if existing is not None and not options.no_cache:
        if plan.reference not in (existing.get("RepoTags") or []):
            repository, _, tag = plan.reference.rpartition(":")
            docker_api.tag_image(client, existing["Id"], repository, tag)
        _tag_aliases(client, plan, str(existing["Id"]))
        result.update(action="up-to-date", id=existing["Id"])
        _check_pinned(client, plan.distro, str(existing["Id"]), result, say)
        return BuildResult(spec, result, f"{plan.reference} is up to date (recipe {plan.recipe_digest[:12]})")
    previous = docker_api.inspect_image(client, plan.reference)
    if options.space_check:
        needed = required_bytes(plan, flavour, rebuild=previous is not None or stages_cached(client, plan))
        check_space(client, needed, f"Building {plan.reference}")
    found = credentials(spec) if plan.flavour == "scale" else None
    with ExitStack() as stack:
        buildargs = dict(plan.buildargs)
        repo_url = buildargs.get("SCALE_REPO_URL")
        if repo_url is not None and (found is not None or has_secret(repo_url)):
            # Build args are kept in the image history: the build sees only a loopback
            # URL; the proxy adds the credentials and the URL's query (a token).
            buildargs["SCALE_REPO_URL"] = enter_repo_proxy(stack, repo_url, found)
        if spec.source.channel == "tarball" and spec.source.tarball is not None:
            buildargs["SCALE_TARBALL_URL"] = enter_tarball(stack, spec.source.tarball, found)
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
    return BuildResult(
        spec, result, f"Built {plan.reference} ({image_id[7:19]}, {int(image.get('Size') or 0) / GB:.2f} GB)"
    )


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
    """What every home of this account records (a rebuild must not take another home's image)."""
    from moatbridge.services.image_users import recorded_image_ids

    return recorded_image_ids(Paths.from_environ(os.environ))
