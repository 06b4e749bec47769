"""``python -m dpcount``: the same as the ``dpcount`` console script."""

import sys

from dpcount.cli import main

sys.exit(main())
