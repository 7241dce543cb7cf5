"""``python -m dlgo.app.cli ...`` is the ``dlgo`` command."""
import sys

from dlgo.app.cli import main

sys.exit(main())
