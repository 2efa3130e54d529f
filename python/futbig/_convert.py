"""Fast conversions between Python integers and rows of u64 limbs.

A batch of ``n`` non-negative integers is stored as an ``(n, m)`` C-ordered
``uint64`` array, limb 0 the least significant. These functions work on the
host only; :mod:`futbig.dtypes` and :mod:`futbig.ndarray` move the arrays to and from the device.

Speed matters here: converting is the only per-element Python work a user
pays for (at 1024 bits on multicore, encoding and decoding take about 70% of
a round trip through ``a + a``). Values of one limb go through C loops
(numpy's int converter and ``tolist``; ``gmpy2.pack`` for mpz). Wider ones
cost one ``int.to_bytes`` / ``int.from_bytes`` call each, the fastest
per-integer primitives CPython has (measured against gmpy2's pack/unpack
of whole chunks, ``int(mpz)``, joining ``(hi << 64) | lo``, and building a
``marshal`` stream with numpy: all slower), mapped over chunks that stay
in cache: one ``b"".join`` per chunk written into the preallocated result,
and ``struct.iter_unpack`` to cut a chunk of rows into ``bytes`` without a
Python-level loop. gmpy2 writes big-endian bytes about twice as fast as
little-endian ones, so lists of mpz are encoded big-endian in reverse order
and the chunk's bytes reversed by numpy.

>>> limbs = ints_to_limbs([1, 2**64 + 5], bits=128, m=4)
>>> limbs.tolist()
[[1, 0, 0, 0], [5, 1, 0, 0]]
>>> limbs_to_ints(limbs)
[1, 18446744073709551621]
"""
from __future__ import annotations

import operator
import struct
from itertools import repeat
from typing import Any, Sequence

import numpy as np

__all__ = [
    "bytes_to_limbs",
    "check_width",
    "coerce_ints",
    "ints_to_limbs",
    "limb_array_to_limbs",
    "limbs_to_bytes",
    "limbs_to_ints",
    "limbs_to_signed_ints",
    "sign_extend_rows",
    "signed_ints_to_limbs",
    "signed_rows",
    "storage_limbs",
]

#: Rows converted per chunk: large enough to amortise the per-chunk work,
#: small enough (about 1 MiB at 4096 bits) to stay in cache.
_CHUNK = 2048

try:  # gmpy2 is a dependency, but conversions must not need it
    from gmpy2 import mpz as _mpz
    from gmpy2 import pack as _pack
except ImportError:  # pragma: no cover - gmpy2 is installed with futbig
    _mpz = _pack = None


