"""Entry point: `python3 tools/pmucap ...` (a directory run as a script) or `python3 -m pmucap ...`."""
import os
import sys

if not __package__:
    # Run as a directory: Python put tools/pmucap itself first on the path, where the
    # subcommand modules would shadow nothing useful and could shadow something else.
    # Import the package from tools/ instead, so its relative imports work.
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path[0] = os.path.dirname(here)
    else:
        sys.path.insert(0, os.path.dirname(here))
    from pmucap.cli import main
else:
    from .cli import main

if __name__ == "__main__":
    sys.exit(main())
