"""Python's operators on :class:`~futbig.Array`, bound to the operation families.

One table says which function each operator calls; binary operators return
``NotImplemented`` for operands that are none (so Python tries the other
side), and numpy scalars on the left hand their expression to the reflected
operator (``Array.__array_ufunc__ = None``). A new family that brings an
operator adds its line here.

>>> import futbig as fb
>>> a = fb.array([6, 7], bits=64)
>>> (3 * a - 1).to_ints(), (a % 4).to_ints(), divmod(a, 4)[0].to_ints(), (2 < a).tolist()
([17, 20], [2, 3], [1, 1], [True, True])
"""
from __future__ import annotations

from typing import Any, Callable

from . import arithmetic, bitwise, comparison, modular, number
from ._operands import binary
from .ndarray import Array

__all__: list[str] = []

#: Binary operators with a reflected form: ``__name__`` and ``__rname__``.
_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "add": arithmetic.add,
    "sub": arithmetic.subtract,
    "mul": arithmetic.multiply,
    "floordiv": arithmetic.floor_divide,
    "mod": arithmetic.remainder,
    "divmod": arithmetic.divmod,
    "and": bitwise.bitwise_and,
    "or": bitwise.bitwise_or,
    "xor": bitwise.bitwise_xor,
}

#: Comparisons: Python reflects them itself (``5 < a`` is ``a > 5``).
_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": comparison.equal,
    "ne": comparison.not_equal,
    "lt": comparison.less,
    "le": comparison.less_equal,
    "gt": comparison.greater,
    "ge": comparison.greater_equal,
}

#: Operators whose right operand is no array of values (shift counts), and unary ones.
_OTHERS: dict[str, Callable[..., Any]] = {
    "lshift": bitwise.left_shift,
    "rshift": bitwise.right_shift,
    "neg": arithmetic.negative,
    "invert": bitwise.bitwise_not,
    "abs": number.absolute,
}


def _forward(fn: Callable[[Any, Any], Any]) -> Callable[[Array, Any], Any]:
    return lambda self, other: binary(self, other, fn)


def _reflected(fn: Callable[[Any, Any], Any]) -> Callable[[Array, Any], Any]:
    return lambda self, other: binary(other, self, fn)


def _pow(self: Array, exponent: Any, modulo: Any = None) -> Array:
    if modulo is not None:
        return modular.powmod(self, exponent, modulo)
    return arithmetic.power(self, exponent)


def _pos(self: Array) -> Array:
    return self


for _name, _fn in _ARITHMETIC.items():
    setattr(Array, f"__{_name}__", _forward(_fn))
    setattr(Array, f"__r{_name}__", _reflected(_fn))
for _name, _fn in _COMPARISONS.items():
    setattr(Array, f"__{_name}__", _forward(_fn))
for _name, _fn in _OTHERS.items():
    setattr(Array, f"__{_name}__", _fn)
Array.__pow__ = _pow  # type: ignore[method-assign]
Array.bit_length = number.bit_length  # type: ignore[attr-defined]
Array.__pos__ = _pos  # type: ignore[method-assign]
