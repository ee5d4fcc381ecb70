"""`python -m ecot`: the same entry point as the `ecot` console script."""

import sys

from ecot.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
