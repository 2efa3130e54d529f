"""The device-resident array of fixed-width big integers, and its dtype.

An :class:`Array` holds ``n`` integers of one :class:`uint` dtype as an
``[n][m]u64`` array on the backend's device (GPU memory under ``cuda``). Every
operation runs there and returns a new array; nothing comes back to the host
until asked (:meth:`Array.to_ints`, :meth:`Array.to_limbs`, indexing with an
int, comparisons, and the small ``[n]u8`` flag vectors that division and
``overflow="raise"`` check). Arrays are immutable.

>>> import futbig as fb
>>> a = fb.array([3**40, 5**20, 7], bits=128)
>>> b = fb.array([2**64, 3, 0], bits=128)
>>> ((a * b + a) // (b | 1)).to_ints() == [(x * y + x) // (y | 1) for x, y in zip(a.to_ints(), b.to_ints())]
True
>>> a.dtype, len(a), a[2]
(uint(128), 3, 7)

How a signed type slots in: everything that depends on the meaning of the
bits lives on the dtype (:class:`BigIntType`): checking and encoding Python
ints (:meth:`BigIntType.encode`), decoding rows, the common type of two
dtypes, extending to a wider storage, comparing, dividing and shifting right.
:class:`Array` only moves rows, checks lengths and backends, and calls those
hooks. ``int(bits)`` (two's complement) subclasses :class:`BigIntType` and
overrides just those hooks (``+ - * << & | ^ ~`` and ``neg`` are the same bit
operations for both), so adding it rewrites nothing here.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Callable, ClassVar, Iterable, Iterator, Sequence

import numpy as np

from . import _backend
from ._convert import (
    bytes_to_limbs,
    ints_to_limbs,
    limb_array_to_limbs,
    limbs_to_bytes,
    limbs_to_ints,
    storage_limbs,
)

__all__ = [
    "Array",
    "BigIntType",
    "add",
    "array",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "compare",
    "concatenate",
    "divmod",
    "equal",
    "floor_divide",
    "frombytes",
    "full",
    "greater",
    "greater_equal",
    "invert",
    "left_shift",
    "less",
    "less_equal",
    "mul",
    "mul_full",
    "multiply",
    "negative",
    "not_equal",
    "power",
    "remainder",
    "right_shift",
    "square",
    "sub",
    "subtract",
    "uint",
    "zeros",
]

Device = Any  # an opaque array owned by the backend context

_OVERFLOW_MODES = ("wrap", "raise")


# --------------------------------------------------------------------------
# dtypes


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
        return _from_host(limbs, self)

    def from_limbs(self, limbs: np.ndarray) -> Array:
        """An array from an ``(n, k)`` uint64 or uint32 array of limbs, least significant first."""
        return _from_host(limb_array_to_limbs(np.asarray(limbs), self._bits, self.storage_limbs), self)

    def from_bytes(self, data: Any, byteorder: str = "little") -> Array:
        """An array from ``ceil(bits/8)``-byte records holding the stored bit patterns."""
        return _from_host(bytes_to_limbs(data, self._bits, self.storage_limbs, byteorder), self)

    def from_device(self, device_array: Device, n: int | None = None) -> Array:
        """Wrap a ``[n][m]u64`` device array returned by an entry point of the current backend.

        The rows must already hold values of this dtype (zero above ``bits``).
        """
        ctx = _backend.context()
        shape = ctx.shape(device_array)
        if len(shape) != 2 or shape[1] % 4 or 64 * shape[1] < self._bits or (n is not None and shape[0] != n):
            raise ValueError(
                f"device array of shape {shape} cannot hold {'' if n is None else f'{n} values of '}{self}: "
                f"need (n, m) with m a multiple of 4 and 64*m >= {self._bits}"
            )
        return Array._wrap(device_array, shape[0], self, shape[1], ctx)

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

    def _extend(self, arr: Array, m: int) -> Device:
        """``arr``'s rows stored in ``m`` limbs (``m`` large enough)."""
        raise NotImplementedError

    def _compare(self, a: Array, b: Array) -> np.ndarray:
        """``[n]`` int8 of -1/0/1 on the host."""
        raise NotImplementedError

    def _divmod(self, a: Array, b: Array, check_zero: bool) -> tuple[Device, Device]:
        """Floor quotient and remainder; with ``check_zero``, a ZeroDivisionError naming the first zero divisor."""
        raise NotImplementedError

    def _right_shift(self, a: Array, counts: int | np.ndarray) -> Device:
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
        if not isinstance(other, uint):
            raise TypeError(f"no common dtype for {self} and {other}")
        return self if self._bits >= other.bits else other

    def _extend(self, arr: Array, m: int) -> Device:
        return _resize(arr._ctx, arr._data, m, self._bits)

    def _compare(self, a: Array, b: Array) -> np.ndarray:
        return a._ctx.to_host(a._ctx.call("cmp", a._data, b._data))

    def _divmod(self, a: Array, b: Array, check_zero: bool) -> tuple[Device, Device]:
        q, r, zero = a._ctx.call("divmod", a._ctx.cpu, 0, a._data, b._data)
        if check_zero:
            _raise_on_flags(a._ctx, zero, lambda i, count: ZeroDivisionError(
                f"division by zero: divisor {i} is 0 ({count} of {a._n} divisors are zero)"))
        return q, r

    def _right_shift(self, a: Array, counts: int | np.ndarray) -> Device:
        if isinstance(counts, builtins.int):
            return a._ctx.call("shr", counts, a._data)
        return a._ctx.call("shr_each", counts, a._data)


