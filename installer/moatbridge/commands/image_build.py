"""`moatbridge image build`: a toolchain image from the catalog's recipe, with live progress."""

from __future__ import annotations

from argparse import Namespace

from moatbridge.adapters.console import print_json
from moatbridge.core.image_spec import ImageSpec, RunOptions
from moatbridge.services.image_builds import build


def run(args: Namespace) -> int:
    result = build(ImageSpec.from_args(args), RunOptions.from_args(args))
    if args.json:
        print_json(result.record)
    else:
        print(result.text)
    return 0
