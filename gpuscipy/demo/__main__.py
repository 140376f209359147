"""``python -m gpuscipy.demo``: the same as the ``gpuscipy-demo`` command."""

import sys

from ._cli import main

sys.exit(main())
