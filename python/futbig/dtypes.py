"""The dtypes: fixed-width big-integer types, and the hooks that give their bits a meaning.

>>> import futbig as fb
>>> t = fb.uint(100)
>>> t, t.limbs, t.storage_limbs, t.max == 2**100 - 1
(uint(100), 2, 4, True)

Everything that depends on the meaning of the bits lives on the dtype
(:class:`BigIntType`): checking and encoding Python ints
(:meth:`BigIntType.encode`), decoding rows, the common type of two dtypes,
extending to a wider width, comparing, dividing (also by a one-limb scalar),
shifting right, detecting overflow, full products, absolute values and
signs, and the limbs and bytes handed out. :class:`~futbig.Array` and the
operation families (``arithmetic``, ``bitwise``, ``comparison``,
``number``) only move rows, check lengths and backends, and call those
hooks. :class:`uint` here is unsigned; the signed ``int(bits)`` (two's
complement, :mod:`futbig.signed`) overrides the same hooks (``+ - * << & |
^ ~`` and negation are the same bit operations for both).

Mixing ``uint`` and ``int`` follows numpy: the common type is the smallest
signed type that holds both, ``int(max(u + 1, s))`` for ``uint(u)`` and
``int(s)``, so results and comparisons are exact.
"""
from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Sequence

import numpy as np

from . import _backend, _kernels, _twos
from ._convert import (
    bytes_to_limbs,
    ints_to_limbs,
    limb_array_to_limbs,
    limbs_to_ints,
    storage_limbs,
)

if TYPE_CHECKING:
    from .ndarray import Array

__all__ = ["BigIntType", "as_dtype", "uint"]

Device = Any  # an opaque array owned by the backend context


