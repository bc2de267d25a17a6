"""`python -m verify` is the same as `gfverify`."""

import sys

from verify.front.cli import main

sys.exit(main())
