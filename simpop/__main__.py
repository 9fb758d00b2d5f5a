"""``simpop`` and ``python -m simpop``. A Ctrl-C before a command has its own handler (while the
libraries load, say) ends with one line and exit status 130, not a traceback."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from simpop.cli import main as cli_main

        cli_main()
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        sys.exit(130)  # 128 + SIGINT, as simpop.cli.interrupt


if __name__ == "__main__":
    main()
