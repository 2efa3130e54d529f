"""Comparisons: ``compare`` (-1/0/1) and ``== != < <= > >=`` as numpy bool arrays.

>>> import futbig as fb
>>> a = fb.array([0, 5, 2**64 - 1], bits=64)
>>> a == 5
array([False,  True, False])
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._operands import align

__all__ = ["compare", "equal", "greater", "greater_equal", "less", "less_equal", "not_equal"]


def compare(a: Any, b: Any) -> np.ndarray:
    """A numpy int8 array: -1 where ``a < b``, 0 where equal, 1 where ``a > b``.

    >>> import futbig as fb
    >>> fb.compare(fb.array([1, 5, 9], bits=64), 5)
    array([-1,  0,  1], dtype=int8)
    """
    a, b, _ = align(a, b, "compare")
    return np.asarray(a.dtype._compare(a, b), dtype=np.int8)


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