# --------------------------------------------------------------------------
# Row movement on the device


def _gather(ctx: Any, data: Device, idx: np.ndarray) -> Device:
    """Rows ``idx`` (in bounds) of a device array, in order; repeats broadcast a row."""
    return ctx.call("gather", data, np.ascontiguousarray(idx, dtype=np.int64))


def _concat(ctx: Any, first: Device, second: Device) -> Device:
    """The rows of ``first`` followed by those of ``second`` (same storage width)."""
    return ctx.call("concat", first, second)


def _resize(ctx: Any, data: Device, m: int, bits: int) -> Device:
    """Rows zero-extended or truncated to ``m`` limbs and reduced modulo ``2**bits``."""
    return ctx.call("resize", bits, m, data)


def _broadcast(x: Array, n: int) -> Array:
    """A length-1 array repeated ``n`` times, on the device."""
    return Array._wrap(_gather(x._ctx, x._data, np.zeros(n, dtype=np.int64)), n, x._dtype, x._m, x._ctx)


def _raise_on_flags(ctx: Any, flags: Device, error: Callable[[int, int], Exception]) -> None:
    """Raise ``error(first, count)`` if any flag of an ``[n]u8`` vector is set.

    The flags are summarised on the device: two scalars come back, not the
    vector (copying 2^24 flags from the GPU took 2.4 ms).
    """
    first, count = ctx.call("flag_summary", flags)
    if count:
        raise error(int(first), int(count))


def _from_host(limbs: np.ndarray, dtype: BigIntType) -> Array:
    ctx = _backend.context()
    return Array._wrap(ctx.to_device(limbs), limbs.shape[0], dtype, limbs.shape[1], ctx)


# --------------------------------------------------------------------------
# The array


