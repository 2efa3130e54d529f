"""Modular arithmetic: ``mod_add``, ``mod_sub``, ``mod_mul``, ``mod_sqr``, ``powmod``
(and ``pow(a, e, m)``), ``gcd``, ``modinv`` and the :class:`Montgomery` form.

The modulus ``m`` is a Python int (one modulus for the whole batch: its
constants are computed once) or an array (one per instance). Results lie in
``[0, m)``; inputs may be ``>= m`` (they are reduced first); ``m = 1`` gives 0;
a zero modulus is a ZeroDivisionError naming the first such index. Odd
moduli multiply by Montgomery's method, even ones by full products and long
division; every instance runs in one thread, except that on the GPU wide odd
moduli multiply whole batches by the multiplication ladder
(lib/github.com/futbig/futbig/modular.fut, docs/modular.md). Unsigned dtypes only.

>>> import futbig as fb
>>> a = fb.array([3, 10**30, 7], bits=128)
>>> fb.powmod(a, 65537, 2**127 - 1).to_ints() == [pow(x, 65537, 2**127 - 1) for x in a.to_ints()]
True
>>> pow(a, 2, 1000).to_ints(), fb.mod_mul(a, a, 1000).to_ints()
([9, 0, 49], [9, 0, 49])
>>> fb.gcd(a, 12).to_ints(), fb.modinv(a, 1000, errors="zero").to_ints()
([3, 4, 1], [667, 0, 143])
"""
from __future__ import annotations

import operator
from typing import Any, Callable

from . import _kernels
from ._convert import ints_to_limbs
from ._operands import _broadcast, align, operand, operand_kind
from .arithmetic import remainder
from .creation import array
from .dtypes import BigIntType, uint
from .ndarray import Array, check_same_context

__all__ = ["Montgomery", "gcd", "mod", "mod_add", "mod_mul", "mod_sqr", "mod_sub", "modinv", "powmod"]

Device = Any


def mod(a: Any, m: Any) -> Array:
    """``a % m``, exact (the same as :func:`futbig.remainder`); ZeroDivisionError names the first zero modulus.

    >>> import futbig as fb
    >>> fb.mod(fb.array([10, 2**100], bits=128), 7).to_ints() == [3, 2**100 % 7]
    True
    """
    return remainder(a, m)


def mod_add(a: Any, b: Any, m: Any) -> Array:
    """``(a + b) % m``, computed without a wider type.

    >>> import futbig as fb
    >>> fb.mod_add(fb.array([5, 2**64 - 1], bits=64), 9, 2**64 - 1).to_ints()
    [14, 9]
    """
    return _binary("mod_add", _kernels.mod_add, a, b, m)


def mod_sub(a: Any, b: Any, m: Any) -> Array:
    """``(a - b) % m``, in ``[0, m)`` (Python's sign convention).

    >>> import futbig as fb
    >>> fb.mod_sub(fb.array([5, 20], bits=64), 9, 11).to_ints()
    [7, 0]
    """
    return _binary("mod_sub", _kernels.mod_sub, a, b, m)


def mod_mul(a: Any, b: Any, m: Any) -> Array:
    """``a * b % m``: Montgomery products for odd ``m``, a full product and long division for even ``m``.

    >>> import futbig as fb
    >>> fb.mod_mul(fb.array([2**100, 3], bits=128), 2**90, 2**127 - 1).to_ints() == [
    ...     2**190 % (2**127 - 1), 3 * 2**90]
    True
    """
    return _binary("mod_mul", _kernels.mod_mul, a, b, m, one_odd=_one_odd(m))


def mod_sqr(a: Any, m: Any) -> Array:
    """``a * a % m``.

    >>> import futbig as fb
    >>> fb.mod_sqr(fb.array([12, 13], bits=64), 10).to_ints()
    [4, 9]
    """
    return _binary("mod_sqr", _kernels.mod_mul, a, a, m, one_odd=_one_odd(m))


