"""The signed dtype ``int(bits)``: two's complement with numpy's wrapping and Python's floor division.

>>> import futbig as fb
>>> a = fb.array([-7, 7, -2**99], fb.int(100))
>>> (a // 2).to_ints() == [-4, 3, -2**98], (a % 3).to_ints(), (a >> 1).to_ints()[:2]
(True, [2, 1, 1], [-4, 3])
>>> (a < 0).tolist(), abs(a)[0], fb.int(100).min == -2**99
([True, False, True], 7, True)

Values lie in ``-2**(bits-1) <= x < 2**(bits-1)`` for any ``bits >= 2`` and are
stored as their two's complement modulo ``2**bits``, in the same rows as
unsigned values (docs/architecture.md), so ``+ - * << & | ^ ~`` and unary
``-`` are the unsigned kernels and wrap like numpy's fixed-width ints
(``min // -1`` and ``abs(min)`` wrap to ``min``). What differs (comparison,
``//`` and ``%`` rounding toward minus infinity like Python, arithmetic
``>>``, sign extension, exact products, overflow checks) is composed from
the unsigned entry points in :mod:`futbig._twos`.

Limb arrays and byte records hold the two's complement of their own width:
``to_limbs()`` sign-extends to whole limbs (so an ``int(64)`` array's limbs
viewed as numpy int64 are its values), ``tobytes()`` gives
``int.to_bytes(ceil(bits/8), byteorder, signed=True)`` per element, and
``from_limbs``/``from_bytes`` read them back the same way.
"""
from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from . import _kernels, _twos
from ._convert import (
    bytes_to_limbs,
    limb_array_to_limbs,
    limbs_to_signed_ints,
    sign_extend_rows,
    signed_ints_to_limbs,
    signed_rows,
    storage_limbs,
)
from .dtypes import BigIntType, uint

if TYPE_CHECKING:
    from .ndarray import Array

__all__ = ["int"]

Device = Any  # an opaque array owned by the backend context


