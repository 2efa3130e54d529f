"""The device-resident array of fixed-width big integers.

An :class:`Array` holds ``n`` integers of one dtype (:mod:`futbig.dtypes`)
as an ``[n][m]u64`` array on the backend's device (GPU memory under
``cuda``). Every operation runs there and returns a new array; nothing comes
back to the host until asked (:meth:`Array.to_ints`, :meth:`Array.to_limbs`,
``numpy.asarray``, indexing with an int, comparisons, and the two scalars
that summarise the flags of division and ``overflow="raise"``). Arrays are
immutable.

The array itself only moves rows, checks lengths and backends, and calls
its dtype's hooks. Its operators (bound in :mod:`futbig._operators`) call
the operation families (:mod:`futbig.arithmetic`, :mod:`futbig.bitwise`,
:mod:`futbig.comparison`), which read their operands through
:mod:`futbig._operands`.

>>> import futbig as fb
>>> a = fb.array([3**40, 5**20, 7], bits=128)
>>> b = fb.array([2**64, 3, 0], bits=128)
>>> ((a * b + a) // (b | 1)).to_ints() == [(x * y + x) // (y | 1) for x, y in zip(a.to_ints(), b.to_ints())]
True
>>> a.dtype, len(a), a[2]
(uint(128), 3, 7)
"""
from __future__ import annotations

import builtins
import operator
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from . import _backend, _kernels
from ._convert import limbs_to_bytes
from .dtypes import BigIntType, as_dtype

if TYPE_CHECKING:
    from ._backend import Context

__all__ = ["Array"]

Device = Any  # an opaque array owned by the backend context


