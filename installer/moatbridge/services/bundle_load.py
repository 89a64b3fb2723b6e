"""Loading a verified bundle: the consent rule for the licences it names, the plan of
what would change, then the image into the engine and the toolchain registered the way
setup does it (state record, shims, activation files; rc files untouched).

Every step of the load runs under the state lock, at the fault points the fault-matrix
tests cut it off at, in this order: image loaded, tag moved, files written, state recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from moatbridge.adapters import bundle_archive, docker_api, faults, image_archive
from moatbridge.adapters.clock import now_stamp
from moatbridge.adapters.records import load_licences
from moatbridge.core.bundle import IMAGE, BundleError, Manifest, tag_problem, toolchain_from
from moatbridge.core.bundle_image import ImageClaims, contradiction, image_claims
from moatbridge.core.licences import licence_of, require_consent
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.bundle_progress import OpenProgress
from moatbridge.services.consent import consents
from moatbridge.services.installation import install_files
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import record, state_store


@dataclass(frozen=True)
class LoadRequest:
    """A verified bundle the consent rule lets in, and the toolchain it would register."""

    verified: bundle_archive.Verified
    toolchain: Toolchain
    state: State  # as read before the plan, without the lock
    licence_required: bool  # the runtime must enforce the toolchain's licence
    move_tag: bool = False  # the user asked to move a tag that is not moatbridge's


@dataclass(frozen=True)
class LoadPlan:
    """What a load would change; a dry run stops here."""

    request: LoadRequest
    client: Any  # the engine connection the image is loaded through
    present: bool  # the engine has the manifest's image ID already: nothing to load
    replacing: bool  # an installed toolchain of the same name goes
    files: tuple[str, ...]  # the files it would write or change

    @property
    def image_size(self) -> int:
        return self.request.verified.member(IMAGE).size


def check_licence(paths: Paths, manifest: Manifest, claims: ImageClaims) -> bool:
    """The consent rule, for the licence the manifest names (which must cover its flavour)
    and any the image's own labels name. Returns whether the runtime must enforce one."""
    t = manifest.toolchain
    problem = contradiction(manifest, claims)
    if problem is not None:
        raise BundleError(
            f"The bundle is mislabelled: {problem}; nothing was loaded.",
            "save it again with 'moatbridge bundle save' on the machine it came from",
        )
    records = load_licences()
    licences = [licence_of(records, t.licence, t.flavour)]
    licences += [records[i] for i in sorted(claims.licences) if i in records and i != t.licence]
    for licence in licences:
        if licence.acceptance_required:
            require_consent(licence, consents(paths).read(licence.id), "Loading this bundle")
    return licences[0].acceptance_required  # the runner enforces the toolchain's own licence


def admit_bundle(
    paths: Paths, verified: bundle_archive.Verified, name: str | None, move_tag: bool = False
) -> LoadRequest:
    """The toolchain the bundle registers (under NAME, else the manifest's), once its
    manifest and image labels agree and the consent rule lets their licences in."""
    manifest = verified.manifest
    toolchain = toolchain_from(manifest, name or manifest.toolchain.name, now_stamp())
    state = state_store(paths).read()
    claims = image_claims(bundle_archive.image_metadata(verified), manifest.toolchain.image_id)
    licence_required = check_licence(paths, manifest, claims)
    return LoadRequest(verified, toolchain, state, licence_required, move_tag)


def plan_load(paths: Paths, request: LoadRequest) -> LoadPlan:
    """Ask the engine whether it has the image, and which files registering would write."""
    toolchain, state = request.toolchain, request.state
    client = docker_api.connect(timeout=image_archive.SAVE_LOAD_TIMEOUT_S)
    present = docker_api.inspect_image(client, toolchain.image_id) is not None
    _check_tag(client, request, state)
    make_default = state.default is None or state.default == toolchain.name
    runtime = runtime_for(toolchain, paths, request.licence_required)
    changes = install_files(paths, toolchain, runtime, make_default, dry_run=True)
    files = tuple(w.path for w in changes if w.changed)
    replacing = any(t.name == toolchain.name for t in state.toolchains)
    return LoadPlan(request, client, present, replacing, files)


