"""Protocols that let arrays travel: pickling, DLPack and the CUDA array interface.

- ``pickle``: an array pickles to its dtype and limbs (:meth:`Array.to_limbs`)
  and unpickles onto the receiving process's current backend, so
  multiprocessing and distributed engines can ship arrays.
- ``a.__dlpack__()`` / ``a.__dlpack_device__()``: a zero-copy, read-only
  ``(n, m)`` uint64 view of the stored limbs (``m`` = ``a.device_array``'s
  width, a multiple of 4, the limbs above the value zero; signed values as
  their two's complement modulo ``2**bits``): GPU memory under ``cuda``
  (``cupy.from_dlpack(a)``, ``torch.from_dlpack(a)``), host memory on the CPU
  backends (``numpy.from_dlpack(a)``). Consumers that ask for DLPack 1.0 get
  the read-only flag; older ones get the unversioned capsule and must not
  write. The view keeps ``a`` alive.
- ``a.__cuda_array_interface__`` (``cuda`` only): the same view for CuPy and Numba.
- :func:`from_dlpack`: an array from ``(n, k)`` limbs (stored bits, as
  ``__dlpack__`` gives them) of any DLPack or CUDA-array-interface
  producer, always copied.

Futhark runs its own CUDA context and stream: every export first waits for
all of futbig's queued work, so the consumer may use the memory on any stream.

>>> import pickle, futbig as fb
>>> a = fb.array([-5, 2**70], fb.int(100))
>>> pickle.loads(pickle.dumps(a)).to_ints() == a.to_ints()
True

On a CPU backend (on ``cuda`` the same with ``cupy`` in place of ``np``)::

    view = np.from_dlpack(a)   # (2, 4) uint64, read-only, no copy
    int(view[0, 0]) == 2**64 - 5
    fb.from_dlpack(view, fb.int(100)).to_ints() == a.to_ints()
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import _backend, _kernels
from ._convert import limb_array_to_limbs, storage_limbs
from .creation import array
from .dtypes import BigIntType, as_dtype, uint
from .ndarray import Array, from_host, wrap

__all__ = ["from_dlpack"]

# DLPack's device types (dlpack.h).
_DL_CPU, _DL_CUDA = 1, 2
_DL_UINT = 1
_DL_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY


# --------------------------------------------------------------------------
# Pickling


def _reconstruct(dtype: BigIntType, limbs: np.ndarray) -> Array:
    """An array of ``dtype`` from pickled limbs, on this process's current backend."""
    return dtype.from_limbs(limbs)


def _reduce(self: Array) -> tuple[Any, tuple[BigIntType, np.ndarray]]:
    return _reconstruct, (self.dtype, self.to_limbs())


# --------------------------------------------------------------------------
# DLPack: the structures of dlpack.h, built with ctypes


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


class _DLManagedTensorVersioned(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]
_DLManagedTensorVersioned._fields_ = [
    ("major", ctypes.c_uint32),
    ("minor", ctypes.c_uint32),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", _Deleter),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", _DLTensor),
]


class _Export:
    """What one exported capsule owns: the array (keeping its memory alive) and the structures."""

    def __init__(self, owner: Array, address: int, device: tuple[int, int], shape: tuple[int, int],
                 versioned: bool) -> None:
        self.owner = owner
        self.shape = (ctypes.c_int64 * 2)(*shape)
        self.managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
        tensor = self.managed.dl_tensor
        tensor.data = address or None
        tensor.device = _DLDevice(*device)
        tensor.ndim = 2
        tensor.dtype = _DLDataType(_DL_UINT, 64, 1)
        tensor.shape = self.shape
        tensor.strides = None  # C order
        tensor.byte_offset = 0
        self.managed.deleter = _DELETERS[versioned]
        if versioned:
            self.managed.major, self.managed.minor = 1, 0
            self.managed.flags = _DL_READ_ONLY


_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.Py_IncRef.argtypes = [ctypes.py_object]
_api.Py_DecRef.argtypes = [ctypes.py_object]

# Capsule names: PyCapsule_New keeps the pointer, so they must outlive every capsule.
_NAME = b"dltensor"
_NAME_VERSIONED = b"dltensor_versioned"


