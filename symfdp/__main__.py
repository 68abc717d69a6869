"""``python -m symfdp`` runs the command-line interface."""

import sys

from symfdp.cli import main

sys.exit(main())
