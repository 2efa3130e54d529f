"""Two's complement on the device, composed from the unsigned entry points.

A value of ``int(bits)`` is stored as its two's complement modulo
``2**bits``: the rows of an unsigned value, so ``+ - * << & | ^ ~`` and
negation are the unsigned kernels unchanged. What differs is built here from
them, without kernels of its own:

- the sign: bit ``bits - 1`` (``right_shift``), and the mask that is all
  ones for negative values (its negation);
- negating where a mask is set: ``(x ^ mask) - mask``;
- sign extension to a wider width: the mask shifted above the old width, or'ed in;
- comparison: the unsigned comparison, reversed where the signs differ;
- arithmetic right shift: the logical shift with the sign mask shifted in from the top;
- floor division: the unsigned division of the magnitudes, then the
  quotient negated and the remainder moved to the divisor's side where the
  signs differ and the remainder is nonzero (Python's ``//`` and ``%``);
- the exact signed product: the unsigned product of the bit patterns less
  ``2**bits * (b if a < 0) + 2**bits * (a if b < 0)``.

Each function takes the backend context first and ``[n][m]u64`` device
arrays after, like :mod:`futbig._kernels`, and returns device arrays (or a
host int8 array for comparisons). Fused kernels could replace the longer
compositions (division runs about twenty light passes besides the
unsigned division); the compositions are exact and keep the entry-point
list unchanged. Where no operand holds a negative value (checked on the
device: one pass and two scalars back), division, the exact product and
``>>`` skip the sign handling and are the unsigned operations.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _kernels
from ._backend import Context
from ._convert import storage_limbs

Device = Any  # an opaque array owned by the backend context

__all__ = [
    "add_overflows",
    "any_negative",
    "compare",
    "constant",
    "floor_divmod",
    "floor_divmod_limb",
    "mul_full",
    "negate_where",
    "outside",
    "shift_right",
    "sign",
    "sign_bit",
    "sign_extend",
    "sign_mask",
    "sub_overflows",
    "unsigned_sign",
]


def constant(ctx: Context, value: int, n: int, m: int) -> Device:
    """``n`` rows of ``m`` limbs holding the non-negative ``value`` (one row uploaded, copied on the device)."""
    row = np.frombuffer(value.to_bytes(8 * m, "little"), dtype="<u8").astype(np.uint64).reshape(1, m)
    return _kernels.broadcast(ctx, ctx.to_device(row), n)


def any_negative(ctx: Context, bits: int, *xs: Device) -> bool:
    """Whether any row of the arrays ``xs`` is negative."""
    return any(_kernels.count_flags(ctx, _kernels.exceeds(ctx, bits - 1, x)) for x in xs)


def sign_bit(ctx: Context, bits: int, x: Device) -> Device:
    """Rows of 1 where ``x`` is negative, 0 elsewhere."""
    return _kernels.right_shift(ctx, bits - 1, x)


def sign_mask(ctx: Context, bits: int, x: Device) -> Device:
    """Rows of ``2**bits - 1`` (that is, -1) where ``x`` is negative, 0 elsewhere."""
    return _kernels.neg(ctx, bits, sign_bit(ctx, bits, x))


def negate_where(ctx: Context, bits: int, x: Device, mask: Device) -> Device:
    """``-x`` where ``mask`` is all ones, ``x`` where it is 0 (modulo ``2**bits``)."""
    return _kernels.sub(ctx, bits, _kernels.bit_xor(ctx, x, mask), mask)[0]


def sign_extend(ctx: Context, x: Device, bits: int, width: int, m: int) -> Device:
    """Rows of ``bits``-bit two's complement values as ``width``-bit ones in ``m`` limbs (``width >= bits``)."""
    if ctx.shape(x)[1] != m:
        x = _kernels.resize(ctx, x, m, bits)
    if width == bits:
        return x
    high = _kernels.left_shift(ctx, width, bits, _kernels.neg(ctx, width, sign_bit(ctx, bits, x)))
    return _kernels.bit_or(ctx, x, high)


