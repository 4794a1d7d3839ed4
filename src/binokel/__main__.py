"""``python -m binokel`` runs the ``binokel`` command."""

import sys

from binokel.cli import main

sys.exit(main())
