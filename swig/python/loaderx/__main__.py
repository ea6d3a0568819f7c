"""`python -m loaderx`: the `loaderx` command line, the same C++ code as the
installed `loaderx` binary (`python -m loaderx --help` lists the commands)."""

import sys

from loaderx import loaderx_native as _native


def main(argv: list[str] | None = None) -> int:
    """Runs one command line (the words after `python -m loaderx`); returns
    its exit code."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    # The command writes to the process's stdout and stderr directly.
    sys.stdout.flush()
    sys.stderr.flush()
    return int(_native.run_cli(["python -m loaderx", *arguments]))


if __name__ == "__main__":
    sys.exit(main())