def compare(ctx: Context, bits: int, a: Device, b: Device) -> np.ndarray:
    """``[n]`` int8 of -1/0/1 on the host: the signed comparison of ``a`` and ``b``."""
    unsigned = _kernels.cmp(ctx, a, b)
    neg_a = ctx.to_host(_kernels.exceeds(ctx, bits - 1, a)) != 0
    neg_b = ctx.to_host(_kernels.exceeds(ctx, bits - 1, b)) != 0
    return np.where(neg_a == neg_b, unsigned, np.where(neg_a, -1, 1)).astype(np.int8)


def shift_right(ctx: Context, bits: int, counts: int | np.ndarray, x: Device) -> Device:
    """``x >> counts``, arithmetic (rounds toward minus infinity); counts ``>= bits - 1`` give 0 or -1."""
    if not any_negative(ctx, bits, x):
        return _kernels.right_shift(ctx, counts, x)
    if isinstance(counts, int):
        counts = min(counts, bits - 1)
    else:
        counts = np.minimum(counts, bits - 1)
    logical = _kernels.right_shift(ctx, counts, x)
    fill = _kernels.left_shift(ctx, bits, bits - counts, sign_mask(ctx, bits, x))
    return _kernels.bit_or(ctx, logical, fill)


def sign(ctx: Context, bits: int, x: Device) -> Device:
    """-1, 0 or 1 per row: ``x``'s sign."""
    positive = sign_bit(ctx, bits, _kernels.neg(ctx, bits, x))  # -x is negative exactly when x > 0 (or x is min)
    return _kernels.bit_or(ctx, sign_mask(ctx, bits, x), positive)


def _floor_fixup(ctx: Context, bits: int, q0: Device, r0: Device, differ: Device,
                 divisor_negative: Device | None, divisor_magnitude: Device) -> tuple[Device, Device]:
    """Python's floor quotient and remainder from those of the magnitudes.

    Where the signs differ and the remainder is nonzero, ``q = -q0 - 1`` and
    the remainder is ``|b| - r0``; the remainder then takes the divisor's sign.
    ``r0 < |b| <= 2**(bits-1)``, so ``-r0`` is negative exactly when ``r0 != 0``.
    """
    inexact = _kernels.bit_and(ctx, differ, sign_mask(ctx, bits, _kernels.neg(ctx, bits, r0)))
    q = _kernels.add(ctx, bits, negate_where(ctx, bits, q0, differ), inexact)[0]
    r = _kernels.add(ctx, bits, negate_where(ctx, bits, r0, inexact),
                     _kernels.bit_and(ctx, inexact, divisor_magnitude))[0]
    if divisor_negative is not None:
        r = negate_where(ctx, bits, r, divisor_negative)
    return q, r


def floor_divmod(ctx: Context, bits: int, a: Device, b: Device) -> tuple[Device, Device, Device]:
    """``(a // b, a % b, zero [n]u8)`` rounding toward minus infinity (``min // -1`` wraps to ``min``)."""
    if not any_negative(ctx, bits, a, b):
        return _kernels.divmod(ctx, a, b)
    neg_a, neg_b = sign_mask(ctx, bits, a), sign_mask(ctx, bits, b)
    mag_a, mag_b = negate_where(ctx, bits, a, neg_a), negate_where(ctx, bits, b, neg_b)
    q0, r0, zero = _kernels.divmod(ctx, mag_a, mag_b)
    q, r = _floor_fixup(ctx, bits, q0, r0, _kernels.bit_xor(ctx, neg_a, neg_b), neg_b, mag_b)
    return q, r, zero