def _deleter(layout: type[ctypes.Structure]) -> Any:
    """The DLPack deleter of one layout: drop the reference that kept the export (and the array) alive."""
    offset = layout.manager_ctx.offset

    @_Deleter
    def delete(managed: int) -> None:
        holder = ctypes.cast(ctypes.c_void_p.from_address(managed + offset).value, ctypes.py_object).value
        _api.Py_DecRef(holder)

    return delete


# One deleter per layout (manager_ctx sits at different offsets), kept for the process's life.
_DELETERS = {False: _deleter(_DLManagedTensor), True: _deleter(_DLManagedTensorVersioned)}


_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_Destructor
def _CAPSULE_DESTRUCTOR(capsule: int) -> None:  # noqa: N802
    """Free an export that no consumer took (a consumer renames the capsule to used_...)."""
    for name, versioned in ((_NAME, False), (_NAME_VERSIONED, True)):
        if _api.PyCapsule_IsValid(capsule, name):
            _DELETERS[versioned](_api.PyCapsule_GetPointer(capsule, name))
            return


def _device_ordinal(address: int) -> int:
    """The CUDA device that holds ``address`` (0 when it cannot be told)."""
    if not address:
        return 0
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    ordinal = ctypes.c_int(0)
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
    if libcuda.cuPointerGetAttribute(ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                     ctypes.c_uint64(address)) != 0:
        return 0
    return ordinal.value


def _dlpack_device(self: Array) -> tuple[int, int]:
    """``(device type, device id)`` of the stored limbs: ``(2, ordinal)`` (CUDA) or ``(1, 0)`` (CPU)."""
    if self._ctx.name == "cuda":
        return _DL_CUDA, _device_ordinal(self._ctx.raw_address(self._data))
    return _DL_CPU, 0


def _dlpack(self: Array, *, stream: Any = None, max_version: tuple[int, int] | None = None,
            dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> Any:
    """A DLPack capsule of the ``(n, m)`` uint64 limbs, zero-copy and read-only.

    ``stream`` is accepted and needs nothing: all of futbig's work on the
    array is finished first. ``copy=True`` or another ``dl_device`` is
    refused with BufferError (copy with ``to_limbs()`` instead).
    """
    device = _dlpack_device(self)
    if copy:
        raise BufferError("futbig exports its limbs without copying; for a copy use a.to_limbs()")
    if dl_device is not None and tuple(dl_device) != device:
        raise BufferError(f"the limbs are on DLPack device {device}, not {tuple(dl_device)}; "
                          "for a host copy use a.to_limbs()")
    versioned = max_version is not None and max_version[0] >= 1
    holder = _Export(self, self._ctx.raw_address(self._data), device, (self._n, self._m), versioned)
    _api.Py_IncRef(holder)  # released by the deleter
    holder.managed.manager_ctx = id(holder)
    return _api.PyCapsule_New(ctypes.addressof(holder.managed), _NAME_VERSIONED if versioned else _NAME,
                              ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p))


def _cuda_array_interface(self: Array) -> dict[str, Any]:
    if self._ctx.name != "cuda":
        raise AttributeError(
            f"__cuda_array_interface__ exists only on the cuda backend, not {self._ctx.name!r}; "
            "use numpy.from_dlpack(a) or a.to_limbs()")
    return {
        "shape": (self._n, self._m),
        "typestr": "<u8",
        "data": (self._ctx.raw_address(self._data), True),  # read-only
        "version": 3,
        "strides": None,
        "stream": None,  # synchronised: nothing is pending
    }


# --------------------------------------------------------------------------
# Taking limbs in


