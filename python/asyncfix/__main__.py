"""`python -m asyncfix ARGS...` is the `asyncfix` command (ARGS as on the command line).

The command itself is the program the wheel installs beside the interpreter (see _launcher.py);
this only finds it, checks that it can run here, and hands the process over to it.
"""

import sys

from ._launcher import main

if __name__ == "__main__":
    sys.exit(main("asyncfix", sys.argv[1:]))
