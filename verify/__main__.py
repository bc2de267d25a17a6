"""`python -m verify` is the same as `gfverify`."""

import sys

from verify.cli import main

sys.exit(main())