def _load_image(client: Any, verified: bundle_archive.Verified, show: OpenProgress) -> None:
    """docker load the verified image.tar, then insist the engine has the manifest's image ID."""
    expected = verified.manifest.toolchain.image_id
    image = verified.member(IMAGE)
    with show(image.size) as progress:

        def status(event: docker_api.StreamEvent) -> None:
            if event.kind == "status":
                progress.describe(event.text)

        chunks = bundle_archive.image_chunks(verified, on_bytes=progress)
        loaded = image_archive.load_image_stream(client, chunks, status)
    ids = {
        str(found["Id"])
        for ref in loaded
        if (found := docker_api.inspect_image(client, ref)) is not None
    }  # fmt: skip
    if ids != {expected}:
        raise MoatbridgeError(
            f"The engine loaded {', '.join(sorted(ids)) or 'nothing'} from the bundle, not the manifest's "
            f"image {expected}; nothing was registered.",
            "the bundle was not written by 'moatbridge bundle save'; remove that image with "
            "'docker rmi' and save the bundle again",
        )


def _own_repositories(flavour: str) -> frozenset[str]:
    from moatbridge.adapters.records import load_catalog

    catalog = load_catalog()
    registries = next((f.registries for f in catalog.flavours if f.name == flavour), ())
    return frozenset((f"{catalog.local_repository}/{flavour}", *registries))


def _check_tag(client: Any, request: LoadRequest, state: State) -> dict[str, Any] | None:
    """The image the toolchain's reference names here now, once moving it is allowed."""
    toolchain = request.toolchain
    current = docker_api.inspect_image(client, toolchain.image)
    recorded = any(t.image == toolchain.image for t in state.toolchains)
    problem = tag_problem(toolchain.image, _own_repositories(toolchain.flavour), current,
                          toolchain.image_id, recorded)  # fmt: skip
    if problem is not None and not request.move_tag:
        raise BundleError(
            f"The bundle would move a tag that is not moatbridge's: {problem}; nothing was loaded.",
            "pass --move-tag to point that reference at the bundle's image anyway",
        )
    return current


def _tag(client: Any, request: LoadRequest, state: State, on_tag_moved: Callable[[str], None]) -> None:
    from moatbridge.core.references import parse_reference

    toolchain = request.toolchain
    current = _check_tag(client, request, state)  # again, under the lock: it may have changed
    if current is not None and current["Id"] == toolchain.image_id:
        return
    ref = parse_reference(toolchain.image)
    docker_api.tag_image(client, toolchain.image_id, ref.repository, ref.tag or "latest")
    if current is not None:
        on_tag_moved(str(current["Id"]))


def load_bundle(
    paths: Paths, plan: LoadPlan, show: OpenProgress, on_tag_moved: Callable[[str], None]
) -> None:
    """Load the image (unless present) with its bytes counted into `show`, point the tag at
    it (`on_tag_moved` hears the ID the tag left), write the files and record the toolchain."""
    toolchain, store = plan.request.toolchain, state_store(paths)
    with store.locked():
        if not plan.present:
            _load_image(plan.client, plan.request.verified, show)
            faults.point("bundle.image-loaded", toolchain.image_id)
        state = store.read()
        _tag(plan.client, plan.request, state, on_tag_moved)
        faults.point("bundle.tagged", toolchain.image)
        make_default = state.default is None or state.default == toolchain.name
        runtime = runtime_for(toolchain, paths, plan.request.licence_required)
        written = install_files(paths, toolchain, runtime, make_default, dry_run=False)
        faults.point("bundle.files-written", toolchain.name)
        store.write(record(state.with_toolchain(toolchain, make_default), written))