def floor_divmod_limb(ctx: Context, bits: int, a: Device, k: int) -> tuple[Device, Device]:
    """``(a // k, a % k)`` for one scalar ``0 < k < 2**min(64, bits-1)``, through ``divmod_limb``."""
    if not any_negative(ctx, bits, a):
        return _kernels.divmod_limb(ctx, a, k)
    n, m = ctx.shape(a)
    neg_a = sign_mask(ctx, bits, a)
    q0, r0 = _kernels.divmod_limb(ctx, negate_where(ctx, bits, a, neg_a), k)
    return _floor_fixup(ctx, bits, q0, r0, neg_a, None, constant(ctx, k, n, m))


def mul_full(ctx: Context, bits: int, a: Device, b: Device, same: bool) -> Device:
    """The exact signed products as ``2*bits``-bit two's complement in ``2m`` limbs.

    With ``A``, ``B`` the bit patterns and ``s`` the signs, ``a*b = A*B -
    2**bits*(s_a*B + s_b*A) (mod 2**(2*bits))``: the unsigned full product
    and a correction of linear cost.
    """
    if not any_negative(ctx, bits, *((a,) if same else (a, b))):
        return _kernels.sqr_full(ctx, a) if same else _kernels.mul_full(ctx, a, b)
    m2 = 2 * ctx.shape(a)[1]
    wide = 2 * bits
    if same:
        product = _kernels.sqr_full(ctx, a)
        part = _kernels.bit_and(ctx, a, sign_mask(ctx, bits, a))
        correction = _kernels.left_shift(ctx, wide, bits + 1, _kernels.resize(ctx, part, m2, bits))
    else:
        product = _kernels.mul_full(ctx, a, b)
        part_a = _kernels.resize(ctx, _kernels.bit_and(ctx, b, sign_mask(ctx, bits, a)), m2, bits)
        part_b = _kernels.resize(ctx, _kernels.bit_and(ctx, a, sign_mask(ctx, bits, b)), m2, bits)
        correction = _kernels.left_shift(ctx, wide, bits, _kernels.add(ctx, wide, part_a, part_b)[0])
    return _kernels.sub(ctx, wide, product, correction)[0]


def outside(ctx: Context, x: Device, width: int, bits: int) -> Device:
    """``[n]u8`` flags of the rows of ``width``-bit two's complement values that ``int(bits)`` cannot hold.

    ``x`` fits exactly when ``x + 2**(bits-1)`` (modulo ``2**width``) is below ``2**bits``.
    """
    n, m = ctx.shape(x)
    if width <= bits:
        return _kernels.exceeds(ctx, 64 * m, x)  # all zero
    shifted = _kernels.add(ctx, width, x, constant(ctx, 1 << (bits - 1), n, m))[0]
    return _kernels.exceeds(ctx, bits, shifted)


def add_overflows(ctx: Context, bits: int, a: Device, b: Device, total: Device) -> Device:
    """``[n]u8`` flags where ``a + b`` left the signed range: both operands' signs differ from the sum's."""
    both = _kernels.bit_and(ctx, _kernels.bit_xor(ctx, a, total), _kernels.bit_xor(ctx, b, total))
    return _kernels.exceeds(ctx, bits - 1, both)


def sub_overflows(ctx: Context, bits: int, a: Device, b: Device, difference: Device) -> Device:
    """``[n]u8`` flags where ``a - b`` left the signed range: the operands' signs differ,
    and ``a``'s differs from the result's."""
    both = _kernels.bit_and(ctx, _kernels.bit_xor(ctx, a, b), _kernels.bit_xor(ctx, a, difference))
    return _kernels.exceeds(ctx, bits - 1, both)


def unsigned_sign(ctx: Context, bits: int, x: Device) -> Device:
    """Rows of 1 where the unsigned ``x`` is nonzero, 0 elsewhere.

    In one more bit, ``-x`` has its top bit set exactly when ``x != 0``.
    """
    m = ctx.shape(x)[1]
    wider = max(m, storage_limbs(bits + 1))
    y = _kernels.resize(ctx, x, wider, bits) if wider != m else x
    s = _kernels.right_shift(ctx, bits, _kernels.neg(ctx, bits + 1, y))
    return _kernels.resize(ctx, s, m, bits) if wider != m else s
