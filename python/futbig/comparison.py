"""Comparisons: ``compare`` (-1/0/1) and ``== != < <= > >=`` as numpy bool arrays.

Comparing with an int gives the mathematically right answer whatever its
size or sign, like Python and numpy 2: ints outside the dtype's range
compare without a kernel (every element is below a larger int, above a
smaller one).

>>> import futbig as fb
>>> a = fb.array([0, 5, 2**64 - 1], bits=64)
>>> a < 2**64, a > -1, a == 5
(array([ True,  True,  True]), array([ True,  True,  True]), array([False,  True, False]))
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._operands import align, operand_kind
from .ndarray import Array

__all__ = ["compare", "equal", "greater", "greater_equal", "less", "less_equal", "not_equal"]


def compare(a: Any, b: Any) -> np.ndarray:
    """A numpy int8 array: -1 where ``a < b``, 0 where equal, 1 where ``a > b``.

    Either operand may be an int (or a sequence of ints) of any size or sign.

    >>> import futbig as fb
    >>> fb.compare(fb.array([1, 5, 9], bits=64), 5)
    array([-1,  0,  1], dtype=int8)
    >>> fb.compare(fb.array([1, 5], bits=8), [-3, 2**100])
    array([ 1, -1], dtype=int8)
    """
    if isinstance(a, Array) and not isinstance(b, Array):
        return _compare_values(a, b)
    if isinstance(b, Array) and not isinstance(a, Array):
        return -_compare_values(b, a)
    a, b, _ = align(a, b, "compare")
    return np.asarray(a.dtype._compare(a, b), dtype=np.int8)


def _compare_values(a: Array, x: Any) -> np.ndarray:
    """``compare(a, x)`` for an operand ``x`` that is no futbig array.

    Ints outside ``a.dtype``'s range are clamped to it for the kernel, and
    their results are then set on the host (their sign is known).
    """
    lo, hi = a.dtype.min, a.dtype.max
    kind = operand_kind(x)
    if kind == "scalar":
        v = operator.index(x)
        if v < lo or v > hi:
            return np.full(len(a), 1 if v < lo else -1, dtype=np.int8)
    elif kind == "sequence":
        values = _ints_or_none(x)
        if values is not None and values and (min(values) < lo or max(values) > hi):
            below = np.array([v < lo for v in values])
            above = np.array([v > hi for v in values])
            clamped = [min(max(v, lo), hi) for v in values]
            got = _compare_values(a, clamped)
            return np.where(below, np.int8(1), np.where(above, np.int8(-1), got)).astype(np.int8)
    a, b, _ = align(a, x, "compare")
    return np.asarray(a.dtype._compare(a, b), dtype=np.int8)


def _ints_or_none(x: Any) -> list[int] | None:
    """The elements of a sequence as Python ints, or None if one is no int (left to the usual errors)."""
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            return None
        x = x.tolist()
    try:
        return [operator.index(v) for v in x]
    except TypeError:
        return None


def equal(a: Any, b: Any) -> np.ndarray:
    """``a == b`` as a numpy bool array."""
    return compare(a, b) == 0


def not_equal(a: Any, b: Any) -> np.ndarray:
    """``a != b`` as a numpy bool array."""
    return compare(a, b) != 0


def less(a: Any, b: Any) -> np.ndarray:
    """``a < b`` as a numpy bool array."""
    return compare(a, b) < 0


def less_equal(a: Any, b: Any) -> np.ndarray:
    """``a <= b`` as a numpy bool array."""
    return compare(a, b) <= 0


def greater(a: Any, b: Any) -> np.ndarray:
    """``a > b`` as a numpy bool array."""
    return compare(a, b) > 0


def greater_equal(a: Any, b: Any) -> np.ndarray:
    """``a >= b`` as a numpy bool array."""
    return compare(a, b) >= 0
