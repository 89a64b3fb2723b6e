import sys

from moatbridge.cli import main

sys.exit(main())
