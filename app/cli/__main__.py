"""`python -m app.cli ...`: the same as the `clusterplan` console script."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
