"""``python -m ranking``: the ``evidence-rank`` command line, for when the script is not on PATH."""

import sys

from ranking.cli import main

sys.exit(main())
