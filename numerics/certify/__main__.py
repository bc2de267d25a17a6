"""``python -m numerics.certify FILE``: re-verify a certificate file (`checker.main`)."""

from numerics.certify.checker import main

raise SystemExit(main())
