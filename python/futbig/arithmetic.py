"""Arithmetic: ``+ - *``, squares and full products, exact division, negation and powers.

Scalar operands below ``2**64`` multiply and divide through the one-limb
entry points (``mul_limb``, ``div_limb``), without a batch of copies of the
scalar.

>>> import futbig as fb
>>> a = fb.array([10**20, 7], bits=128)
>>> (a * 3).to_ints(), (a // 7).to_ints(), (a % 7).to_ints()
([300000000000000000000, 21], [14285714285714285714, 1], [2, 0])
"""
from __future__ import annotations

import operator
from typing import Any, Callable

from . import _kernels
from ._operands import align, check_overflow_mode, limb_scalar, operand_kind, overflow_error
from .creation import scalar
from .ndarray import Array

# ``divmod`` is reachable as ``futbig.divmod`` but left out of ``futbig.__all__``
# (it would shadow the builtin on ``from futbig import *``).
__all__ = ["add", "divmod", "floor_divide", "mul", "mul_full", "multiply", "negative", "power", "remainder",
           "square", "sub", "subtract"]


def add(a: Any, b: Any, overflow: str = "wrap") -> Array:
    """``a + b`` modulo ``2**bits``; with ``overflow="raise"``, an OverflowError
    naming the first instance whose sum does not fit instead.

    >>> import futbig as fb
    >>> a = fb.array([1, 2**64 - 1], bits=64)
    >>> fb.add(a, 1).to_ints()
    [2, 0]
    >>> fb.add(a, 1, overflow="raise")
    Traceback (most recent call last):
    ...
    OverflowError: add overflowed uint(64) at index 1 (1 of 2 instances overflowed)
    """
    return _add_or_sub(a, b, overflow, "add", "+", _kernels.add)


def subtract(a: Any, b: Any, overflow: str = "wrap") -> Array:
    """``a - b`` modulo ``2**bits``; with ``overflow="raise"``, an OverflowError
    naming the first instance where ``a < b``.

    >>> import futbig as fb
    >>> fb.sub(fb.array([5, 3], bits=8), 4).to_ints()
    [1, 255]
    """
    return _add_or_sub(a, b, overflow, "sub", "-", _kernels.sub)


sub = subtract


def _add_or_sub(a: Any, b: Any, overflow: str, what: str, symbol: str,
                kernel: Callable[..., tuple[Any, Any]]) -> Array:
    """``kernel`` (add or sub) on the aligned operands; its carry or borrow flags raise with ``overflow="raise"``."""
    check_overflow_mode(overflow)
    a, b, dtype = align(a, b, symbol)
    result, carry = kernel(a._ctx, dtype.bits, a._data, b._data)
    if overflow == "raise":
        flags = dtype._overflow_flags(a, b, result, carry, subtract=what == "sub")
        _kernels.raise_on_flags(a._ctx, flags, overflow_error(what, dtype, a._n))
    return a._like(result)


def multiply(a: Any, b: Any, overflow: str = "wrap") -> Array:
    """``a * b`` modulo ``2**bits`` (an array times itself is squared); with
    ``overflow="raise"``, an OverflowError naming the first product that does not fit.

    A scalar below ``2**64`` multiplies through ``mul_limb``: one pass over
    the array, no batch of copies of the scalar.

    >>> import futbig as fb
    >>> a = fb.array([3, 2**40], bits=64)
    >>> fb.mul(a, a).to_ints()
    [9, 0]
    >>> fb.mul(a, 2**24, overflow="raise")
    Traceback (most recent call last):
    ...
    OverflowError: mul overflowed uint(64) at index 1 (1 of 2 instances overflowed)
    """
    check_overflow_mode(overflow)
    for arr, other in ((a, b), (b, a)):
        if isinstance(arr, Array) and (overflow == "wrap" or not arr.dtype.signed) \
                and (k := limb_scalar(arr, other)) is not None:
            low, high = _kernels.mul_limb(arr._ctx, arr.bits, arr._data, k)
            if overflow == "raise":
                _kernels.raise_on_flags(arr._ctx, _kernels.nonzero(arr._ctx, high),
                                        overflow_error("mul", arr.dtype, arr._n))
            return arr._like(low)
    same = a is b
    a, b, dtype = align(a, b, "*")
    ctx = a._ctx
    if overflow == "raise":
        product, wide, _ = dtype._mul_full(a, b, same)
        _kernels.raise_on_flags(ctx, dtype._outside(ctx, product, wide.bits), overflow_error("mul", dtype, a._n))
        return a._like(_kernels.resize(ctx, product, a._m, dtype.bits))
    if same:
        return a._like(_kernels.sqr_lo(ctx, dtype.bits, a._data))
    return a._like(_kernels.mul_lo(ctx, dtype.bits, a._data, b._data))


