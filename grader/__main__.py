"""Allow ``python -m grader`` as an alias of the ``course`` command."""

import sys

from grader.cli import main

sys.exit(main())