class Array:
    """A 1-d array of fixed-width big integers on the backend's device.

    Make one with :func:`futbig.array`; operators follow numpy: ``+ - * << &
    | ^ ~`` and unary ``-`` wrap modulo ``2**bits``, ``// % divmod`` are
    exact, comparisons return numpy bool arrays. Python ints broadcast; an
    array of length 1 broadcasts against any length; mixing widths gives the
    wider dtype.

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

    def _like(self, data: Device, dtype: BigIntType | None = None, m: int | None = None) -> Array:
        return wrap(data, self._n, dtype or self._dtype, m or self._m, self._ctx)

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
        Signed values are two's complement sign-extended to the ``k`` limbs
        (an ``int(64)`` array's limbs viewed as numpy int64 are its values).

        >>> import futbig as fb
        >>> fb.array([2**64 + 3], bits=65).to_limbs()
        array([[3, 1]], dtype=uint64)
        >>> fb.array([2**32 + 3], bits=40).to_limbs(np.uint32)
        array([[3, 1]], dtype=uint32)
        """
        limb_dtype = np.dtype(limb_dtype)
        if limb_dtype not in (np.uint64, np.uint32):
            raise TypeError(f"to_limbs gives uint64 or uint32 limbs, not {limb_dtype}")
        bits_per_limb = 8 * limb_dtype.itemsize
        k = -(-self._dtype.bits // bits_per_limb)
        host = self._dtype._host_rows(self._host_limbs(), k * bits_per_limb)
        if limb_dtype == np.uint64:
            return np.ascontiguousarray(host[:, :k])
        return np.ascontiguousarray(host.view("<u4")[:, :k])

    def tobytes(self, byteorder: str = "little") -> bytes:
        """The stored bits as ``ceil(bits/8)`` bytes per element, concatenated
        (signed values as ``int.to_bytes(..., signed=True)`` writes them).

        >>> import futbig as fb
        >>> fb.array([1, 258], bits=16).tobytes("big")
        b'\\x00\\x01\\x01\\x02'
        """
        width = 8 * -(-self._dtype.bits // 8)
        return limbs_to_bytes(self._dtype._host_rows(self._host_limbs(), width), width, byteorder)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """The values as a numpy array (what ``numpy.asarray(a)`` calls): a host copy.

        Without a dtype (or with ``dtype=object``), a 1-d object array of
        exact Python ints. A numpy integer or float dtype is given only when
        every value converts exactly (else OverflowError naming the first
        value that does not); other dtypes raise TypeError. ``copy=False``
        raises ValueError: the values live on the device, so there is always
        a copy.

        >>> import futbig as fb
        >>> np.asarray(fb.array([1, 2**63 + 1, 5], bits=64))
        array([1, 9223372036854775809, 5], dtype=object)
        >>> np.asarray(fb.array([1, 2**70], bits=128), dtype=np.uint64)
        Traceback (most recent call last):
        ...
        OverflowError: element 1 (1180591620717411303424) does not fit in numpy uint64; use dtype=object for exact Python ints
        """
        if copy is False:
            raise ValueError(
                "a futbig array lives on the backend's device: making a numpy array of it always copies "
                "(pass copy=None or copy=True)")
        values = self.to_ints()
        out = np.empty(len(values), dtype=object)
        out[:] = values
        target = np.dtype(object if dtype is None else dtype)
        if target == object:
            return out
        if target.kind in "ui":
            info = np.iinfo(target)
            exact = lambda v: info.min <= v <= info.max  # noqa: E731
        elif target.kind == "f":
            exact = lambda v: _float_is_exact(v, target)  # noqa: E731
        else:
            raise TypeError(
                f"cannot convert a futbig array to numpy {target}: give dtype=object (exact Python ints), "
                "or an integer or float dtype that holds every value")
        for i, v in enumerate(values):
            if not exact(v):
                raise OverflowError(
                    f"element {i} ({_short_int(v)}) does not fit in numpy {target}; use dtype=object for exact Python ints")
        return out.astype(target)

    def __iter__(self) -> Iterator[int]:
        return iter(self.to_ints())

    def __repr__(self) -> str:
        shown = 6
        if self._n <= shown:
            items = [_short_int(x) for x in self.to_ints()]
        else:
            idx = np.r_[0:3, self._n - 3 : self._n]
            values = self._dtype.decode(self._ctx.to_host(_kernels.gather(self._ctx, self._data, idx)))
            items = [_short_int(x) for x in values[:3]] + ["..."] + [_short_int(x) for x in values[3:]]
        return f"array([{', '.join(items)}], dtype={self._dtype}, device={self.device!r})"

    def __bool__(self) -> bool:
        raise ValueError("the truth value of a futbig array is ambiguous; compare it and use .any() or .all() on the result")

    __hash__ = None  # type: ignore[assignment]  # == is elementwise

    # Indexing and reshaping ---------------------------------------------

    def __getitem__(self, key: Any) -> Any:
        """An int gives a Python int; a slice, a bool mask or an int array gives an array.

        Indices follow numpy's for a 1-d array: a tuple of one index (and at
        most one ``...``) is that index, ``a[...]`` and ``a[()]`` are the
        whole array, and anything that would need a second dimension (two
        indices, ``None``, a scalar bool, a 2-d index array) raises
        IndexError.

        >>> import futbig as fb
        >>> a = fb.array([10, 11, 12, 13], bits=64)
        >>> a[-1], a[1:3].to_ints(), a[np.array([True, False, True, False])].to_ints(), a[[3, 0]].to_ints()
        (13, [11, 12], [10, 12], [13, 10])
        >>> a[0, 1]
        Traceback (most recent call last):
        ...
        IndexError: too many indices for array: array is 1-dimensional, but 2 were indexed
        """
        idx = _index(key, self._n)
        if isinstance(idx, builtins.int):
            return self._dtype.decode(self._ctx.to_host(_kernels.gather(self._ctx, self._data, np.array([idx]))))[0]
        if idx is None or (len(idx) == self._n and _is_identity(idx)):
            return self
        return wrap(_kernels.gather(self._ctx, self._data, idx), len(idx), self._dtype, self._m, self._ctx)

    def astype(self, dtype: BigIntType) -> Array:
        """The values in another dtype, like numpy: widening keeps the value
        (zero-extends unsigned, sign-extends signed values), and the result
        is then read as ``dtype``'s bits modulo ``2**dtype.bits`` (between
        ``uint`` and ``int`` of one width the bits are reinterpreted).

        >>> import futbig as fb
        >>> fb.array([2**64 + 5], bits=128).astype(fb.uint(64)).to_ints()
        [5]
        >>> a = fb.array([-1, 5], fb.int(64))
        >>> a.astype(fb.uint(64)).to_ints() == [2**64 - 1, 5], a.astype(fb.uint(80)).to_ints() == [2**80 - 1, 5]
        (True, True)
        """
        dtype = as_dtype(dtype)
        if dtype == self._dtype:
            return self
        if dtype.bits > self._dtype.bits:
            m = max(dtype.storage_limbs, self._m)
            return self._like(self._dtype._extend(self, m, dtype.bits), dtype, m)
        if dtype.bits == self._dtype.bits:
            return self._like(self._data, dtype)
        m = dtype.storage_limbs
        return self._like(_kernels.resize(self._ctx, self._data, m, dtype.bits), dtype, m)


# --------------------------------------------------------------------------
# Making arrays from device and host rows


def wrap(data: Device, n: int, dtype: BigIntType, m: int, ctx: Context) -> Array:
    """An Array around a device array of ``n`` rows of ``m`` limbs holding values of ``dtype``."""
    self = object.__new__(Array)
    self._data, self._n, self._dtype, self._m, self._ctx = data, n, dtype, m, ctx
    return self


def from_host(limbs: np.ndarray, dtype: BigIntType) -> Array:
    """An Array on the current backend from host rows ``(n, m)`` (``m`` a multiple of 4)."""
    ctx = _backend.context()
    return wrap(ctx.to_device(limbs), limbs.shape[0], dtype, limbs.shape[1], ctx)


def check_same_context(a: Array, b: Array) -> None:
    """Raise ValueError unless ``a`` and ``b`` live on the same backend context."""
    if a._ctx is not b._ctx:
        raise ValueError(
            f"operands live on different backends ({a._ctx.name!r} and {b._ctx.name!r}, or an old context); "
            "copy one onto the current backend with futbig.array(x)"
        )


# --------------------------------------------------------------------------
# Helpers


def _index(key: Any, n: int) -> int | np.ndarray | None:
    """A numpy index of a 1-d array of length ``n`` as an int (in range), an
    int64 array of rows (in range), or None for the whole array."""
    if isinstance(key, tuple):
        ellipses = sum(k is Ellipsis for k in key)
        if ellipses > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        if any(k is None for k in key):
            raise IndexError("futbig arrays are 1-d: None (numpy.newaxis) in an index would add a dimension")
        rest = [k for k in key if k is not Ellipsis]
        if len(rest) > 1:
            raise IndexError(f"too many indices for array: array is 1-dimensional, but {len(rest)} were indexed")
        if not rest:
            return None
        key = rest[0]
    if key is Ellipsis:
        return None
    if key is None:
        raise IndexError("futbig arrays are 1-d: None (numpy.newaxis) in an index would add a dimension")
    if isinstance(key, slice):
        return np.arange(n)[key]
    if isinstance(key, (bool, np.bool_)):
        raise IndexError(f"a scalar bool index would add a dimension; index with a bool mask of length {n}")
    if not isinstance(key, np.ndarray) and hasattr(key, "__index__"):  # int, numpy integers, mpz
        return _int_index(operator.index(key), n)
    array = np.asarray(key)
    if array.ndim == 0:
        if array.dtype.kind in "iu":
            return _int_index(builtins.int(array), n)
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`) and 1-d integer or boolean arrays are valid "
            f"indices of a futbig array, not {type(key).__name__}")
    if array.ndim != 1:
        raise IndexError(f"futbig arrays are 1-d: index with an int, a slice or a 1-d array, not shape {array.shape}")
    if array.dtype == bool:
        if array.shape[0] != n:
            raise IndexError(f"boolean index of length {array.shape[0]} does not match the array's length {n}")
        return np.flatnonzero(array)
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.dtype.kind not in "iu":
        raise IndexError(f"arrays used as indices must be of integer or boolean type, not {array.dtype}")
    idx = array.astype(np.int64)
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(f"index {int(array[np.argmax(bad)])} is out of bounds for a futbig array of length {n}")
    return np.where(idx < 0, idx + n, idx)


def _int_index(i: int, n: int) -> int:
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of bounds for a futbig array of length {n}")
    return i % n


def _is_identity(idx: np.ndarray) -> bool:
    return bool(np.array_equal(idx, np.arange(len(idx))))


def _short_int(x: int) -> str:
    text = str(x)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


def _float_is_exact(v: int, target: np.dtype) -> bool:
    try:
        return builtins.int(np.array(v, dtype=object).astype(target)) == v
    except (OverflowError, ValueError):
        return False
