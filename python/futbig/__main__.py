"""``python -m futbig``: see futbig.cli."""
import sys

from .cli import main

sys.exit(main())
