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
from . import array as _array
from ._backend import BackendError, available_backends, backend, set_backend
from .array import *  # noqa: F401,F403  (the public names are array.__all__)

__all__ = [*_array.__all__, "BackendError", "available_backends", "backend", "set_backend"]
