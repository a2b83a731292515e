"""`make site` runs this: build the course website into site/_build/html (see coursesite.build)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from coursesite.build import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