def from_dlpack(x: Any, dtype: BigIntType | None = None) -> Array:
    """An array from an ``(n, k)`` uint64 (or uint32) limb array of another library, copied.

    The inverse of ``__dlpack__``: each row holds the stored bits of one
    value, limb 0 the least significant, bits from ``dtype.bits`` up zero
    (else OverflowError naming the element); for ``fb.int`` they are the
    two's complement modulo ``2**bits``, read as they are (for signed limbs
    of another width, such as an int64 column into ``fb.int(128)``, take
    them as ``fb.int(64 * k)`` and :meth:`~Array.astype`; or use
    :meth:`BigIntType.from_limbs`, which reads two's complement of the limbs'
    width). ``dtype`` defaults to ``uint(64 * k)``.

    Host arrays (numpy, or any DLPack producer on the CPU) go through
    :func:`numpy.from_dlpack`. On the ``cuda`` backend, a C-contiguous uint64
    CUDA array with ``__cuda_array_interface__`` (CuPy, PyTorch, Numba) is
    copied on the device, never through the host.

    >>> import futbig as fb
    >>> fb.from_dlpack(np.array([[1, 2]], dtype=np.uint64)).to_ints() == [2**65 + 1]
    True
    """
    if isinstance(x, Array):
        return array(x, dtype)
    device = x.__dlpack_device__()[0] if hasattr(x, "__dlpack_device__") else _DL_CPU
    if hasattr(x, "__cuda_array_interface__") or device == _DL_CUDA:
        return _from_cuda(x, dtype)
    host = np.from_dlpack(x) if hasattr(x, "__dlpack__") else np.asarray(x)
    if host.ndim != 2:
        raise ValueError(f"from_dlpack takes (n, k) limbs, not an array of shape {host.shape}")
    if dtype is None:
        return array(host)
    dtype = as_dtype(dtype)
    return from_host(limb_array_to_limbs(host, dtype.bits, dtype.storage_limbs), dtype)


def _from_cuda(x: Any, dtype: BigIntType | None) -> Array:
    ctx = _backend.context()
    if ctx.name != "cuda":
        raise ValueError(
            f"a CUDA array can be taken on the cuda backend only (the current one is {ctx.name!r}); "
            "copy it to the host first (e.g. cupy.asnumpy(x)) and pass that")
    interface = getattr(x, "__cuda_array_interface__", None)
    if interface is None:
        raise TypeError("from_dlpack takes CUDA arrays through __cuda_array_interface__ (CuPy, PyTorch, Numba); "
                        "this one has none: copy it to the host first")
    shape = tuple(interface["shape"])
    strides = interface.get("strides")
    if len(shape) != 2 or np.dtype(interface["typestr"]) != np.uint64 or \
            strides not in (None, (8 * shape[1], 8)):
        raise ValueError(
            f"from_dlpack takes C-contiguous (n, k) uint64 CUDA arrays, not shape {shape}, "
            f"type {interface['typestr']}, strides {strides}; e.g. pass cupy.ascontiguousarray(x, dtype=cupy.uint64)")
    n, k = shape
    dtype = as_dtype(dtype) if dtype is not None else uint(max(64 * k, 1))
    if k == 0:
        return array(np.zeros((n, 0), dtype=np.uint64), dtype)
    if interface.get("stream") not in (None, 0):
        _cuda_stream_synchronize(interface["stream"])
    m = storage_limbs(max(64 * k, dtype.bits))
    raw = ctx.wrap_raw_u64_2d(interface["data"][0], n, k)
    rows = _kernels.resize(ctx, raw, m, 64 * k)
    ctx.sync()  # the copy is done: the producer's memory is no longer used
    del raw
    if 64 * k > dtype.bits:
        _kernels.raise_on_flags(ctx, _kernels.exceeds(ctx, dtype.bits, rows), lambda i, count: OverflowError(
            f"element {i} has bits set from bit {dtype.bits} up and does not fit in {dtype} "
            f"({count} of {n} elements do not); use a wider dtype"))
    return wrap(rows, n, dtype, m, ctx)


def _cuda_stream_synchronize(stream: int) -> None:
    """Wait for the producer's stream (``__cuda_array_interface__`` version 3's ``stream``:
    1 and 2 are the driver's CU_STREAM_LEGACY and CU_STREAM_PER_THREAD handles as they are)."""
    libcuda = ctypes.CDLL("libcuda.so.1")
    code = libcuda.cuStreamSynchronize(ctypes.c_void_p(stream))
    if code != 0:  # e.g. no context current in this thread: wait for all of the current one instead
        code = libcuda.cuCtxSynchronize()
    if code != 0:
        raise RuntimeError(f"could not wait for the producer's CUDA stream {stream:#x} (CUDA error {code}); "
                           "synchronise it before calling from_dlpack")


Array.__reduce__ = _reduce  # type: ignore[method-assign, assignment]
Array.__dlpack__ = _dlpack  # type: ignore[attr-defined]
Array.__dlpack_device__ = _dlpack_device  # type: ignore[attr-defined]
Array.__cuda_array_interface__ = property(_cuda_array_interface)  # type: ignore[attr-defined]