mul = multiply


def square(a: Array) -> Array:
    """``a * a`` modulo ``2**bits``.

    >>> import futbig as fb
    >>> fb.square(fb.array([12, 2**33], bits=64)).to_ints()
    [144, 0]
    """
    return multiply(a, a)


def mul_full(a: Any, b: Any) -> Array:
    """The exact product, of dtype ``uint(2 * bits)`` (``int(2 * bits)`` for signed operands).

    >>> import futbig as fb
    >>> a = fb.array([2**64 - 1], bits=64)
    >>> p = fb.mul_full(a, a)
    >>> p.dtype, p.to_ints() == [(2**64 - 1) ** 2]
    (uint(128), True)
    >>> fb.mul_full(fb.array([-2**63], fb.int(64)), 2**63 - 1).to_ints() == [-2**63 * (2**63 - 1)]
    True
    """
    same = a is b
    a, b, dtype = align(a, b, "mul_full")
    product, wide, m = dtype._mul_full(a, b, same)
    return a._like(product, wide, m)


def divmod(a: Any, b: Any) -> tuple[Array, Array]:
    """``(a // b, a % b)``, exact; ZeroDivisionError names the first zero divisor.

    A scalar divisor below ``2**64`` divides through ``div_limb`` (no batch
    of copies of the divisor). Reachable as ``futbig.divmod``, but not
    exported by ``from futbig import *`` (it would shadow the builtin, which
    works on futbig arrays too).

    >>> import futbig as fb
    >>> q, r = fb.divmod(fb.array([100, 2**100], bits=128), fb.array([7, 2**64 + 1], bits=128))
    >>> q.to_ints() == [14, 2**100 // (2**64 + 1)], r.to_ints() == [2, 2**100 % (2**64 + 1)]
    (True, True)
    >>> fb.divmod(fb.array([1, 2], bits=64), fb.array([1, 0], bits=64))
    Traceback (most recent call last):
    ...
    ZeroDivisionError: division by zero: divisor 1 is 0 (1 of 2 divisors are zero)
    """
    scalar_divisor = operand_kind(b) == "scalar"
    if scalar_divisor and operator.index(b) == 0:
        raise ZeroDivisionError("division by zero: the divisor is the scalar 0")
    if isinstance(a, Array) and (k := limb_scalar(a, b)) is not None:
        q, r = a.dtype._divmod_limb(a, k)
        return a._like(q), a._like(r)
    a, b, _ = align(a, b, "divmod")
    q, r = a.dtype._divmod(a, b, check_zero=not scalar_divisor)
    return a._like(q), a._like(r)


def floor_divide(a: Any, b: Any) -> Array:
    """``a // b``, exact.

    >>> import futbig as fb
    >>> fb.floor_divide(fb.array([10**30], bits=128), 10**15).to_ints()
    [1000000000000000]
    """
    return divmod(a, b)[0]


def remainder(a: Any, b: Any) -> Array:
    """``a % b``, exact.

    >>> import futbig as fb
    >>> fb.remainder(fb.array([10**30 + 5], bits=128), 10**15).to_ints()
    [5]
    """
    return divmod(a, b)[1]


def negative(a: Array) -> Array:
    """``-a`` modulo ``2**bits``.

    >>> import futbig as fb
    >>> fb.negative(fb.array([0, 1], bits=8)).to_ints()
    [0, 255]
    """
    return a._like(_kernels.neg(a._ctx, a.bits, a._data))


def power(a: Array, exponent: Any) -> Array:
    """``a ** exponent`` modulo ``2**bits`` for an int exponent >= 0 (square and multiply on the device).

    >>> import futbig as fb
    >>> fb.power(fb.array([3, 2], bits=64), 5).to_ints()
    [243, 32]
    """
    if operand_kind(exponent) != "scalar":
        raise TypeError(f"the exponent must be an int, not {type(exponent).__name__}")
    e = operator.index(exponent)
    if e < 0:
        raise ValueError(f"negative exponent {e}: big integers have no inverses")
    result = None
    base = a
    while e:
        if e & 1:
            result = base if result is None else multiply(result, base)
        e >>= 1
        if e:
            base = square(base)
    return result if result is not None else scalar(1, a.dtype, len(a), a._ctx)