class BigIntType:
    """A fixed-width big-integer dtype: ``bits`` bits in u64 limbs.

    Subclasses give the bits a meaning (:class:`uint`: unsigned). Instances
    are compared and hashed by kind and width.
    """

    kind: ClassVar[str]  # numpy-style kind character: "u" (unsigned), "i" (signed)
    signed: ClassVar[bool]

    def __init__(self, bits: int) -> None:
        if isinstance(bits, bool) or not isinstance(bits, (builtins.int, np.integer)):
            raise TypeError(f"bits must be an int, not {type(bits).__name__}")
        bits = operator.index(bits)
        if bits < 1:
            raise ValueError(f"bits must be >= 1, not {bits}")
        self._bits = bits

    @property
    def bits(self) -> int:
        """The logical width in bits."""
        return self._bits

    @property
    def limbs(self) -> int:
        """The number of u64 limbs a value needs (``ceil(bits / 64)``)."""
        return -(-self._bits // 64)

    @property
    def storage_limbs(self) -> int:
        """The limbs stored per value on the device: :attr:`limbs` rounded up to a multiple of 4."""
        return storage_limbs(self._bits)

    @property
    def min(self) -> int:
        """The smallest value of the type."""
        raise NotImplementedError

    @property
    def max(self) -> int:
        """The largest value of the type."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.bits == self._bits  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._bits))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._bits})"

    # Constructors -------------------------------------------------------

    def from_ints(self, values: Iterable[Any]) -> Array:
        """An array of this dtype from Python ints (or mpz, numpy integers)."""
        limbs = self.encode(values if isinstance(values, (list, tuple)) else list(values))
        return _ndarray.from_host(limbs, self)

    def from_limbs(self, limbs: np.ndarray) -> Array:
        """An array from an ``(n, k)`` uint64 or uint32 array of limbs, least significant first."""
        return _ndarray.from_host(limb_array_to_limbs(np.asarray(limbs), self._bits, self.storage_limbs), self)

    def from_bytes(self, data: Any, byteorder: str = "little") -> Array:
        """An array from ``ceil(bits/8)``-byte records holding the stored bit patterns."""
        return _ndarray.from_host(bytes_to_limbs(data, self._bits, self.storage_limbs, byteorder), self)

    def from_device(self, device_array: Device, n: int | None = None) -> Array:
        """Wrap a ``[n][m]u64`` device array returned by an entry point of the current backend.

        The rows must already hold values of this dtype (zero above ``bits``).

        >>> import futbig as fb
        >>> fb.uint(8).from_device(np.zeros((2, 4), dtype=np.uint64))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        TypeError: from_device needs a [n][m]u64 device array of the current backend '...' (such as Array.device_array), not ndarray; make arrays from host limbs with from_limbs, and use another backend's arrays after set_backend to it
        """
        ctx = _backend.context()
        if not ctx.holds(device_array):
            got = type(device_array).__name__
            if type(device_array).__module__ == "_cffi_backend":
                got = "an array of another backend (or not a u64 array)"
            raise TypeError(
                f"from_device needs a [n][m]u64 device array of the current backend {ctx.name!r} "
                f"(such as Array.device_array), not {got}; make arrays from host limbs with from_limbs, "
                "and use another backend's arrays after set_backend to it"
            )
        shape = ctx.shape(device_array)
        if len(shape) != 2 or shape[1] % 4 or 64 * shape[1] < self._bits or (n is not None and shape[0] != n):
            raise ValueError(
                f"device array of shape {shape} cannot hold {'' if n is None else f'{n} values of '}{self}: "
                f"need (n, m) with m a multiple of 4 and 64*m >= {self._bits}"
            )
        return _ndarray.wrap(device_array, shape[0], self, shape[1], ctx)

    # Hooks that give the bits their meaning ----------------------------

    def encode(self, values: Sequence[Any]) -> np.ndarray:
        """Check Python ints and pack them as ``(n, storage_limbs)`` uint64 rows."""
        raise NotImplementedError

    def decode(self, limbs: np.ndarray) -> list[int]:
        """The Python ints of host rows of this dtype."""
        raise NotImplementedError

    def result_type(self, other: BigIntType) -> BigIntType:
        """The dtype of an operation on this and ``other``."""
        raise NotImplementedError

    def _extend(self, arr: Array, m: int, bits: int) -> Device:
        """``arr``'s rows (values of this dtype) as ``bits``-bit values in ``m`` limbs
        (``bits >= self.bits`` and ``m`` large enough): zero- or sign-extended."""
        raise NotImplementedError

    def _compare(self, a: Array, b: Array) -> np.ndarray:
        """``[n]`` int8 of -1/0/1 on the host."""
        raise NotImplementedError

    def _divmod(self, a: Array, b: Array, check_zero: bool) -> tuple[Device, Device]:
        """Floor quotient and remainder; with ``check_zero``, a ZeroDivisionError naming the first zero divisor."""
        raise NotImplementedError

    def _divmod_limb(self, a: Array, k: int) -> tuple[Device, Device]:
        """Floor quotient and remainder by a scalar ``0 < k < 2**64`` (a Python int), at ``a``'s storage width."""
        raise NotImplementedError

    def _right_shift(self, a: Array, counts: int | np.ndarray) -> Device:
        raise NotImplementedError

    def _overflow_flags(self, a: Array, b: Array, result: Device, carry: Device, subtract: bool) -> Device:
        """``[n]u8`` flags of the instances where ``a + b`` (or ``a - b``) left the
        type's range, given the wrapped ``result`` and the unsigned ``carry`` (borrow)."""
        raise NotImplementedError

    def _mul_full(self, a: Array, b: Array, same: bool) -> tuple[Device, BigIntType, int]:
        """The exact products (``same``: ``a`` is ``b``) as ``(rows, dtype of 2*bits, limbs)``."""
        raise NotImplementedError

    def _outside(self, ctx: Any, x: Device, width: int) -> Device:
        """``[n]u8`` flags of the rows of ``x`` (values of this kind, ``width`` bits) that this dtype cannot hold."""
        raise NotImplementedError

    def _abs(self, a: Array) -> Device:
        """``|a|`` modulo ``2**bits``."""
        raise NotImplementedError

    def _sign(self, a: Array) -> Device:
        """-1, 0 or 1 per element, in this dtype."""
        raise NotImplementedError

    def _host_rows(self, rows: np.ndarray, width: int) -> np.ndarray:
        """Host rows of this dtype as the ``width``-bit limbs or bytes handed out
        (``to_limbs``, ``tobytes``): unchanged for unsigned, sign-extended for signed."""
        raise NotImplementedError


class uint(BigIntType):
    """The unsigned integers ``0 <= x < 2**bits``, with numpy's wrapping arithmetic.

    >>> t = uint(100)
    >>> t, t.bits, t.limbs, t.max == 2**100 - 1
    (uint(100), 100, 2, True)
    >>> t.from_ints([1, 2]).to_ints()
    [1, 2]
    """

    kind = "u"
    signed = False

    @property
    def min(self) -> int:
        return 0

    @property
    def max(self) -> int:
        return (1 << self._bits) - 1

    def encode(self, values: Sequence[Any]) -> np.ndarray:
        return ints_to_limbs(values, self._bits, self.storage_limbs)

    def decode(self, limbs: np.ndarray) -> list[int]:
        return limbs_to_ints(limbs)

    def result_type(self, other: BigIntType) -> BigIntType:
        if isinstance(other, uint):
            return self if self._bits >= other.bits else other
        if getattr(other, "signed", False):
            return other.result_type(self)
        raise TypeError(f"no common dtype for {self} and {other}")

    def _extend(self, arr: Array, m: int, bits: int) -> Device:
        return _kernels.resize(arr._ctx, arr._data, m, self._bits)

    def _compare(self, a: Array, b: Array) -> np.ndarray:
        return _kernels.cmp(a._ctx, a._data, b._data)

    def _divmod(self, a: Array, b: Array, check_zero: bool) -> tuple[Device, Device]:
        q, r, zero = _kernels.divmod(a._ctx, a._data, b._data)
        if check_zero:
            _kernels.raise_on_flags(a._ctx, zero, lambda i, count: ZeroDivisionError(
                f"division by zero: divisor {i} is 0 ({count} of {a._n} divisors are zero)"))
        return q, r

    def _divmod_limb(self, a: Array, k: int) -> tuple[Device, Device]:
        return _kernels.divmod_limb(a._ctx, a._data, k)

    def _right_shift(self, a: Array, counts: int | np.ndarray) -> Device:
        return _kernels.right_shift(a._ctx, counts, a._data)

    def _overflow_flags(self, a: Array, b: Array, result: Device, carry: Device, subtract: bool) -> Device:
        return carry

    def _mul_full(self, a: Array, b: Array, same: bool) -> tuple[Device, BigIntType, int]:
        ctx = a._ctx
        product = _kernels.sqr_full(ctx, a._data) if same else _kernels.mul_full(ctx, a._data, b._data)
        return product, uint(2 * self._bits), 2 * a._m

    def _outside(self, ctx: Any, x: Device, width: int) -> Device:
        return _kernels.exceeds(ctx, self._bits, x)

    def _abs(self, a: Array) -> Device:
        return a._data

    def _sign(self, a: Array) -> Device:
        return _twos.unsigned_sign(a._ctx, self._bits, a._data)

    def _host_rows(self, rows: np.ndarray, width: int) -> np.ndarray:
        return rows


def as_dtype(dtype: Any) -> BigIntType:
    """``dtype`` if it is a futbig dtype, else a TypeError that says what to pass."""
    if isinstance(dtype, BigIntType):
        return dtype
    raise TypeError(f"dtype must be a futbig dtype such as futbig.uint(4096) or futbig.int(4096), not {dtype!r}")


# The array module imports this one: imported last, used when a constructor runs.
from . import ndarray as _ndarray  # noqa: E402
