"""Making arrays: from Python ints, numpy arrays, limbs and bytes, repeated values, and joined arrays.

>>> import futbig as fb
>>> fb.concatenate([fb.array([1, 2], bits=64), fb.full(2, 7, bits=64), [9]]).to_ints()
[1, 2, 7, 7, 9]
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Iterable, Sequence

import numpy as np

from . import _backend, _kernels
from .dtypes import BigIntType, as_dtype, uint
from .signed import int as signed_int
from .ndarray import Array, check_same_context, from_host, wrap

__all__ = ["array", "concatenate", "frombytes", "full", "zeros"]


def array(data: Any, dtype: BigIntType | None = None, *, bits: int | None = None) -> Array:
    """Make a device array of big integers.

    ``data`` may be a sequence (or iterable) of Python ints, gmpy2 ``mpz`` or
    numpy integers; a 1-d numpy integer array of values; a 2-d ``(n, k)``
    uint64 or uint32 numpy array of limbs, least significant first (any
    strides); bytes of ``ceil(bits/8)``-byte little-endian records (see
    :func:`frombytes`); or another futbig array (converted with
    :meth:`Array.astype`; an array of another backend, or of a context
    that is no longer current, is copied onto the current backend through
    the host). Give the type as ``dtype=fb.uint(bits)``, ``dtype=fb.int(bits)``
    or ``bits=`` (unsigned); without either, it is ``uint`` of the limb
    array's width, or the smallest multiple of 64 bits that holds every
    value: ``uint`` when none is negative, else ``int``. A limb array with
    no limbs (``(n, 0)``) holds zeros and needs a dtype.

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
        if data._ctx is not _backend.context():
            data = from_host(data._host_limbs(), data.dtype)
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
        dtype = _default_dtype(values)
    return dtype.from_ints(values)


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
    return scalar(value, resolved, n, _backend.context())


def zeros(n: int, dtype: BigIntType | None = None, *, bits: int | None = None) -> Array:
    """``n`` zeros.

    >>> import futbig as fb
    >>> fb.zeros(2, bits=64).to_ints()
    [0, 0]
    """
    return full(n, 0, dtype, bits=bits)


def concatenate(arrays: Sequence[Any], dtype: BigIntType | None = None) -> Array:
    """Join arrays (or sequences of ints) end to end; the result has the widest dtype.

    Every row is copied once, however many arrays are joined.

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
        check_same_context(parts[0], p)
    result = dtype or parts[0].dtype
    for p in parts[1:]:
        result = result.result_type(p.dtype)
    parts = [p.astype(result) for p in parts]
    m = max(p._m for p in parts)
    data = [p._data if p._m == m else result._extend(p, m, result.bits) for p in parts]
    lengths = [len(p) for p in parts]
    return wrap(_kernels.concatenate(ctx, data, lengths, m), sum(lengths), result, m, ctx)


def scalar_row(value: Any, dtype: BigIntType) -> np.ndarray:
    """``value`` encoded as one ``(1, storage_limbs)`` host row of ``dtype``; errors name the scalar."""
    try:
        return dtype.encode([value])
    except (TypeError, ValueError, OverflowError) as e:
        message = str(e).replace("element 0", f"the scalar {value!r}" if len(repr(value)) < 40 else "the scalar")
        raise type(e)(message) from None


def scalar(value: Any, dtype: BigIntType, n: int, ctx: _backend.Context) -> Array:
    """A Python int broadcast to ``n`` elements: one row is uploaded, the copies are made on the device."""
    row = scalar_row(value, dtype)
    return wrap(_kernels.broadcast(ctx, ctx.to_device(row), n), n, dtype, row.shape[1], ctx)


def _resolve_dtype(dtype: Any, bits: int | None) -> BigIntType | None:
    if dtype is not None and bits is not None:
        raise TypeError("give either dtype or bits, not both")
    if bits is not None:
        return uint(bits)
    return None if dtype is None else as_dtype(dtype)


def _default_dtype(values: Sequence[Any]) -> BigIntType:
    """``uint`` of the smallest multiple of 64 bits holding ``values``; ``int`` if one is negative."""
    if any(_is_negative(v) for v in values):
        return signed_int(64 * max(1, -(-(_max_bit_length(values) + 1) // 64)))
    return uint(64 * max(1, -(-_max_bit_length(values) // 64)))


def _is_negative(x: Any) -> bool:
    try:
        return operator.index(x) < 0
    except TypeError:
        return False  # not an integer: rejected when encoding


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
            if data.shape[1] == 0:
                raise ValueError(
                    f"a limb array of shape {data.shape} has no limbs, so no width: pass the dtype "
                    "(e.g. bits=64) to get zeros of that width")
            dtype = uint(data.shape[1] * 8 * data.dtype.itemsize)
        return dtype.from_limbs(data)
    if data.ndim != 1:
        raise ValueError(f"futbig arrays are 1-d: pass values (n,) or limbs (n, k), not shape {data.shape}")
    if data.dtype.kind == "O":
        return array(data.tolist(), dtype)
    if data.dtype.kind not in "uib":
        raise TypeError(f"cannot make big integers from a numpy array of {data.dtype}; convert to integers first")
    if data.dtype.kind == "i" and (dtype.signed if dtype is not None else data.size and (data < 0).any()):
        # Two's complement of 64 bits: the limbs of int64 values (sign-extended by from_limbs).
        return (dtype or signed_int(64)).from_limbs(data.astype(np.int64).view(np.uint64)[:, None])
    if dtype is not None and dtype.signed:
        return dtype.from_ints(data.tolist())
    if data.dtype.kind == "i" and data.size and (data < 0).any():
        i = int(np.argmax(data < 0))
        raise ValueError(f"element {i} is negative ({data[i]}); an unsigned {dtype or 'uint'} holds only x >= 0")
    column = data.astype(np.uint64)[:, None]
    if dtype is None:
        dtype = uint(64)
    return dtype.from_limbs(column)
