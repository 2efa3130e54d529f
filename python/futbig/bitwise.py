"""Bitwise operations and shifts: ``& | ^ ~ << >>``.

>>> import futbig as fb
>>> a = fb.array([0b1100, 1], bits=8)
>>> (a & 0b1010).to_ints(), (~a).to_ints(), (a << 4).to_ints(), (a >> [2, 1]).to_ints()
([8, 0], [243, 254], [192, 16], [3, 0])
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from . import _kernels
from ._operands import align
from .ndarray import Array

__all__ = ["bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

#: Shift counts are saturated here: every count >= bits gives 0 (and stays an i64).
_MAX_COUNT = 1 << 62


def bitwise_and(a: Any, b: Any) -> Array:
    """``a & b``.

    >>> import futbig as fb
    >>> fb.bitwise_and(fb.array([0b1100], bits=8), 0b1010).to_ints()
    [8]
    """
    return _elementwise(a, b, "&", _kernels.bit_and)


def bitwise_or(a: Any, b: Any) -> Array:
    """``a | b``.

    >>> import futbig as fb
    >>> fb.bitwise_or(fb.array([0b1100], bits=8), 0b1010).to_ints()
    [14]
    """
    return _elementwise(a, b, "|", _kernels.bit_or)


def bitwise_xor(a: Any, b: Any) -> Array:
    """``a ^ b``.

    >>> import futbig as fb
    >>> fb.bitwise_xor(fb.array([0b1100], bits=8), 0b1010).to_ints()
    [6]
    """
    return _elementwise(a, b, "^", _kernels.bit_xor)


def bitwise_not(a: Array) -> Array:
    """``~a``: every one of the ``bits`` bits flipped.

    >>> import futbig as fb
    >>> fb.bitwise_not(fb.array([0, 5], bits=4)).to_ints()
    [15, 10]
    """
    return a._like(_kernels.bit_not(a._ctx, a.bits, a._data))


invert = bitwise_not


def left_shift(a: Array, counts: Any) -> Array:
    """``a << counts`` modulo ``2**bits``; ``counts`` is an int or one int per element.

    Counts may be any non-negative ints (Python ints, mpz, numpy integers);
    those ``>= bits`` give 0.

    >>> import futbig as fb
    >>> fb.left_shift(fb.array([1, 1], bits=100), [3, 99]).to_ints() == [8, 2**99]
    True
    """
    return a._like(_kernels.left_shift(a._ctx, a.bits, _shift_counts(counts, len(a)), a._data))


def right_shift(a: Array, counts: Any) -> Array:
    """``a >> counts``; ``counts`` is an int or one int per element (counts ``>= bits`` give 0).

    >>> import futbig as fb
    >>> fb.right_shift(fb.array([2**99, 2**99], bits=100), [99, 2**70]).to_ints()
    [1, 0]
    """
    return a._like(a.dtype._right_shift(a, _shift_counts(counts, len(a))))


def _elementwise(a: Any, b: Any, what: str, kernel: Callable[[Any, Any, Any], Any]) -> Array:
    """``kernel`` on the aligned operands (bit operations need no dtype hook)."""
    a, b, _ = align(a, b, what)
    return a._like(kernel(a._ctx, a._data, b._data))


def _shift_counts(counts: Any, n: int) -> int | np.ndarray:
    """A non-negative shift count (a Python int), or an ``[n]`` int64 array of them, saturated at 2**62."""
    if isinstance(counts, Array):
        raise TypeError("shift counts must be an int or an array of ints (numpy or list), not a futbig array")
    if not isinstance(counts, np.ndarray) and hasattr(counts, "__index__"):  # int, numpy integers, mpz
        k = operator.index(counts)
        if k < 0:
            raise ValueError(f"negative shift count {k}")
        return min(k, _MAX_COUNT)
    ks = np.asarray(counts)
    if ks.dtype == object:  # ints too large for numpy, mpz, or things that are no ints
        ks = _object_counts(ks)
    elif ks.ndim != 1 or ks.dtype.kind not in "iu" and ks.size:
        raise TypeError(f"shift counts must be an int or a 1-d array of ints, not {ks.dtype} of shape {ks.shape}")
    if ks.shape[0] != n:
        raise ValueError(f"operands could not be broadcast together with shapes ({n},) {ks.shape}")
    if ks.size and ks.dtype.kind == "i" and (ks < 0).any():
        i = int(np.argmax(ks < 0))
        raise ValueError(f"negative shift count {int(ks[i])} at index {i}")
    return np.minimum(ks.astype(np.uint64), np.uint64(_MAX_COUNT)).astype(np.int64)


def _object_counts(ks: np.ndarray) -> np.ndarray:
    """An object array of counts (Python ints of any size, mpz) as saturated int64."""
    if ks.ndim != 1:
        raise TypeError(f"shift counts must be an int or a 1-d array of ints, not shape {ks.shape}")
    out = np.empty(ks.shape[0], dtype=np.int64)
    for i, x in enumerate(ks):
        try:
            k = operator.index(x)
        except TypeError:
            raise TypeError(f"shift count {i} is {x!r} ({type(x).__name__}), not an integer") from None
        if k < 0:
            raise ValueError(f"negative shift count {k} at index {i}")
        out[i] = min(k, _MAX_COUNT)
    return out
