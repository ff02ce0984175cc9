"""``python -m ampscope analyze|report|diff|merge|export ...``: the command's analysis subcommands, from the package."""

import sys

from . import _core


def main() -> int:
    sys.stdout.flush()
    return _core.run_command_line(["ampscope", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