def storage_limbs(bits: int) -> int:
    """The number of u64 limbs stored per integer of ``bits`` bits: enough
    limbs, rounded up to a multiple of 4 (the Futhark kernels' contract).

    >>> [storage_limbs(b) for b in (1, 64, 256, 257, 4096)]
    [4, 4, 4, 8, 64]
    """
    return max(4, -(-bits // 256) * 4)


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _element_int(i: int, x: Any) -> int:
    """Element ``i`` of a sequence as a Python int, or a TypeError naming it."""
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(
            f"element {i} is {_describe(x)} ({type(x).__name__}), not an integer; futbig arrays hold integers only"
        ) from None


def coerce_ints(values: Sequence[Any], bits: int) -> list[int]:
    """``values`` as plain Python ints, each checked to be an integer in ``[0, 2**bits)``.

    Anything with ``__index__`` (``int``, ``bool``, gmpy2 ``mpz``, numpy
    integers) is accepted. The first bad element raises: ``TypeError`` for a
    non-integer, ``ValueError`` for a negative value, ``OverflowError`` for
    one that needs more than ``bits`` bits; the message gives its index.

    >>> coerce_ints([1, 2.5], 64)
    Traceback (most recent call last):
    ...
    TypeError: element 1 is 2.5 (float), not an integer; futbig arrays hold integers only
    """
    out = []
    for i, x in enumerate(values):
        v = _element_int(i, x)
        if v < 0:
            raise ValueError(f"element {i} is negative ({_describe(v)}); an unsigned uint({bits}) holds 0 <= x < 2**{bits}")
        if v.bit_length() > bits:
            raise OverflowError(
                f"element {i} needs {v.bit_length()} bits and does not fit in uint({bits}); "
                f"use a wider dtype or reduce it modulo 2**{bits}"
            )
        out.append(v)
    return out


def _row_bytes_encoder(values: Sequence[Any]) -> Any:
    """The unbound ``to_bytes`` to run over ``values``: gmpy2's for a list of mpz."""
    if _mpz is not None and len(values) and type(values[0]) is _mpz:
        return _mpz.to_bytes
    return int.to_bytes


def _one_limb(values: Sequence[Any], n: int) -> np.ndarray | None:
    """Values below 2**64 as one uint64 column, converted in C: plain ints by numpy, mpz by one
    ``gmpy2.pack`` and one export. None unless every value is a plain non-negative int below 2**64, or
    every one an mpz in that range (bools, floats, negatives, mixed lists, ... take the general path)."""
    types = set(map(type, values))
    try:
        if types == {int}:
            return np.fromiter(values, dtype=np.uint64, count=n)
        if _mpz is not None and types == {_mpz}:
            return np.frombuffer(_pack(values, 64).to_bytes(8 * n, "little"), dtype="<u8").astype(np.uint64)
    except (OverflowError, ValueError, TypeError):
        pass
    return None


def ints_to_limbs(values: Sequence[Any], bits: int, m: int) -> np.ndarray:
    """Pack integers into an ``(n, m)`` uint64 array, validating every element.

    ``m`` limbs must hold ``bits`` bits. Raises like :func:`coerce_ints`
    (naming the first bad element) and never returns a partly filled array.
    Values of one limb are converted in C (numpy, gmpy2.pack); wider ones by one
    ``to_bytes`` call each over chunks (for mpz big-endian, which gmpy2
    writes about twice as fast, the chunk taken in reverse and its bytes
    reversed by numpy: rows in order, each little-endian).

    >>> ints_to_limbs([2**100], bits=101, m=4).tolist()
    [[0, 68719476736, 0, 0]]
    >>> ints_to_limbs([2**101], bits=101, m=4)
    Traceback (most recent call last):
    ...
    OverflowError: element 0 needs 102 bits and does not fit in uint(101); use a wider dtype or reduce it modulo 2**101
    """
    if not isinstance(values, (list, tuple)):
        values = list(values)
    n = len(values)
    if bits <= 64:
        column = _one_limb(values, n)
        if column is not None:
            out = np.zeros((n, m), dtype=np.uint64)
            out[:, 0] = column
            check_width(out, bits, lambda i: operator.index(values[i]))
            return out
    row_bytes = 8 * m
    out = np.empty((n, m), dtype=np.uint64)
    flat = out.reshape(-1).view(np.uint8)
    to_bytes = _row_bytes_encoder(values)
    big_endian = to_bytes is not int.to_bytes
    try:
        for start in range(0, n, _CHUNK):
            chunk = values[start : start + _CHUNK]
            k = len(chunk)
            if big_endian:
                joined = b"".join(map(to_bytes, chunk[::-1], repeat(row_bytes, k), repeat("big", k)))
                flat[start * row_bytes : (start + k) * row_bytes] = np.frombuffer(joined, dtype=np.uint8)[::-1]
            else:
                joined = b"".join(map(to_bytes, chunk, repeat(row_bytes, k), repeat("little", k)))
                flat[start * row_bytes : (start + k) * row_bytes] = np.frombuffer(joined, dtype=np.uint8)
    except (TypeError, OverflowError, ValueError):
        # A non-integer, a mixed list, a negative or a too-wide value: the slow
        # path finds and names the culprit, or yields plain ints that convert.
        return ints_to_limbs(coerce_ints(values, bits), bits, m)
    check_width(out, bits, lambda i: operator.index(values[i]))
    return out


def check_width(limbs: np.ndarray, bits: int, value_at: Any = None) -> None:
    """Raise ``OverflowError`` naming the first row of ``limbs`` with a bit set at
    position ``>= bits``; ``value_at(i)`` (optional) gives row i's value for the message."""
    m = limbs.shape[1]
    if bits >= 64 * m or limbs.shape[0] == 0:
        return
    top, rem = divmod(bits, 64)
    bad = np.zeros(limbs.shape[0], dtype=bool)
    if rem:
        bad |= (limbs[:, top] >> np.uint64(rem)) != 0
        top += 1
    if top < m:
        bad |= np.any(limbs[:, top:] != 0, axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        value = value_at(i) if value_at is not None else limbs_to_ints(limbs[i : i + 1])[0]
        raise OverflowError(
            f"element {i} needs {value.bit_length()} bits and does not fit in uint({bits}); "
            f"use a wider dtype or reduce it modulo 2**{bits}"
        )


def limbs_to_ints(limbs: np.ndarray) -> list[int]:
    """The Python ints of the rows of an ``(n, m)`` uint64 array.

    >>> limbs_to_ints(np.array([[0, 1], [7, 0]], dtype=np.uint64))
    [18446744073709551616, 7]
    """
    limbs = np.ascontiguousarray(limbs, dtype="<u8")
    n, m = limbs.shape
    if m == 0:
        return [0] * n
    if m <= 4 and not limbs[:, 1:].any():  # values of one limb: numpy makes the ints in C
        return limbs[:, 0].tolist()
    rows = struct.Struct(f"{8 * m}s")
    first = operator.itemgetter(0)
    out: list[int] = []
    for start in range(0, n, _CHUNK):
        chunk = limbs[start : start + _CHUNK]
        out.extend(map(int.from_bytes, map(first, rows.iter_unpack(chunk)), repeat("little", len(chunk))))
    return out


def limb_array_to_limbs(array: np.ndarray, bits: int, m: int) -> np.ndarray:
    """An ``(n, k)`` array of uint64 or uint32 limbs (least significant first,
    any strides or byte order) as a fresh ``(n, m)`` uint64 array; limbs past
    ``bits`` must be zero.

    >>> limb_array_to_limbs(np.array([[1, 2, 3]], dtype=np.uint32), 96, 4).tolist()
    [[8589934593, 3, 0, 0]]
    """
    if array.ndim != 2:
        raise ValueError(f"a limb array must be 2-d (n, limbs); got shape {array.shape}")
    kind = array.dtype
    if kind.kind != "u" or kind.itemsize not in (4, 8):
        raise TypeError(
            f"limb arrays must be uint64 or uint32, not {kind}; "
            "pass a 1-d array or a list to convert integer values instead"
        )
    n, k = array.shape
    if kind.itemsize == 4:
        # Pairs of 32-bit limbs become one 64-bit limb (little-endian host).
        halves = np.zeros((n, k + (k & 1)), dtype="<u4")
        halves[:, :k] = array
        array = halves.view("<u8")
        k = array.shape[1]
    out = np.zeros((n, m), dtype=np.uint64)
    kept = min(k, m)
    out[:, :kept] = array[:, :kept]  # copies from any strides: never misread
    if k > m:
        extra = np.any(array[:, m:] != 0, axis=1)
        if extra.any():
            i = int(np.argmax(extra))
            value = limbs_to_ints(np.asarray(array[i : i + 1], dtype=np.uint64))[0]
            raise OverflowError(
                f"element {i} needs {value.bit_length()} bits and does not fit in uint({bits}); "
                f"use a wider dtype or reduce it modulo 2**{bits}"
            )
    check_width(out, bits)
    return out


def bytes_to_limbs(data: Any, bits: int, m: int, byteorder: str = "little") -> np.ndarray:
    """Fixed-size records of ``ceil(bits/8)`` bytes each as an ``(n, m)`` uint64 array.

    >>> bytes_to_limbs(b"\\x01\\x00\\x00\\x02", 16, 4, "big").tolist()
    [[256, 0, 0, 0], [2, 0, 0, 0]]
    """
    if byteorder not in ("little", "big"):
        raise ValueError(f"byteorder must be 'little' or 'big', not {byteorder!r}")
    record = -(-bits // 8)
    raw = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    if raw.size % record:
        raise ValueError(
            f"{raw.size} bytes is not a whole number of {record}-byte records (uint({bits}) takes {record} bytes each)"
        )
    rows = raw.reshape(-1, record)
    if byteorder == "big":
        rows = rows[:, ::-1]
    out = np.zeros((rows.shape[0], m), dtype=np.uint64)
    out.view(np.uint8)[:, :record] = rows
    check_width(out, bits)
    return out


def limbs_to_bytes(limbs: np.ndarray, bits: int, byteorder: str = "little") -> bytes:
    """The inverse of :func:`bytes_to_limbs`: ``ceil(bits/8)`` bytes per row.

    >>> limbs_to_bytes(np.array([[256, 0, 0, 0]], dtype=np.uint64), 16, "big")
    b'\\x01\\x00'
    """
    if byteorder not in ("little", "big"):
        raise ValueError(f"byteorder must be 'little' or 'big', not {byteorder!r}")
    record = -(-bits // 8)
    rows = np.ascontiguousarray(limbs, dtype="<u8").view(np.uint8)[:, :record]
    if byteorder == "big":
        rows = rows[:, ::-1]
    return np.ascontiguousarray(rows).tobytes()


# --------------------------------------------------------------------------
# Two's complement (the signed dtype ``int(bits)``)
#
# A signed value is stored as its two's complement modulo ``2**bits``: the
# same rows as an unsigned value (zero above ``bits``), so every kernel
# keeps its contract. Limb arrays and byte records handed in or out hold
# the two's complement of their own width (their top bit is the sign), like
# ``int.to_bytes(..., signed=True)`` and a numpy int64 viewed as uint64.


def _signed_range_error(i: int, value: int, bits: int) -> OverflowError:
    return OverflowError(
        f"element {i} ({_describe(value)}) does not fit in int({bits}), which holds "
        f"-2**{bits - 1} <= x < 2**{bits - 1}; use a wider dtype"
    )


def coerce_signed_ints(values: Sequence[Any], bits: int) -> list[int]:
    """``values`` as Python ints, each checked to be an integer in ``[-2**(bits-1), 2**(bits-1))``.

    The first bad element raises (TypeError for a non-integer, OverflowError
    for one out of range), naming its index.

    >>> coerce_signed_ints([-128, 127, 128], 8)
    Traceback (most recent call last):
    ...
    OverflowError: element 2 (128) does not fit in int(8), which holds -2**7 <= x < 2**7; use a wider dtype
    """
    half = 1 << (bits - 1)
    out = []
    for i, x in enumerate(values):
        v = _element_int(i, x)
        if not -half <= v < half:
            raise _signed_range_error(i, v, bits)
        out.append(v)
    return out


def signed_ints_to_limbs(values: Sequence[Any], bits: int, m: int) -> np.ndarray:
    """Pack integers of ``int(bits)`` as ``(n, m)`` rows of their two's complement modulo ``2**bits``.

    Each value is offset by ``2**(bits-1)`` (which maps the signed range onto
    ``[0, 2**bits)``), packed by :func:`ints_to_limbs`, and the sign bit is
    flipped back on the whole array: one addition per element in Python.

    >>> signed_ints_to_limbs([-1, 5, -2**64], 65, 4).tolist()
    [[18446744073709551615, 1, 0, 0], [5, 0, 0, 0], [0, 1, 0, 0]]
    """
    if not isinstance(values, (list, tuple)):
        values = list(values)
    half = 1 << (bits - 1)
    try:
        rows = ints_to_limbs([v + half for v in map(operator.index, values)], bits, m)
    except (TypeError, ValueError, OverflowError):
        coerce_signed_ints(values, bits)  # names the culprit
        raise
    top, bit = divmod(bits - 1, 64)
    rows[:, top] ^= np.uint64(1 << bit)
    return rows


def limbs_to_signed_ints(limbs: np.ndarray, bits: int) -> list[int]:
    """The Python ints of rows holding two's complement values of ``bits`` bits (zero above).

    >>> limbs_to_signed_ints(np.array([[2**64 - 1, 1, 0, 0], [5, 0, 0, 0]], dtype=np.uint64), 65)
    [-1, 5]
    """
    limbs = np.ascontiguousarray(limbs, dtype=np.uint64)
    if bits <= 64:  # numpy sign-extends in C: shift the sign bit to the top, shift back arithmetically
        shift = np.uint64(64 - bits)
        return ((limbs[:, 0] << shift).view(np.int64) >> np.int64(64 - bits)).tolist()
    full, half = 1 << bits, 1 << (bits - 1)
    return [v - full if v >= half else v for v in limbs_to_ints(limbs)]


def _bit_masks(lo: int, hi: int) -> list[tuple[int, np.uint64]]:
    """``(limb, mask)`` pairs covering the bit positions ``lo <= p < hi``."""
    out = []
    for limb in range(lo // 64, -(-hi // 64)):
        a, b = max(lo - 64 * limb, 0), min(hi - 64 * limb, 64)
        if a < b:
            out.append((limb, np.uint64(((1 << (b - a)) - 1) << a)))
    return out


def _sign_bits(rows: np.ndarray, width: int) -> np.ndarray:
    """Bool per row: bit ``width - 1`` is set."""
    top, bit = divmod(width - 1, 64)
    return (rows[:, top] >> np.uint64(bit)) & np.uint64(1) != 0


def sign_extend_rows(rows: np.ndarray, bits: int, width: int) -> np.ndarray:
    """A copy of ``rows`` (values of ``bits`` bits, zero above) with the sign
    bit repeated up to bit ``width - 1`` (``width <= 64 * rows.shape[1]``).

    >>> sign_extend_rows(np.array([[0b1000, 0], [0b0100, 0]], dtype=np.uint64), 4, 66).tolist()
    [[18446744073709551608, 3], [4, 0]]
    """
    out = np.array(rows, dtype=np.uint64)
    if width > bits:
        negative = _sign_bits(out, bits)
        for limb, mask in _bit_masks(bits, width):
            out[negative, limb] |= mask
    return out


def signed_rows(rows: np.ndarray, width: int, bits: int, m: int) -> np.ndarray:
    """``(n, m)`` rows of ``int(bits)`` from ``rows`` holding two's complement
    values of ``width`` bits (zero above): sign-extended when ``width < bits``,
    checked to fit when wider (OverflowError naming the first element that
    does not), cut to ``bits`` bits.

    >>> signed_rows(np.array([[255], [1]], dtype=np.uint64), 8, 4, 4).tolist()
    [[15, 0, 0, 0], [1, 0, 0, 0]]
    >>> signed_rows(np.array([[255], [8]], dtype=np.uint64), 8, 4, 4)
    Traceback (most recent call last):
    ...
    OverflowError: element 1 (8) does not fit in int(4), which holds -2**3 <= x < 2**3; use a wider dtype
    """
    n, k = rows.shape
    out = np.zeros((n, max(m, k)), dtype=np.uint64)
    out[:, :k] = rows
    if width == 0:
        return out[:, :m] * np.uint64(0)
    if width < bits:
        out = sign_extend_rows(out, width, bits)
    elif width > bits and n:
        negative = _sign_bits(out, width)
        masks = _bit_masks(bits - 1, width)
        ones = np.ones(n, dtype=bool)
        zeros = np.ones(n, dtype=bool)
        for limb, mask in masks:
            ones &= out[:, limb] & mask == mask
            zeros &= out[:, limb] & mask == 0
        bad = np.where(negative, ~ones, ~zeros)
        if bad.any():
            i = int(np.argmax(bad))
            raise _signed_range_error(i, limbs_to_signed_ints(out[i : i + 1], width)[0], bits)
    for limb, mask in _bit_masks(bits, 64 * out.shape[1]):
        out[:, limb] &= ~mask
    return np.ascontiguousarray(out[:, :m])
