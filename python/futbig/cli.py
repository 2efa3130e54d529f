"""Command line: ``python -m futbig bench`` (the main job) and ``python -m futbig info``."""
from __future__ import annotations

import sys

USAGE = """usage: python -m futbig {bench,info} [options]

  bench   time every operation over widths 2^9..2^18 bits, check against GMP,
          print a table, write JSON and a PNG plot (--help for options)
  info    the built backends and the one in use
"""


def _info() -> int:
    from . import _backend

    print("built backends:", ", ".join(_backend.available_backends()) or "none")
    print("in use:", _backend.backend())
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "bench":
        from .bench import main as bench_main

        return bench_main(rest)
    if command == "info":
        return _info()
    print(f"unknown command {command!r}\n{USAGE}", file=sys.stderr, end="")
    return 2
