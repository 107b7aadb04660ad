import sys

from ranking.cli import main

sys.exit(main())
