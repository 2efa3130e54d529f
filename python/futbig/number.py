"""Number functions: absolute values and signs, bit counts, integer square
roots, elementwise selection, minima and maxima, sums and products, sorting.

Every one but sorting runs on the device (the reductions in about
``log2(n)`` rounds of batched operations); the bit counts and reductions
return host values. Sorting orders the limbs on the host (numpy's stable
``lexsort``) and gathers on the device: exact and stable, but a copy of the
limbs to the host; a device merge sort of rows would replace it.

>>> import futbig as fb
>>> a = fb.array([-12, 0, 2**70], fb.int(128))
>>> abs(a).to_ints() == [12, 0, 2**70], fb.sign(a).to_ints(), a.bit_length().tolist()
(True, [-1, 0, 1], [4, 0, 71])
>>> fb.isqrt(fb.array([15, 16, 10**40], bits=256)).to_ints()
[3, 4, 100000000000000000000]
>>> fb.sum(a) == 2**70 - 12, fb.max(a) == 2**70, fb.where(a < 0, 0, a).to_ints() == [0, 0, 2**70]
(True, True, True)
"""
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import _kernels
from ._operands import align
from .arithmetic import add, floor_divide, mul_full, multiply
from .bitwise import left_shift, right_shift
from .comparison import compare, less
from .creation import concatenate, full
from .dtypes import BigIntType, as_dtype, uint
from .ndarray import Array, wrap

# ``abs``, ``min``, ``max``, ``sum`` are reachable as ``futbig.min`` and so on but
# left out of ``futbig.__all__`` (they would shadow the builtins on ``import *``).
__all__ = ["abs", "absolute", "argsort", "bit_length", "isqrt", "max", "maximum", "min", "minimum", "popcount", "prod",
           "sign", "sort", "sum", "where"]


def absolute(a: Array) -> Array:
    """``|a|`` (what ``abs(a)`` calls); like numpy, ``abs(min)`` of a signed dtype wraps to ``min``.

    >>> import futbig as fb
    >>> abs(fb.array([-5, 5, -128], fb.int(8))).to_ints()
    [5, 5, -128]
    """
    return a._like(a.dtype._abs(a))


abs = absolute  # noqa: A001  (numpy's alias)


def sign(a: Array) -> Array:
    """-1, 0 or 1 per element, in ``a``'s dtype (0 or 1 for unsigned dtypes), like ``numpy.sign``.

    >>> import futbig as fb
    >>> fb.sign(fb.array([-3, 0, 9], fb.int(64))).to_ints(), fb.sign(fb.array([0, 9], bits=64)).to_ints()
    ([-1, 0, 1], [0, 1])
    """
    return a._like(a.dtype._sign(a))


def bit_length(a: Array) -> np.ndarray:
    """A numpy int64 array: ``int.bit_length`` of each element (of ``|x|`` for signed ones).

    Also the method ``a.bit_length()``.

    >>> import futbig as fb
    >>> fb.array([0, 1, 255, -256], fb.int(16)).bit_length()
    array([0, 1, 8, 9])
    """
    return _kernels.bit_length(a._ctx, a.dtype._abs(a))


def popcount(a: Array) -> np.ndarray:
    """A numpy int64 array: the number of set bits of each element (of ``|x|`` for
    signed ones, like ``int.bit_count`` and ``numpy.bitwise_count``).

    >>> import futbig as fb
    >>> fb.popcount(fb.array([0, 7, 2**100 - 1], bits=128)).tolist(), fb.popcount(fb.array([-7], fb.int(8))).tolist()
    ([0, 3, 100], [3])
    """
    return _kernels.popcount(a._ctx, a.dtype._abs(a))


