"""`moatbridge image pull` and `image push`: live progress, retries, digests recorded."""

from __future__ import annotations

from argparse import Namespace

from moatbridge.adapters import docker_api
from moatbridge.adapters.console import print_json
from moatbridge.core.references import parse_reference
from moatbridge.services.registry import pull_image, push_image, push_target


def run(args: Namespace) -> int:
    return pull(args) if args.image_command == "pull" else push(args)


def pull(args: Namespace) -> int:
    ref = parse_reference(args.reference)  # a bad reference: exit 2 before the engine is asked
    client = docker_api.connect()
    image_id, digest = pull_image(
        client, args.reference, args.retries, args.stall_timeout, args.json, not args.no_space_check
    )
    if args.json:
        print_json({"reference": str(ref), "digest": digest, "id": image_id})
    else:
        print(f"Pulled {ref}\n  digest {digest}")
    return 0


def push(args: Namespace) -> int:
    ref = push_target(args.reference)  # a digest or a bad reference: exit 2 before the engine is asked
    client = docker_api.connect()
    digest = push_image(client, ref, args.source, args.retries, args.stall_timeout, args.json)
    reference = f"{ref.repository}:{ref.tag or 'latest'}"
    if args.json:
        print_json({"reference": reference, "digest": digest})
    else:
        print(f"Pushed {reference}\n  digest {digest}")
    return 0
