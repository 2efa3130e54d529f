"""The command line: ``python -m futbig {bench,fuzz,info}`` (also installed as ``futbig``).

Every subcommand takes ``--help``. Wrong arguments, and backends that are not
built or do not start, end in a one-line error and exit code 2; a failed
check (a result that differs from GMP) in exit code 1.

>>> main(["info", "--bogus"])
2
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from . import _backend

OPS_HELP = "comma-separated operations (default: %(default)s); choose from {}"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("futbig")
    except Exception:  # not installed (a source checkout on PYTHONPATH)
        return "unknown"


def _int_at_least(minimum: int, what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is {what} (give an integer >= {minimum})")
        return value

    return parse


#: argparse types: an int >= 1, an int >= 0.
positive_int = _int_at_least(1, "not positive")
nonnegative_int = _int_at_least(0, "negative")


def int_list(text: str) -> list[int]:
    """A comma-separated list of positive ints, e.g. ``512,4096`` (argparse type)."""
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of integers (an item is empty)")
    return [positive_int(t) for t in items]


def name_list(choices: list[str]) -> Callable[[str], list[str]]:
    """An argparse type: a comma-separated list of names, each one of ``choices``."""

    def parse(text: str) -> list[str]:
        names = [t.strip() for t in text.split(",")]
        unknown = [n for n in names if n not in choices]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {', '.join(map(repr, unknown))}; choose from {', '.join(choices)}")
        return names

    return parse


def _add_backend(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=_backend.BACKENDS, default=None,
                        help="the backend to run on (default: $FUTBIG_BACKEND, else the best one built)")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m futbig`` and its subcommands."""
    from . import bench, fuzz

    parser = argparse.ArgumentParser(prog="python -m futbig",
                                     description="futbig: exact batched big-integer arithmetic on GPUs and CPUs.")
    parser.add_argument("--version", action="version", version=f"futbig {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{bench,fuzz,info}")

    p = sub.add_parser("bench", help="time every operation over widths, check against GMP, write JSON and a plot",
                       description=bench.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", type=name_list(bench.OP_NAMES), default=None,
                   help=OPS_HELP.format(", ".join(bench.OP_NAMES)).replace(
                       "%(default)s", f"{','.join(bench.DEFAULT_OPS)}; with --huge {','.join(bench.HUGE_OPS)}"))
    p.add_argument("--bits", type=int_list, default=None,
                   help="comma-separated widths in bits (default: 2^9..2^18; with --huge 2^20..2^27)")
    p.add_argument("--total-bits", type=positive_int, default=None,
                   help="bits per operand per batch (default 2^32 on cuda, 2^23 on a CPU; with --huge one instance per row)")
    p.add_argument("--huge", action="store_true",
                   help="single huge integers: one instance per row (n = 1), by default at 2^20..2^27 bits")
    p.add_argument("--repeat", type=positive_int, default=5, help="timed runs per row, the best is reported (default 5)")
    p.add_argument("--check", type=positive_int, default=200,
                   help="instances per row checked against GMP, which also times gmpy2 on them (default 200)")
    _add_backend(p)
    p.add_argument("--out", default="bench/out", help="folder for results.json and results.png (default bench/out)")
    p.add_argument("--seed", type=nonnegative_int, default=1, help="seed of the random operands (default 1)")
    p.add_argument("--profile", action="store_true", help="print the time of each kernel per row")
    p.set_defaults(run=bench.run, parser=p)

    p = sub.add_parser("fuzz", help="check every operation against GMP on random and adversarial values",
                       description=fuzz.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=positive_int, default=100_000, help="cases per operation (default 100000)")
    p.add_argument("--ops", type=name_list(fuzz.OP_NAMES), default=",".join(fuzz.OP_NAMES),
                   help=OPS_HELP.format(", ".join(fuzz.OP_NAMES)).replace("(default: %(default)s)", "(default: all)"))
    p.add_argument("--bits", type=int_list, default=",".join(map(str, fuzz.DEFAULT_BITS)),
                   help="comma-separated widths in bits (default: both sides of every algorithm switch, 1 to 2^18+1)")
    _add_backend(p)
    p.add_argument("--seed", type=nonnegative_int, default=None, help="seed (default: a fresh one, printed)")
    p.add_argument("--batch-bits", type=positive_int, default=fuzz.BATCH_BITS,
                   help="bits per operand per batch (default 2^22): the batch size at each width")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.set_defaults(run=fuzz.run, parser=p)

    p = sub.add_parser("info", help="the version, the built backends and the one in use",
                       description="The version, the built backends and the one in use.")
    _add_backend(p)
    p.set_defaults(run=_info, parser=p)
    return parser


def _info(args: argparse.Namespace) -> int:
    print(f"futbig {_version()}")
    print("built backends:", ", ".join(_backend.available_backends()) or "none")
    print("in use:", _backend.backend())
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (2 for a usage error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:  # --help, --version, or a usage error already printed
        return e.code if isinstance(e.code, int) else 2
    sub = args.parser
    if getattr(args, "profile", False):
        os.environ["FUTBIG_PROFILE"] = "1"  # read when the backend starts
    try:
        if args.backend:
            _backend.set_backend(args.backend)
        _backend.context()  # starts the backend: a bad FUTBIG_BACKEND is reported here
        return args.run(args)
    except _backend.BackendError as e:
        sub.print_usage(sys.stderr)
        print(f"{sub.prog}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{sub.prog}: interrupted", file=sys.stderr)
        return 130