def isqrt(a: Array) -> Array:
    """The floor square root of each element (``math.isqrt``), in ``a``'s dtype.

    Newton's iteration on the device from ``2**ceil(bit_length/2)``, above the
    root, while any element still decreases (about ``log2(bits)`` rounds, one
    division each). Negative elements raise ValueError.

    >>> import futbig as fb, math
    >>> fb.isqrt(fb.array([0, 1, 99, 2**127], bits=128)).to_ints() == [0, 1, 9, math.isqrt(2**127)]
    True
    """
    n, bits = len(a), a.bits
    if a.dtype.signed:
        negative = less(a, 0)
        if negative.any():
            i = int(np.argmax(negative))
            raise ValueError(f"isqrt of a negative number: element {i} is {a[i]}")
    work = uint(bits + 1)  # x + a // x can exceed 2**bits by one bit
    value = a.astype(uint(bits)).astype(work)
    lengths = bit_length(value)
    x = left_shift(full(n, 1, work), (lengths + 1) // 2)
    while True:
        q, _ = work._divmod(value, x, check_zero=False)  # x reaches 0 only for 0, where q = 0 is right
        y = right_shift(add(x, value._like(q)), 1)
        smaller = less(y, x)
        if not smaller.any():
            return x.astype(uint(bits)).astype(a.dtype)
        x = where(smaller, y, x)


def where(cond: Any, a: Any, b: Any) -> Array:
    """Elements of ``a`` where ``cond`` is true, of ``b`` elsewhere (``numpy.where``).

    ``cond`` is a bool (numpy) array of the operands' length, or one bool;
    ``a`` and ``b`` are arrays or ints, aligned like the operands of ``+``.
    One pass: the rows of both, joined, then gathered.

    >>> import futbig as fb
    >>> a = fb.array([1, 2, 3], bits=64)
    >>> fb.where(a > 1, a, 10).to_ints()
    [10, 2, 3]
    """
    a, b, dtype = align(a, b, "where")
    n, ctx = len(a), a._ctx
    cond = np.asarray(cond, dtype=bool)
    if cond.ndim == 0:
        return a if cond else b
    if cond.ndim != 1 or (len(cond) != n and n != 1):
        raise ValueError(f"where: the condition of shape {cond.shape} does not match operands of shape ({n},)")
    if n == 1 and len(cond) != 1:
        a, b, n = a[np.zeros(len(cond), dtype=np.int64)], b[np.zeros(len(cond), dtype=np.int64)], len(cond)
    rows = np.arange(n, dtype=np.int64)
    joined = _kernels.concatenate(ctx, [a._data, b._data], [n, n], a._m)
    return wrap(_kernels.gather(ctx, joined, np.where(cond, rows, rows + n)), n, dtype, a._m, ctx)


def minimum(a: Any, b: Any) -> Array:
    """The elementwise smaller of ``a`` and ``b`` (``numpy.minimum``).

    >>> import futbig as fb
    >>> fb.minimum(fb.array([1, -5], fb.int(64)), 0).to_ints()
    [0, -5]
    """
    a, b, _ = align(a, b, "minimum")
    return where(compare(a, b) <= 0, a, b)


def maximum(a: Any, b: Any) -> Array:
    """The elementwise larger of ``a`` and ``b`` (``numpy.maximum``).

    >>> import futbig as fb
    >>> fb.maximum(fb.array([1, -5], fb.int(64)), 0).to_ints()
    [1, 0]
    """
    a, b, _ = align(a, b, "maximum")
    return where(compare(a, b) >= 0, a, b)


def min(a: Array) -> int:  # noqa: A001
    """The smallest element, a Python int (``numpy.min``); pairwise on the device in ``log2(n)`` rounds.

    >>> import futbig as fb
    >>> fb.min(fb.array([5, -2**100, 7], fb.int(128))) == -2**100
    True
    """
    return _pairwise(a, "min", minimum)[0]


def max(a: Array) -> int:  # noqa: A001
    """The largest element, a Python int (``numpy.max``).

    >>> import futbig as fb
    >>> fb.max(fb.array([5, 2**100, 7], bits=128)) == 2**100
    True
    """
    return _pairwise(a, "max", maximum)[0]


def sum(a: Array, dtype: BigIntType | None = None) -> int:  # noqa: A001
    """The sum of the elements, a Python int.

    Exact by default: the sum is computed in the dtype of ``a``'s kind wide
    enough for it (``bits + n.bit_length()`` bits). With ``dtype`` (a futbig
    dtype), like numpy's ``dtype=``: the elements are converted to it
    (:meth:`Array.astype`) and summed modulo ``2**dtype.bits``, so
    ``dtype=a.dtype`` gives numpy's wrapping sum. Pairwise on the device in
    ``log2(n)`` rounds; an empty array sums to 0.

    >>> import futbig as fb
    >>> a = fb.array([2**64 - 1] * 3, bits=64)
    >>> fb.sum(a) == 3 * (2**64 - 1), fb.sum(a, dtype=a.dtype) == (3 * (2**64 - 1)) % 2**64
    (True, True)
    """
    if dtype is None:
        dtype = type(a.dtype)(a.bits + builtins.max(len(a), 1).bit_length())
    x = a.astype(as_dtype(dtype))
    if len(x) == 0:
        return 0
    return _pairwise(x, "sum", add)[0]


def prod(a: Array, dtype: BigIntType | None = None) -> int:
    """The product of the elements, a Python int.

    Exact by default: a product tree of full products (:func:`mul_full`) in
    ``log2(n)`` levels, each level's products cut to the narrowest width that
    holds them, so the last product is about as wide as the result. With
    ``dtype`` (a futbig dtype), like numpy's ``dtype=``: the elements are
    converted to it and multiplied modulo ``2**dtype.bits``. An empty array
    gives 1.

    >>> import futbig as fb
    >>> a = fb.array(range(1, 31), bits=64)
    >>> import math; fb.prod(a) == math.factorial(30), fb.prod(a, dtype=a.dtype) == math.factorial(30) % 2**64
    (True, True)
    """
    if len(a) == 0:
        return 1
    if dtype is not None:
        return _pairwise(a.astype(as_dtype(dtype)), "prod", multiply)[0]
    x = a
    while len(x) > 1:
        if len(x) % 2:
            x = concatenate([x, full(1, 1, x.dtype)])
        h = len(x) // 2
        x = _narrowest(mul_full(x[:h], x[h:]))
    return x[0]


def _narrowest(x: Array) -> Array:
    """``x`` in the narrowest dtype of its kind (a multiple of 64 bits) that holds
    every element: a product tree's widths then follow its values, not ``2**level * bits``."""
    need = int(bit_length(x).max()) + x.dtype.signed
    bits = -(-builtins.max(need, 1) // 64) * 64
    return x.astype(type(x.dtype)(bits)) if bits < x.bits else x


def argsort(a: Array) -> np.ndarray:
    """A numpy int64 array of the indices that sort ``a`` ascending, stable (``numpy.argsort(kind="stable")``).

    The limbs are copied to the host and ordered by numpy's ``lexsort``, most
    significant limb first (the sign bit flipped for signed dtypes).

    >>> import futbig as fb
    >>> fb.argsort(fb.array([5, -2**70, 0, 5], fb.int(128))).tolist()
    [1, 2, 0, 3]
    """
    keys = a._host_limbs()[:, : a.dtype.limbs]
    if a.dtype.signed:
        top, bit = divmod(a.bits - 1, 64)
        keys = keys.copy()
        keys[:, top] ^= np.uint64(1 << bit)  # two's complement order = unsigned order with the sign flipped
    return np.lexsort(keys.T).astype(np.int64)  # the last key (the top limb) is the primary one


def sort(a: Array) -> Array:
    """``a`` sorted ascending (:func:`argsort`, then one gather on the device).

    >>> import futbig as fb
    >>> fb.sort(fb.array([3, 2**100, 1], bits=128)).to_ints() == [1, 3, 2**100]
    True
    """
    return a[argsort(a)]


def _pairwise(x: Array, what: str, combine: Any) -> Array:
    """``combine`` folded over ``x`` pairwise (first half with second half) down to one element."""
    if len(x) == 0:
        raise ValueError(f"zero-size array to reduction operation {what} which has no identity")
    while len(x) > 1:
        h = len(x) // 2
        head = combine(x[:h], x[h : 2 * h])
        x = head if len(x) % 2 == 0 else concatenate([head, x[2 * h :]])
    return x