def powmod(a: Any, e: Any, m: Any) -> Array:
    """``a ** e % m`` per instance, like Python's ``pow(a, e, m)`` (also reached as
    ``pow(array, e, m)``).

    ``e`` is a Python int (one exponent for the batch) or an unsigned array
    (one per instance, any width); a negative int exponent raises the inverse
    (:func:`modinv`) to ``-e``. Fixed-window exponentiation, the window from
    the longest exponent; Montgomery products for odd ``m``.

    >>> import futbig as fb
    >>> a = fb.array([2, 3, 4], bits=64)
    >>> fb.powmod(a, 10, 1000).to_ints(), fb.powmod(a, [0, 1, 2], 7).to_ints()
    ([24, 49, 576], [1, 3, 2])
    >>> fb.powmod(a, -1, 7).to_ints(), fb.powmod(a, 5, [1, 2, 3]).to_ints(), fb.powmod(3, a, 10).to_ints()
    ([4, 5, 2], [0, 1, 1], [9, 7, 1])
    """
    if operand_kind(e) == "scalar":
        k = operator.index(e)
        if k < 0:
            return powmod(modinv(a, m), -k, m)
        a, mods, _ = _arrays("powmod", a, m)
        ctx = a._ctx
        me = max(4, -(-max(k.bit_length(), 1) // 256) * 4)
        e_dev = ctx.to_device(ints_to_limbs([k], 64 * me, me))
    else:
        if not isinstance(a, Array) and not isinstance(m, Array):
            # Only the exponents are an array: the base as an array wide enough for it and the modulus.
            kinds = [operator.index(x).bit_length() for x in (a, m) if operand_kind(x) == "scalar"]
            a = array([a] if operand_kind(a) == "scalar" else a, uint(64 * max(1, -(-max(kinds + [1]) // 64))))
        a, mods, _ = _arrays("powmod", a, m)
        ea = e if isinstance(e, Array) else array(e)
        check_same_context(a, ea)
        _check_unsigned("powmod", ea.dtype)
        if ea._n not in (1, a._n):
            if a._n != 1:
                raise ValueError(f"powmod: operands could not be broadcast together with shapes {a.shape} {ea.shape}")
            a = _broadcast(a, ea._n)  # then the moduli are one row too
        ctx = a._ctx
        e_dev = ea._data
    result, zero = _kernels.powmod(ctx, a._data, e_dev, mods, one_odd=_one_odd(m))
    _raise_zero(ctx, zero, a._n, m)
    return a._like(result)


def gcd(a: Any, b: Any) -> Array:
    """The greatest common divisor per instance (Bernstein-Yang division steps); ``gcd(0, 0) = 0``, like ``gmpy2.gcd``.

    >>> import futbig as fb
    >>> fb.gcd(fb.array([12, 0, 0, 2**80], bits=128), [18, 5, 0, 6**30]).to_ints() == [6, 5, 0, 2**30]
    True
    """
    a, b, _ = _arrays("gcd", a, b)
    return a._like(_kernels.gcd(a._ctx, a._data, b._data))


def modinv(a: Any, m: Any, errors: str = "raise") -> Array:
    """The inverse ``x`` in ``[0, m)`` with ``a * x % m == 1 % m`` (``m`` need not be prime).

    Where none exists (``gcd(a, m) != 1``) a ValueError names the first such
    index and how many there are; ``errors="zero"`` gives 0 there instead,
    so that the rest of the batch is kept. For ``m = 1`` the inverse is 0.

    >>> import futbig as fb
    >>> fb.modinv(fb.array([3, 7], bits=64), 10).to_ints()
    [7, 3]
    >>> fb.modinv(fb.array([3, 4, 6], bits=64), 10)
    Traceback (most recent call last):
    ...
    ValueError: modinv: 4 has no inverse modulo the modulus at index 1 (2 of 3 instances are not invertible); errors='zero' gives 0 there
    >>> fb.modinv(fb.array([3, 4, 6], bits=64), 10, errors="zero").to_ints()
    [7, 0, 0]
    """
    if errors not in ("raise", "zero"):
        raise ValueError(f"errors must be 'raise' or 'zero', not {errors!r}")
    a, mods, _ = _arrays("modinv", a, m)
    ctx = a._ctx
    result, zero, none = _kernels.modinv(ctx, a._data, mods)
    _raise_zero(ctx, zero, a._n, m)
    if errors == "raise":
        def error(i: int, count: int) -> Exception:
            value = a[i]
            return ValueError(
                f"modinv: {value} has no inverse modulo the modulus at index {i} "
                f"({count} of {a._n} instances are not invertible); errors='zero' gives 0 there")
        _kernels.raise_on_flags(ctx, none, error)
    return a._like(result)


class Montgomery:
    """Arithmetic modulo one odd ``m`` on values kept in Montgomery form ``x * R % m``,
    ``R = 2**(64 * dtype.storage_limbs)``: a chain of products pays the conversions once.

    ``dtype`` (default: the narrowest ``uint`` holding ``m``) fixes ``R``;
    forms are arrays of that dtype, in ``[0, m)``.

    >>> import futbig as fb
    >>> M = fb.Montgomery(2**127 - 1)
    >>> x = M.to_mont(fb.array([3, 2**100], bits=128))
    >>> y = M.mul(M.mul(x, x), x)
    >>> M.from_mont(y).to_ints() == [27, 2**300 % (2**127 - 1)]
    True
    """

    def __init__(self, m: int, dtype: BigIntType | None = None) -> None:
        if operand_kind(m) != "scalar":
            raise TypeError(f"Montgomery takes one modulus, a Python int, not {type(m).__name__}")
        m = operator.index(m)
        if m <= 0 or m % 2 == 0:
            raise ValueError(f"Montgomery needs an odd modulus > 0, not {m}; use fb.mod_mul for even moduli")
        self.modulus = m
        self.dtype = dtype if dtype is not None else uint(max(64, -(-m.bit_length() // 64) * 64))
        _check_unsigned("Montgomery", self.dtype)
        if m > self.dtype.max:
            raise ValueError(f"the modulus {m} does not fit {self.dtype}")

    def __repr__(self) -> str:
        return f"Montgomery({self.modulus}, {self.dtype})"

    def _operand(self, x: Any) -> Array:
        if isinstance(x, Array):
            return x if x.dtype == self.dtype else x.astype(self.dtype)
        return array(x, self.dtype)

    def _mods(self, x: Array) -> Device:
        return x._ctx.to_device(ints_to_limbs([self.modulus], self.dtype.bits, x._m))

    def to_mont(self, x: Any) -> Array:
        """The Montgomery forms ``(x % m) * R % m`` (``x`` may be ``>= m``)."""
        x = self._operand(x)
        return x._like(_kernels.to_mont(x._ctx, x._data, self._mods(x)))

    def from_mont(self, x: Array) -> Array:
        """The values ``x / R % m`` of Montgomery forms ``x < m``."""
        x = self._operand(x)
        return x._like(_kernels.from_mont(x._ctx, x._data, self._mods(x)))

    def mul(self, x: Array, y: Any) -> Array:
        """The Montgomery form of the product: ``x * y / R % m`` for forms ``x, y < m``."""
        x, y, _ = align(self._operand(x), y, "Montgomery.mul")
        return x._like(_kernels.mont_mul(x._ctx, x._data, y._data, self._mods(x)))

    def sqr(self, x: Array) -> Array:
        """The Montgomery form of the square, ``x * x / R % m``."""
        return self.mul(x, x)


# --------------------------------------------------------------------------
# Operands


def _check_unsigned(what: str, dtype: BigIntType) -> None:
    if dtype.signed:
        raise TypeError(f"{what} takes unsigned arrays, not {dtype}; convert with astype(fb.uint(bits))")


def _arrays(what: str, *xs: Any) -> tuple[Any, ...]:
    """The values (all but the last of ``xs``) as arrays of one length, width and dtype,
    the last as device rows of moduli (one row for a scalar or a length-1 array),
    and the common dtype; for ``gcd`` the last is a value like the others.

    A scalar modulus must be > 0 (0 raises ZeroDivisionError) and fit the dtype.
    """
    like = next((x for x in xs if isinstance(x, Array)), None)
    if like is None:
        raise TypeError(f"{what} needs at least one futbig array, got {', '.join(type(x).__name__ for x in xs)}")
    modulus = xs[-1] if what != "gcd" else None
    values = list(xs if what == "gcd" else xs[:-1])
    scalar_modulus = modulus is not None and operand_kind(modulus) == "scalar"
    arrays = [operand(x, like, what) for x in values]
    if modulus is not None and not scalar_modulus:
        arrays.append(operand(modulus, like, what))
    for x in arrays:
        check_same_context(like, x)
    dtype = arrays[0].dtype
    for x in arrays[1:]:
        dtype = dtype.result_type(x.dtype)
    _check_unsigned(what, dtype)
    n = max(x._n for x in arrays)
    if any(x._n not in (1, n) for x in arrays):
        raise ValueError(f"{what}: operands could not be broadcast together with shapes "
                         f"{' '.join(str(x.shape) for x in arrays)}")
    width = max([x._m for x in arrays] + [dtype.storage_limbs])

    def fit(x: Array, spread: bool) -> Array:
        if x._m != width or x.dtype != dtype:
            x = x._like(x.dtype._extend(x, width, dtype.bits), dtype, width)
        return _broadcast(x, n) if spread and x._n != n else x

    if modulus is None:
        return (*[fit(x, True) for x in arrays], dtype)
    if scalar_modulus:
        p = operator.index(modulus)
        if p == 0:
            raise ZeroDivisionError(f"{what}: the modulus is the scalar 0")
        if p < 0 or p > dtype.max:
            raise ValueError(f"{what}: the modulus {p} does not fit {dtype} (convert the operands with astype)")
        mods = like._ctx.to_device(ints_to_limbs([p], dtype.bits, width))
        return (*[fit(x, True) for x in arrays], mods, dtype)
    *vals, m_arr = arrays
    # A length-1 modulus array stays one row: the kernels then compute its constants once.
    return (*[fit(x, True) for x in vals], fit(m_arr, False)._data, dtype)


def _raise_zero(ctx: Any, zero: Device, n: int, m: Any) -> None:
    """ZeroDivisionError for the first zero modulus among the flags ``zero``. A scalar
    modulus ``m`` was checked on the host (``_arrays``): its flags are not read, so that
    the call does not wait for the device (a reduction and a read, about 35 us per
    batch on an H100)."""
    if operand_kind(m) == "scalar":
        return
    _kernels.raise_on_flags(ctx, zero, lambda i, count: ZeroDivisionError(
        f"division by zero: the modulus at index {i} is 0 ({count} of {n} moduli are zero)"))


def _one_odd(m: Any) -> bool:
    """Whether the modulus ``m`` is one odd Python int (then the kernels need not check it on the device)."""
    return operand_kind(m) == "scalar" and operator.index(m) % 2 == 1


def _binary(what: str, kernel: Callable[..., tuple[Device, Device]], a: Any, b: Any, m: Any, **options: Any) -> Array:
    a, b, mods, _ = _arrays(what, a, b, m)
    result, zero = kernel(a._ctx, a._data, b._data, mods, **options)
    _raise_zero(a._ctx, zero, a._n, m)
    return a._like(result)
