"""futbig: exact batched big-integer arithmetic on GPUs and CPUs, written in Futhark.

>>> import futbig as fb
>>> a = fb.array([3**60, 5**30, 7], bits=256)
>>> b = fb.array([2**70 + 1, 3, 2], bits=256)
>>> c = (a * b + a) // (b | 1)
>>> c.to_ints() == [(x * y + x) // (y | 1) for x, y in zip(a.to_ints(), b.to_ints())]
True
>>> c.dtype, c.device in fb.available_backends()
(uint(256), True)
"""
from ._backend import BackendError, available_backends, backend, set_backend
from .array import (
    Array,
    BigIntType,
    add,
    array,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    compare,
    concatenate,
    divmod,
    equal,
    floor_divide,
    frombytes,
    full,
    greater,
    greater_equal,
    invert,
    left_shift,
    less,
    less_equal,
    mul,
    mul_full,
    multiply,
    negative,
    not_equal,
    power,
    remainder,
    right_shift,
    square,
    sub,
    subtract,
    uint,
    zeros,
)

__all__ = [
    "Array",
    "BackendError",
    "BigIntType",
    "add",
    "array",
    "available_backends",
    "backend",
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
    "set_backend",
    "square",
    "sub",
    "subtract",
    "uint",
    "zeros",
]
