"""``python -m hostoffload``; see :mod:`hostoffload.cli`."""

import sys

from hostoffload.cli import main

sys.exit(main())
