"""futbig: exact batched big-integer arithmetic on GPUs and CPUs, written in Futhark.

>>> import futbig as fb
>>> a = fb.array([3**60, 5**30, 7], bits=256)
>>> b = fb.array([2**70 + 1, 3, 2], bits=256)
>>> c = (a * b + a) // (b | 1)
>>> c.to_ints() == [(x * y + x) // (y | 1) for x, y in zip(a.to_ints(), b.to_ints())]
True
>>> c.dtype, c.device in fb.available_backends()
(uint(256), True)

The package is laid out along its seams (docs/architecture.md):
:mod:`~futbig.dtypes` (the types and the hooks that give bits a meaning),
:mod:`~futbig.ndarray` (the array), :mod:`~futbig.creation`,
:mod:`~futbig._operands` (coercion, broadcasting, promotion), one module per
family of operations (:mod:`~futbig.arithmetic`, :mod:`~futbig.bitwise`,
:mod:`~futbig.comparison`), and :mod:`~futbig._kernels`, the one module that
calls the Futhark entry points. Every public name is importable from
``futbig`` itself.
"""
import builtins as _builtins

from ._backend import BackendError, available_backends, backend, set_backend
from .arithmetic import (
    add,
    divmod,
    floor_divide,
    mul,
    mul_full,
    multiply,
    negative,
    power,
    remainder,
    square,
    sub,
    subtract,
)
from .bitwise import bitwise_and, bitwise_not, bitwise_or, bitwise_xor, invert, left_shift, right_shift
from .comparison import compare, equal, greater, greater_equal, less, less_equal, not_equal
from .creation import array, concatenate, frombytes, full, zeros
from .dtypes import BigIntType, uint
from .signed import int
from .ndarray import Array
from .modular import Montgomery, gcd, mod, mod_add, mod_mul, mod_sqr, mod_sub, modinv, powmod
from .number import (
    abs,
    absolute,
    argsort,
    bit_length,
    isqrt,
    max,
    maximum,
    min,
    minimum,
    popcount,
    prod,
    sign,
    sort,
    sum,
    where,
)
from .protocols import from_dlpack
from . import _operators  # noqa: F401  (binds Array's operators)

#: Public names. Those that share a builtin's name (``divmod``, ``int``, ``abs``,
#: ``min``, ``max``, ``sum``) are reachable as ``fb.int`` and so on but left
#: out, so that ``from futbig import *`` does not shadow the builtins.
__all__ = sorted(
    name
    for name in [
        "abs", "absolute", "add", "argsort", "Array", "array", "available_backends", "backend", "BackendError",
        "BigIntType", "bit_length", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "compare",
        "concatenate", "divmod", "equal", "floor_divide", "from_dlpack", "frombytes", "full", "gcd", "greater",
        "greater_equal", "int", "invert", "isqrt", "left_shift", "less", "less_equal", "max", "maximum", "min",
        "minimum", "mod", "mod_add", "mod_mul", "mod_sqr", "mod_sub", "modinv", "Montgomery", "mul", "mul_full",
        "multiply", "negative", "not_equal", "popcount", "power", "powmod", "prod", "remainder",
        "right_shift", "set_backend", "sign", "sort", "square", "sub", "subtract", "sum", "uint", "where", "zeros",
    ]
    if not hasattr(_builtins, name)
)
