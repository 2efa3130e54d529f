"""Operands of the operation families: coercion, broadcasting and promotion.

An operand is a futbig :class:`~futbig.Array`, a scalar (anything with
``__index__``: int, bool, numpy integers, gmpy2 ``mpz``), or a sequence
(list, tuple, numpy array) converted with the other operand's dtype. Scalars
and sequences take the dtype of the array they meet and must fit in it
(negative ones only for signed arrays); arrays of length 1 broadcast;
mixing widths or ``uint`` and ``int`` gives the common dtype
(:meth:`~futbig.dtypes.BigIntType.result_type`).
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from . import _kernels
from .creation import array, scalar, scalar_row
from .dtypes import BigIntType
from .ndarray import Array, check_same_context, wrap

__all__ = ["align", "binary", "check_overflow_mode", "limb_scalar", "operand", "operand_kind", "overflow_error"]

OVERFLOW_MODES = ("wrap", "raise")


def operand_kind(x: Any) -> str | None:
    """"array", "scalar" (an int-like), "sequence", or None for what is no operand."""
    if isinstance(x, Array):
        return "array"
    if isinstance(x, (list, tuple, np.ndarray)):
        return "sequence"
    if hasattr(x, "__index__"):  # int, bool, numpy integers, gmpy2 mpz
        return "scalar"
    return None


def operand(x: Any, like: Array, what: str) -> Array:
    """``x`` as an Array on ``like``'s backend: scalars take ``like``'s dtype and length."""
    kind = operand_kind(x)
    if kind == "array":
        check_same_context(like, x)
        return x
    if kind == "scalar":
        return scalar(x, like.dtype, like._n, like._ctx)
    if kind == "sequence":
        return array(x, like.dtype)
    raise TypeError(f"unsupported operand type for {what}: a futbig array and {type(x).__name__!r}")


def align(a: Any, b: Any, what: str) -> tuple[Array, Array, BigIntType]:
    """Both operands as arrays of one length and one storage width, and their common dtype."""
    if isinstance(a, Array):
        b = operand(b, a, what)
    elif isinstance(b, Array):
        a = operand(a, b, what)
    else:
        raise TypeError(f"{what} needs at least one futbig array, got {type(a).__name__!r} and {type(b).__name__!r}")
    check_same_context(a, b)
    if a._n != b._n:
        if a._n == 1:
            a = _broadcast(a, b._n)
        elif b._n == 1:
            b = _broadcast(b, a._n)
        else:
            raise ValueError(f"operands could not be broadcast together with shapes {a.shape} {b.shape}")
    dtype = a.dtype.result_type(b.dtype)
    m = max(a._m, b._m, dtype.storage_limbs)
    if a._m != m or a.dtype != dtype:
        a = a._like(a.dtype._extend(a, m, dtype.bits), dtype, m)
    if b._m != m or b.dtype != dtype:
        b = b._like(b.dtype._extend(b, m, dtype.bits), dtype, m)
    return a, b, dtype


def limb_scalar(arr: Array, x: Any) -> int | None:
    """``x`` as a Python int when it is a scalar operand of ``arr`` below ``2**64``
    (one limb, for the ``mul_limb``/``div_limb`` fast paths), else None.

    The scalar must fit ``arr``'s dtype, as for every scalar operand (the
    same errors as :func:`operand`).
    """
    if operand_kind(x) != "scalar":
        return None
    scalar_row(x, arr.dtype)  # checks that it fits, naming the scalar otherwise
    k = operator.index(x)
    return k if 0 <= k < 1 << 64 else None


def binary(a: Any, b: Any, op: Callable[[Any, Any], Any]) -> Any:
    """Run a binary functional op for an operator, returning NotImplemented for foreign operands."""
    if operand_kind(a) is None or operand_kind(b) is None:
        return NotImplemented
    return op(a, b)


def check_overflow_mode(overflow: str) -> None:
    if overflow not in OVERFLOW_MODES:
        raise ValueError(f"overflow must be 'wrap' or 'raise', not {overflow!r}")


def overflow_error(what: str, dtype: BigIntType, n: int) -> Callable[[int, int], Exception]:
    return lambda i, count: OverflowError(
        f"{what} overflowed {dtype} at index {i} ({count} of {n} instances overflowed)")


def _broadcast(x: Array, n: int) -> Array:
    """A length-1 array repeated ``n`` times, on the device."""
    return wrap(_kernels.broadcast(x._ctx, x._data, n), n, x.dtype, x._m, x._ctx)
