"""``python -m evalmark`` runs the command line."""

import sys

from evalmark.cli import main

sys.exit(main())