class Array:
    """A 1-d array of fixed-width big integers on the backend's device.

    Make one with :func:`array`; operators follow numpy: ``+ - * << & | ^ ~``
    and unary ``-`` wrap modulo ``2**bits``, ``// % divmod`` are exact,
    comparisons return numpy bool arrays. Python ints broadcast; an array of
    length 1 broadcasts against any length; mixing widths gives the wider
    dtype.

    >>> import futbig as fb
    >>> a = fb.array([1, 2, 2**64 - 1], fb.uint(64))
    >>> (a + 1).to_ints(), (a - 2).to_ints()[0] == 2**64 - 1, (a << 1)[2] == 2**65 - 2 - 2**64
    ([2, 3, 0], True, True)
    >>> a < 2
    array([ True, False, False])
    """

    __slots__ = ("_data", "_n", "_dtype", "_m", "_ctx")
    # Let numpy hand mixed expressions (np.uint64(3) + a) to our reflected operators.
    __array_ufunc__ = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("make a futbig array with futbig.array(values, dtype) or dtype.from_ints(values)")

    @classmethod
    def _wrap(cls, data: Device, n: int, dtype: BigIntType, m: int, ctx: Any) -> Array:
        self = object.__new__(cls)
        self._data, self._n, self._dtype, self._m, self._ctx = data, n, dtype, m, ctx
        return self

    def _like(self, data: Device, dtype: BigIntType | None = None, m: int | None = None) -> Array:
        return Array._wrap(data, self._n, dtype or self._dtype, m or self._m, self._ctx)

    # Attributes ---------------------------------------------------------

    @property
    def dtype(self) -> BigIntType:
        """The element type, e.g. ``uint(4096)``."""
        return self._dtype

    @property
    def bits(self) -> int:
        """The element width in bits (``dtype.bits``)."""
        return self._dtype.bits

    @property
    def shape(self) -> tuple[int]:
        """``(len(self),)``."""
        return (self._n,)

    @property
    def size(self) -> int:
        """The number of elements."""
        return self._n

    @property
    def ndim(self) -> int:
        """Always 1."""
        return 1

    @property
    def device(self) -> str:
        """The name of the backend holding the data: ``"cuda"``, ``"multicore"`` or ``"c"``."""
        return self._ctx.name

    @property
    def device_array(self) -> Device:
        """The backend's ``[n][m]u64`` array (``m`` a multiple of 4, zero-padded), for calling entry points."""
        return self._data

    def __len__(self) -> int:
        return self._n

    # Back to the host ---------------------------------------------------

    def _host_limbs(self) -> np.ndarray:
        return self._ctx.to_host(self._data)

    def to_ints(self) -> list[int]:
        """The values as a list of Python ints (copies from the device).

        >>> import futbig as fb
        >>> fb.array([5, 2**70], bits=80).to_ints()
        [5, 1180591620717411303424]
        """
        return self._dtype.decode(self._host_limbs())

    tolist = to_ints

    def to_limbs(self, limb_dtype: Any = np.uint64) -> np.ndarray:
        """The stored bits as an ``(n, k)`` array of uint64 (``k = ceil(bits/64)``) or
        uint32 (``k = ceil(bits/32)``) limbs, least significant first; no padding.

        >>> import futbig as fb
        >>> fb.array([2**64 + 3], bits=65).to_limbs()
        array([[3, 1]], dtype=uint64)
        >>> fb.array([2**32 + 3], bits=40).to_limbs(np.uint32)
        array([[3, 1]], dtype=uint32)
        """
        limb_dtype = np.dtype(limb_dtype)
        host = self._host_limbs()
        if limb_dtype == np.uint64:
            return np.ascontiguousarray(host[:, : self._dtype.limbs])
        if limb_dtype == np.uint32:
            return np.ascontiguousarray(host.view("<u4")[:, : -(-self._dtype.bits // 32)])
        raise TypeError(f"to_limbs gives uint64 or uint32 limbs, not {limb_dtype}")

    def tobytes(self, byteorder: str = "little") -> bytes:
        """The stored bits as ``ceil(bits/8)`` bytes per element, concatenated.

        >>> import futbig as fb
        >>> fb.array([1, 258], bits=16).tobytes("big")
        b'\\x00\\x01\\x01\\x02'
        """
        return limbs_to_bytes(self._host_limbs(), self._dtype.bits, byteorder)

    def __iter__(self) -> Iterator[int]:
        return iter(self.to_ints())

    def __repr__(self) -> str:
        shown = 6
        if self._n <= shown:
            items = [_short_int(x) for x in self.to_ints()]
        else:
            idx = np.r_[0:3, self._n - 3 : self._n]
            values = self._dtype.decode(self._ctx.to_host(_gather(self._ctx, self._data, idx)))
            items = [_short_int(x) for x in values[:3]] + ["..."] + [_short_int(x) for x in values[3:]]
        return f"array([{', '.join(items)}], dtype={self._dtype}, device={self.device!r})"

    def __bool__(self) -> bool:
        raise ValueError("the truth value of a futbig array is ambiguous; compare it and use .any() or .all() on the result")

    __hash__ = None  # type: ignore[assignment]  # == is elementwise

    # Indexing and reshaping ---------------------------------------------

    def __getitem__(self, key: Any) -> Any:
        """An int gives a Python int; a slice, a bool mask or an int array gives an array.

        >>> import futbig as fb
        >>> a = fb.array([10, 11, 12, 13], bits=64)
        >>> a[-1], a[1:3].to_ints(), a[np.array([True, False, True, False])].to_ints(), a[[3, 0]].to_ints()
        (13, [11, 12], [10, 12], [13, 10])
        """
        if isinstance(key, (builtins.int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            i = operator.index(key)
            if not -self._n <= i < self._n:
                raise IndexError(f"index {i} is out of bounds for a futbig array of length {self._n}")
            i %= self._n
            return self._dtype.decode(self._ctx.to_host(_gather(self._ctx, self._data, np.array([i]))))[0]
        if isinstance(key, slice):
            idx = np.arange(self._n)[key]
        else:
            idx = self._index_array(key)
        if len(idx) == self._n and _is_identity(idx):
            return self
        return Array._wrap(_gather(self._ctx, self._data, idx), len(idx), self._dtype, self._m, self._ctx)

    def _index_array(self, key: Any) -> np.ndarray:
        key = np.asarray(key)
        if key.ndim != 1:
            raise IndexError(f"futbig arrays are 1-d: index with an int, a slice or a 1-d array, not shape {key.shape}")
        if key.dtype == bool:
            if key.shape[0] != self._n:
                raise IndexError(f"boolean index of length {key.shape[0]} does not match the array's length {self._n}")
            return np.flatnonzero(key)
        if key.size == 0:
            return np.zeros(0, dtype=np.int64)
        if key.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean type, not {key.dtype}")
        idx = key.astype(np.int64)
        bad = (idx < -self._n) | (idx >= self._n)
        if bad.any():
            raise IndexError(f"index {int(key[np.argmax(bad)])} is out of bounds for a futbig array of length {self._n}")
        return np.where(idx < 0, idx + self._n, idx)

    def astype(self, dtype: BigIntType) -> Array:
        """The values in another width, reduced modulo ``2**dtype.bits`` when narrower (like numpy).

        >>> import futbig as fb
        >>> fb.array([2**64 + 5], bits=128).astype(fb.uint(64)).to_ints()
        [5]
        """
        dtype = _as_dtype(dtype)
        if dtype == self._dtype:
            return self
        if dtype.bits > self._dtype.bits:
            return self._like(self._dtype._extend(self, max(dtype.storage_limbs, self._m)), dtype,
                              max(dtype.storage_limbs, self._m))
        m = dtype.storage_limbs
        return self._like(_resize(self._ctx, self._data, m, dtype.bits), dtype, m)

    # Operators ----------------------------------------------------------

    def __add__(self, other: Any) -> Array:
        return _binary(self, other, add)

    def __radd__(self, other: Any) -> Array:
        return _binary(other, self, add)

    def __sub__(self, other: Any) -> Array:
        return _binary(self, other, subtract)

    def __rsub__(self, other: Any) -> Array:
        return _binary(other, self, subtract)

    def __mul__(self, other: Any) -> Array:
        return _binary(self, other, multiply)

    def __rmul__(self, other: Any) -> Array:
        return _binary(other, self, multiply)

    def __floordiv__(self, other: Any) -> Array:
        return _binary(self, other, floor_divide)

    def __rfloordiv__(self, other: Any) -> Array:
        return _binary(other, self, floor_divide)

    def __mod__(self, other: Any) -> Array:
        return _binary(self, other, remainder)

    def __rmod__(self, other: Any) -> Array:
        return _binary(other, self, remainder)

    def __divmod__(self, other: Any) -> tuple[Array, Array]:
        return _binary(self, other, divmod)

    def __rdivmod__(self, other: Any) -> tuple[Array, Array]:
        return _binary(other, self, divmod)

    def __and__(self, other: Any) -> Array:
        return _binary(self, other, bitwise_and)

    def __rand__(self, other: Any) -> Array:
        return _binary(other, self, bitwise_and)

    def __or__(self, other: Any) -> Array:
        return _binary(self, other, bitwise_or)

    def __ror__(self, other: Any) -> Array:
        return _binary(other, self, bitwise_or)

    def __xor__(self, other: Any) -> Array:
        return _binary(self, other, bitwise_xor)

    def __rxor__(self, other: Any) -> Array:
        return _binary(other, self, bitwise_xor)

    def __lshift__(self, counts: Any) -> Array:
        return left_shift(self, counts)

    def __rshift__(self, counts: Any) -> Array:
        return right_shift(self, counts)

    def __pow__(self, exponent: Any, modulo: None = None) -> Array:
        if modulo is not None:
            return NotImplemented
        return power(self, exponent)

    def __invert__(self) -> Array:
        return bitwise_not(self)

    def __neg__(self) -> Array:
        return negative(self)

    def __pos__(self) -> Array:
        return self

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return _binary(self, other, equal)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return _binary(self, other, not_equal)

    def __lt__(self, other: Any) -> Any:
        return _binary(self, other, less)

    def __le__(self, other: Any) -> Any:
        return _binary(self, other, less_equal)

    def __gt__(self, other: Any) -> Any:
        return _binary(self, other, greater)

    def __ge__(self, other: Any) -> Any:
        return _binary(self, other, greater_equal)


def _short_int(x: int) -> str:
    text = str(x)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


def _is_identity(idx: np.ndarray) -> bool:
    return bool(np.array_equal(idx, np.arange(len(idx))))


# --------------------------------------------------------------------------
# Construction


def _as_dtype(dtype: Any) -> BigIntType:
    if isinstance(dtype, BigIntType):
        return dtype
    raise TypeError(f"dtype must be a futbig dtype such as futbig.uint(4096), not {dtype!r}")


def _resolve_dtype(dtype: Any, bits: int | None) -> BigIntType | None:
    if dtype is not None and bits is not None:
        raise TypeError("give either dtype or bits, not both")
    if bits is not None:
        return uint(bits)
    return None if dtype is None else _as_dtype(dtype)


def array(data: Any, dtype: BigIntType | None = None, *, bits: int | None = None) -> Array:
    """Make a device array of big integers.

    ``data`` may be a sequence (or iterable) of Python ints, gmpy2 ``mpz`` or
    numpy integers; a 1-d numpy integer array of values; a 2-d ``(n, k)``
    uint64 or uint32 numpy array of limbs, least significant first (any
    strides); bytes of ``ceil(bits/8)``-byte little-endian records (see
    :func:`frombytes`); or another futbig array (converted with
    :meth:`Array.astype`). Give the type as ``dtype=fb.uint(bits)`` or
    ``bits=``; without either, it is ``uint`` of the limb array's width, or the
    smallest multiple of 64 bits that holds every value.

    >>> import futbig as fb
    >>> fb.array([3**50, 7], bits=100)  # doctest: +ELLIPSIS
    array([717897987691852588770249, 7], dtype=uint(100), device='...')
    >>> fb.array(np.array([[1, 1], [2, 0]], dtype=np.uint64)).to_ints() == [2**64 + 1, 2]
    True
    >>> fb.array([-1], bits=8)
    Traceback (most recent call last):
    ...
    ValueError: element 0 is negative (-1); an unsigned uint(8) holds 0 <= x < 2**8
    """
    dtype = _resolve_dtype(dtype, bits)
    if isinstance(data, Array):
        return data if dtype is None else data.astype(dtype)
    if isinstance(data, (bytes, bytearray, memoryview)):
        if dtype is None:
            raise TypeError("bytes need a dtype (or bits) to know the record size")
        return dtype.from_bytes(data)
    if isinstance(data, np.ndarray):
        return _from_numpy(data, dtype)
    if isinstance(data, (str, builtins.int)) or not isinstance(data, Iterable):
        raise TypeError(
            f"futbig.array needs a sequence of integers, a numpy array or bytes, not {type(data).__name__}; "
            "for one repeated value use futbig.full(n, value, dtype)"
        )
    values = data if isinstance(data, (list, tuple)) else list(data)
    if dtype is None:
        dtype = uint(64 * max(1, -(-_max_bit_length(values) // 64)))
    return dtype.from_ints(values)


def _max_bit_length(values: Sequence[Any]) -> int:
    """The largest bit length among integer ``values`` (errors are raised when encoding)."""
    try:
        return max(map(builtins.int.bit_length, values), default=0)
    except TypeError:  # mpz, numpy integers, or non-integers (rejected by encode)
        lengths = []
        for x in values:
            try:
                lengths.append(operator.index(x).bit_length())
            except TypeError:
                pass
        return max(lengths, default=0)


def _from_numpy(data: np.ndarray, dtype: BigIntType | None) -> Array:
    if data.ndim == 2:
        if dtype is None:
            if data.dtype.kind != "u" or data.dtype.itemsize not in (4, 8):
                raise TypeError(f"limb arrays must be uint64 or uint32, not {data.dtype}")
            dtype = uint(max(1, data.shape[1] * 8 * data.dtype.itemsize))
        return dtype.from_limbs(data)
    if data.ndim != 1:
        raise ValueError(f"futbig arrays are 1-d: pass values (n,) or limbs (n, k), not shape {data.shape}")
    if data.dtype.kind == "O":
        return array(data.tolist(), dtype)
    if data.dtype.kind not in "uib":
        raise TypeError(f"cannot make big integers from a numpy array of {data.dtype}; convert to integers first")
    if data.dtype.kind == "i" and data.size and (data < 0).any():
        i = int(np.argmax(data < 0))
        raise ValueError(f"element {i} is negative ({data[i]}); an unsigned {dtype or 'uint'} holds only x >= 0")
    column = data.astype(np.uint64)[:, None]
    if dtype is None:
        dtype = uint(64)
    return dtype.from_limbs(column)


def frombytes(data: Any, dtype: BigIntType | None = None, byteorder: str = "little", *, bits: int | None = None) -> Array:
    """An array from a buffer of fixed-size records, ``ceil(bits/8)`` bytes each.

    >>> import futbig as fb
    >>> fb.frombytes(b"\\x01\\x02\\x03\\x04", bits=16, byteorder="big").to_ints() == [0x0102, 0x0304]
    True
    """
    resolved = _resolve_dtype(dtype, bits)
    if resolved is None:
        raise TypeError("frombytes needs a dtype (or bits) to know the record size")
    return resolved.from_bytes(data, byteorder)


def full(n: int, value: Any, dtype: BigIntType | None = None, *, bits: int | None = None) -> Array:
    """``n`` copies of one value, made on the device.

    >>> import futbig as fb
    >>> fb.full(3, 2**70, bits=80).to_ints() == [2**70] * 3
    True
    """
    resolved = _resolve_dtype(dtype, bits)
    if resolved is None:
        raise TypeError("full needs a dtype (or bits)")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"the length must be >= 0, not {n}")
    return _scalar(value, resolved, n, _backend.context())


def zeros(n: int, dtype: BigIntType | None = None, *, bits: int | None = None) -> Array:
    """``n`` zeros.

    >>> import futbig as fb
    >>> fb.zeros(2, bits=64).to_ints()
    [0, 0]
    """
    return full(n, 0, dtype, bits=bits)


def _scalar(value: Any, dtype: BigIntType, n: int, ctx: Any) -> Array:
    """A Python int broadcast to ``n`` elements: one row is uploaded, the copies are made on the device."""
    try:
        row = dtype.encode([value])
    except (TypeError, ValueError, OverflowError) as e:
        message = str(e).replace("element 0", f"the scalar {value!r}" if len(repr(value)) < 40 else "the scalar")
        raise type(e)(message) from None
    return _broadcast(Array._wrap(ctx.to_device(row), 1, dtype, row.shape[1], ctx), n)


def concatenate(arrays: Sequence[Any], dtype: BigIntType | None = None) -> Array:
    """Join arrays (or sequences of ints) end to end; the result has the widest dtype.

    >>> import futbig as fb
    >>> c = fb.concatenate([fb.array([1, 2], bits=64), fb.array([2**100], bits=128)])
    >>> c.dtype, c.to_ints() == [1, 2, 2**100]
    (uint(128), True)
    """
    parts = [x if isinstance(x, Array) else array(x, dtype) for x in arrays]
    if not parts:
        raise ValueError("need at least one array to concatenate")
    ctx = parts[0]._ctx
    for p in parts:
        _check_same_context(parts[0], p)
    result = dtype or parts[0].dtype
    for p in parts[1:]:
        result = result.result_type(p.dtype)
    parts = [p.astype(result) for p in parts]
    m = max(p._m for p in parts)
    data = [p._data if p._m == m else result._extend(p, m) for p in parts]
    joined = data[0]
    for d in data[1:]:
        joined = _concat(ctx, joined, d)
    return Array._wrap(joined, sum(len(p) for p in parts), result, m, ctx)


def _check_same_context(a: Array, b: Array) -> None:
    if a._ctx is not b._ctx:
        raise ValueError(
            f"operands live on different backends ({a._ctx.name!r} and {b._ctx.name!r}, or an old context); "
            "copy one over with futbig.array(x.to_ints(), x.dtype) after set_backend"
        )


# --------------------------------------------------------------------------
# Operands: coercion, broadcasting, promotion


def _operand_kind(x: Any) -> str | None:
    """"array", "scalar" (an int-like), "sequence", or None for what is no operand."""
    if isinstance(x, Array):
        return "array"
    if isinstance(x, (list, tuple, np.ndarray)):
        return "sequence"
    if hasattr(x, "__index__"):  # int, bool, numpy integers, gmpy2 mpz
        return "scalar"
    return None


def _operand(x: Any, like: Array, what: str) -> Array:
    """``x`` as an Array on ``like``'s backend: scalars take ``like``'s dtype and length."""
    kind = _operand_kind(x)
    if kind == "array":
        _check_same_context(like, x)
        return x
    if kind == "scalar":
        return _scalar(x, like.dtype, like._n, like._ctx)
    if kind == "sequence":
        return array(x, like.dtype)
    raise TypeError(f"unsupported operand type for {what}: a futbig array and {type(x).__name__!r}")


def _align(a: Any, b: Any, what: str) -> tuple[Array, Array, BigIntType]:
    """Both operands as arrays of one length and one storage width, and their common dtype."""
    if isinstance(a, Array):
        b = _operand(b, a, what)
    elif isinstance(b, Array):
        a = _operand(a, b, what)
    else:
        raise TypeError(f"{what} needs at least one futbig array, got {type(a).__name__!r} and {type(b).__name__!r}")
    _check_same_context(a, b)
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
        a = a._like(a.dtype._extend(a, m), dtype, m)
    if b._m != m or b.dtype != dtype:
        b = b._like(b.dtype._extend(b, m), dtype, m)
    return a, b, dtype


def _binary(a: Any, b: Any, op: Callable[[Any, Any], Any]) -> Any:
    """Run a binary functional op for an operator, returning NotImplemented for foreign operands."""
    if _operand_kind(a) is None or _operand_kind(b) is None:
        return NotImplemented
    return op(a, b)


def _check_overflow_mode(overflow: str) -> None:
    if overflow not in _OVERFLOW_MODES:
        raise ValueError(f"overflow must be 'wrap' or 'raise', not {overflow!r}")


def _overflow_error(what: str, dtype: BigIntType, n: int) -> Callable[[int, int], Exception]:
    return lambda i, count: OverflowError(
        f"{what} overflowed {dtype} at index {i} ({count} of {n} instances overflowed)")


# --------------------------------------------------------------------------
# Functional forms


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
    _check_overflow_mode(overflow)
    a, b, dtype = _align(a, b, "+")
    total, carry = a._ctx.call("add", dtype.bits, a._data, b._data)
    if overflow == "raise":
        _raise_on_flags(a._ctx, carry, _overflow_error("add", dtype, a._n))
    return a._like(total)


def subtract(a: Any, b: Any, overflow: str = "wrap") -> Array:
    """``a - b`` modulo ``2**bits``; with ``overflow="raise"``, an OverflowError
    naming the first instance where ``a < b``.

    >>> import futbig as fb
    >>> fb.sub(fb.array([5, 3], bits=8), 4).to_ints()
    [1, 255]
    """
    _check_overflow_mode(overflow)
    a, b, dtype = _align(a, b, "-")
    diff, borrow = a._ctx.call("sub", dtype.bits, a._data, b._data)
    if overflow == "raise":
        _raise_on_flags(a._ctx, borrow, _overflow_error("sub", dtype, a._n))
    return a._like(diff)


sub = subtract


def multiply(a: Any, b: Any, overflow: str = "wrap") -> Array:
    """``a * b`` modulo ``2**bits`` (an array times itself is squared); with
    ``overflow="raise"``, an OverflowError naming the first product that does not fit.

    >>> import futbig as fb
    >>> a = fb.array([3, 2**40], bits=64)
    >>> fb.mul(a, a).to_ints()
    [9, 0]
    >>> fb.mul(a, 2**24, overflow="raise")
    Traceback (most recent call last):
    ...
    OverflowError: mul overflowed uint(64) at index 1 (1 of 2 instances overflowed)
    """
    _check_overflow_mode(overflow)
    same = a is b
    a, b, dtype = _align(a, b, "*")
    ctx = a._ctx
    if overflow == "raise":
        full_product = ctx.call("sqr_full", a._data) if same else ctx.call("mul_full", a._data, b._data)
        high = ctx.call("shr", dtype.bits, full_product)
        zero = _gather(ctx, ctx.to_device(np.zeros((1, 2 * a._m), dtype=np.uint64)), np.zeros(a._n, dtype=np.int64))
        nonzero = ctx.to_host(ctx.call("cmp", high, zero)) != 0
        if nonzero.any():
            raise _overflow_error("mul", dtype, a._n)(int(np.argmax(nonzero)), int(np.count_nonzero(nonzero)))
        return a._like(_resize(ctx, full_product, a._m, dtype.bits))
    if same:
        return a._like(ctx.call("sqr_lo", dtype.bits, a._data))
    return a._like(ctx.call("mul_lo", dtype.bits, a._data, b._data))


mul = multiply


def square(a: Array) -> Array:
    """``a * a`` modulo ``2**bits``.

    >>> import futbig as fb
    >>> fb.square(fb.array([12, 2**33], bits=64)).to_ints()
    [144, 0]
    """
    return multiply(a, a)


def mul_full(a: Any, b: Any) -> Array:
    """The exact product, of dtype ``uint(2 * bits)``.

    >>> import futbig as fb
    >>> a = fb.array([2**64 - 1], bits=64)
    >>> p = fb.mul_full(a, a)
    >>> p.dtype, p.to_ints() == [(2**64 - 1) ** 2]
    (uint(128), True)
    """
    same = a is b
    a, b, dtype = _align(a, b, "mul_full")
    ctx = a._ctx
    product = ctx.call("sqr_full", a._data) if same else ctx.call("mul_full", a._data, b._data)
    return a._like(product, uint(2 * dtype.bits), 2 * a._m)


def divmod(a: Any, b: Any) -> tuple[Array, Array]:
    """``(a // b, a % b)``, exact; ZeroDivisionError names the first zero divisor.

    >>> import futbig as fb
    >>> q, r = fb.divmod(fb.array([100, 2**100], bits=128), fb.array([7, 2**64 + 1], bits=128))
    >>> q.to_ints() == [14, 2**100 // (2**64 + 1)], r.to_ints() == [2, 2**100 % (2**64 + 1)]
    (True, True)
    >>> fb.divmod(fb.array([1, 2], bits=64), fb.array([1, 0], bits=64))
    Traceback (most recent call last):
    ...
    ZeroDivisionError: division by zero: divisor 1 is 0 (1 of 2 divisors are zero)
    """
    scalar_divisor = _operand_kind(b) == "scalar"
    if scalar_divisor and operator.index(b) == 0:
        raise ZeroDivisionError("division by zero: the divisor is the scalar 0")
    a, b, _ = _align(a, b, "divmod")
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


def _shift_counts(counts: Any, n: int) -> int | np.ndarray:
    """A non-negative shift count, or an ``[n]`` int64 array of them."""
    if isinstance(counts, Array):
        raise TypeError("shift counts must be an int or an array of ints (numpy or list), not a futbig array")
    if isinstance(counts, (builtins.int, np.integer)):
        k = operator.index(counts)
        if k < 0:
            raise ValueError(f"negative shift count {k}")
        return min(k, 2**62)  # every count >= bits gives 0; keep it an i64
    ks = np.asarray(counts)
    if ks.ndim != 1 or ks.dtype.kind not in "iu" and not (ks.size == 0):
        raise TypeError(f"shift counts must be an int or a 1-d array of ints, not {ks.dtype} of shape {ks.shape}")
    if ks.shape[0] != n:
        raise ValueError(f"operands could not be broadcast together with shapes ({n},) {ks.shape}")
    if ks.size and ks.dtype.kind == "i" and (ks < 0).any():
        i = int(np.argmax(ks < 0))
        raise ValueError(f"negative shift count {int(ks[i])} at index {i}")
    return np.minimum(ks.astype(np.uint64), np.uint64(2**62)).astype(np.int64)


def left_shift(a: Array, counts: Any) -> Array:
    """``a << counts`` modulo ``2**bits``; ``counts`` is an int or one int per element.

    >>> import futbig as fb
    >>> fb.left_shift(fb.array([1, 1], bits=100), [3, 99]).to_ints() == [8, 2**99]
    True
    """
    k = _shift_counts(counts, len(a))
    if isinstance(k, builtins.int):
        return a._like(a._ctx.call("shl", a.bits, k, a._data))
    return a._like(a._ctx.call("shl_each", a.bits, k, a._data))


def right_shift(a: Array, counts: Any) -> Array:
    """``a >> counts``; ``counts`` is an int or one int per element.

    >>> import futbig as fb
    >>> fb.right_shift(fb.array([2**99, 2**99], bits=100), [99, 100]).to_ints()
    [1, 0]
    """
    return a._like(a.dtype._right_shift(a, _shift_counts(counts, len(a))))


def bitwise_and(a: Any, b: Any) -> Array:
    """``a & b``.

    >>> import futbig as fb
    >>> fb.bitwise_and(fb.array([0b1100], bits=8), 0b1010).to_ints()
    [8]
    """
    a, b, _ = _align(a, b, "&")
    return a._like(a._ctx.call("bit_and", a._data, b._data))


def bitwise_or(a: Any, b: Any) -> Array:
    """``a | b``.

    >>> import futbig as fb
    >>> fb.bitwise_or(fb.array([0b1100], bits=8), 0b1010).to_ints()
    [14]
    """
    a, b, _ = _align(a, b, "|")
    return a._like(a._ctx.call("bit_or", a._data, b._data))


def bitwise_xor(a: Any, b: Any) -> Array:
    """``a ^ b``.

    >>> import futbig as fb
    >>> fb.bitwise_xor(fb.array([0b1100], bits=8), 0b1010).to_ints()
    [6]
    """
    a, b, _ = _align(a, b, "^")
    return a._like(a._ctx.call("bit_xor", a._data, b._data))


def bitwise_not(a: Array) -> Array:
    """``~a``: every one of the ``bits`` bits flipped.

    >>> import futbig as fb
    >>> fb.bitwise_not(fb.array([0, 5], bits=4)).to_ints()
    [15, 10]
    """
    return a._like(a._ctx.call("bit_not", a.bits, a._data))


invert = bitwise_not


def negative(a: Array) -> Array:
    """``-a`` modulo ``2**bits``.

    >>> import futbig as fb
    >>> fb.negative(fb.array([0, 1], bits=8)).to_ints()
    [0, 255]
    """
    return a._like(a._ctx.call("neg", a.bits, a._data))


def power(a: Array, exponent: Any) -> Array:
    """``a ** exponent`` modulo ``2**bits`` for an int exponent >= 0 (square and multiply on the device).

    >>> import futbig as fb
    >>> fb.power(fb.array([3, 2], bits=64), 5).to_ints()
    [243, 32]
    """
    if _operand_kind(exponent) != "scalar":
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
    return result if result is not None else _scalar(1, a.dtype, len(a), a._ctx)


def compare(a: Any, b: Any) -> np.ndarray:
    """A numpy int8 array: -1 where ``a < b``, 0 where equal, 1 where ``a > b``.

    >>> import futbig as fb
    >>> fb.compare(fb.array([1, 5, 9], bits=64), 5)
    array([-1,  0,  1], dtype=int8)
    """
    a, b, _ = _align(a, b, "compare")
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
