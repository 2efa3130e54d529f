"""The programs in examples/ run, with small sizes, on every tested backend.

Each example checks its own results against gmpy2 (an AssertionError on a
mismatch) and prints its timing; here it runs in-process with the backend
under test selected.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "name, args, says",
    [
        ("factorial", ["3000"], "both equal to GMP's"),  # a tree of 12 levels
        ("factorial", ["1"], "both equal to GMP's"),
        ("sqrt_digits", ["37"], "all 37 roots equal to GMP's"),
        ("miller_rabin", ["300", "256"], "the same verdicts as GMP's"),
    ],
)
def test_example_checks_itself_against_gmp(backend, capsys, name, args, says):
    assert load(name).main(args) == 0
    out = capsys.readouterr().out
    assert says in out and f"futbig backend {backend}" in out, out


def test_futhark_examples_are_quoted_whole_in_the_docs():
    """docs/futhark.md shows the Futhark programs that `python3 build.py test` runs."""
    doc = (EXAMPLES.parent / "docs" / "futhark.md").read_text()
    blocks = re.findall(r"^```futhark\n(.*?)^```$", doc, flags=re.M | re.S)
    programs = sorted((EXAMPLES / "futhark").glob("*.fut"))
    assert programs and sorted(blocks) == sorted(p.read_text() for p in programs)