class int(BigIntType):  # noqa: A001  (fb.int, like numpy's np.int64 beside Python's int)
    """The signed integers ``-2**(bits-1) <= x < 2**(bits-1)`` in two's complement, ``bits >= 2``.

    >>> t = int(8)
    >>> t, t.min, t.max, t.limbs
    (int(8), -128, 127, 1)
    >>> t.from_ints([-128, 5]).to_ints()
    [-128, 5]
    >>> int(8).from_ints([200])
    Traceback (most recent call last):
    ...
    OverflowError: element 0 (200) does not fit in int(8), which holds -2**7 <= x < 2**7; use a wider dtype
    """

    kind = "i"
    signed = True

    def __init__(self, bits: builtins.int) -> None:
        super().__init__(bits)
        if self._bits < 2:
            raise ValueError(f"a signed int needs bits >= 2 (a sign bit and a value bit), not {self._bits}")

    @property
    def min(self) -> builtins.int:
        return -(1 << (self._bits - 1))

    @property
    def max(self) -> builtins.int:
        return (1 << (self._bits - 1)) - 1

    # Host conversions -------------------------------------------------------

    def encode(self, values: Sequence[Any]) -> np.ndarray:
        return signed_ints_to_limbs(values, self._bits, self.storage_limbs)

    def decode(self, limbs: np.ndarray) -> list[builtins.int]:
        return limbs_to_signed_ints(limbs, self._bits)

    def from_limbs(self, limbs: np.ndarray) -> Array:
        """An array from an ``(n, k)`` uint64 or uint32 array holding each value's two's
        complement in ``k`` limbs (the top bit is the sign; fewer limbs than the
        dtype's are sign-extended, more must hold a value that fits).

        >>> import futbig as fb
        >>> fb.int(128).from_limbs(np.array([[2**64 - 1], [5]], dtype=np.uint64)).to_ints()
        [-1, 5]
        """
        array = np.asarray(limbs)
        if array.ndim != 2:
            raise ValueError(f"a limb array must be 2-d (n, limbs); got shape {array.shape}")
        width = array.shape[1] * 8 * array.dtype.itemsize
        rows = limb_array_to_limbs(array, max(width, 1), storage_limbs(max(width, 1)))
        return _ndarray.from_host(signed_rows(rows, width, self._bits, self.storage_limbs), self)

    def from_bytes(self, data: Any, byteorder: str = "little") -> Array:
        """An array from ``ceil(bits/8)``-byte records of two's complement values
        (what ``int.to_bytes(ceil(bits/8), byteorder, signed=True)`` writes).

        >>> import futbig as fb
        >>> fb.int(12).from_bytes(b"\\xff\\xff\\x07\\xff", "big").to_ints()
        [-1, 2047]
        """
        record = -(-self._bits // 8)
        size = memoryview(data).nbytes
        if size % record:
            raise ValueError(
                f"{size} bytes is not a whole number of {record}-byte records ({self} takes {record} bytes each)")
        width = 8 * record
        rows = bytes_to_limbs(data, width, storage_limbs(width), byteorder)
        return _ndarray.from_host(signed_rows(rows, width, self._bits, self.storage_limbs), self)

    def _host_rows(self, rows: np.ndarray, width: builtins.int) -> np.ndarray:
        if width <= self._bits:
            return rows
        out = np.zeros((rows.shape[0], max(rows.shape[1], -(-width // 64))), dtype=np.uint64)
        out[:, : rows.shape[1]] = rows
        return sign_extend_rows(out, self._bits, width)

    # The meaning of the bits -------------------------------------------------

    def result_type(self, other: BigIntType) -> BigIntType:
        if isinstance(other, int):
            return self if self._bits >= other.bits else other
        if isinstance(other, uint):
            return int(max(self._bits, other.bits + 1))
        raise TypeError(f"no common dtype for {self} and {other}")

    def _extend(self, arr: Array, m: builtins.int, bits: builtins.int) -> Device:
        return _twos.sign_extend(arr._ctx, arr._data, self._bits, bits, m)

    def _compare(self, a: Array, b: Array) -> np.ndarray:
        return _twos.compare(a._ctx, self._bits, a._data, b._data)

    def _divmod(self, a: Array, b: Array, check_zero: bool) -> tuple[Device, Device]:
        q, r, zero = _twos.floor_divmod(a._ctx, self._bits, a._data, b._data)
        if check_zero:
            _kernels.raise_on_flags(a._ctx, zero, lambda i, count: ZeroDivisionError(
                f"division by zero: divisor {i} is 0 ({count} of {a._n} divisors are zero)"))
        return q, r

    def _divmod_limb(self, a: Array, k: builtins.int) -> tuple[Device, Device]:
        return _twos.floor_divmod_limb(a._ctx, self._bits, a._data, k)

    def _right_shift(self, a: Array, counts: builtins.int | np.ndarray) -> Device:
        return _twos.shift_right(a._ctx, self._bits, counts, a._data)

    def _overflow_flags(self, a: Array, b: Array, result: Device, carry: Device, subtract: bool) -> Device:
        overflows = _twos.sub_overflows if subtract else _twos.add_overflows
        return overflows(a._ctx, self._bits, a._data, b._data, result)

    def _mul_full(self, a: Array, b: Array, same: bool) -> tuple[Device, BigIntType, builtins.int]:
        return _twos.mul_full(a._ctx, self._bits, a._data, b._data, same), int(2 * self._bits), 2 * a._m

    def _outside(self, ctx: Any, x: Device, width: builtins.int) -> Device:
        return _twos.outside(ctx, x, width, self._bits)

    def _abs(self, a: Array) -> Device:
        return _twos.negate_where(a._ctx, self._bits, a._data, _twos.sign_mask(a._ctx, self._bits, a._data))

    def _sign(self, a: Array) -> Device:
        return _twos.sign(a._ctx, self._bits, a._data)


# The array module imports the dtypes: imported last, used when a constructor runs.
from . import ndarray as _ndarray  # noqa: E402
