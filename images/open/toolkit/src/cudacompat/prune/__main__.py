"""``python3 -m cudacompat.prune``: see the package's docstring."""

import sys

from .cli import main

sys.exit(main())
