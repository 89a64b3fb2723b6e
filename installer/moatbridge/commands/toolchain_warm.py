"""`moatbridge toolchain-warm NAME` (used by shims): start the toolchain's warm container.

The container sleeps with the user's home mounted at the same path; shims
`docker exec` into it, which is far cheaper than a `docker run` per call
(services/warm_containers.py starts it).
"""

from __future__ import annotations

import os
from argparse import Namespace

from moatbridge.paths import Paths
from moatbridge.services.warm_containers import ensure_warm


def run(args: Namespace) -> int:
    ensure_warm(Paths.from_environ(os.environ), args.name)
    return 0
