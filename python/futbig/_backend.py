"""Loading the compiled Futhark backends and the per-process context.

Three backends can be built (by ``build.py`` in a source tree, or by
``setup.py`` when the sdist is installed): ``cuda``, ``multicore`` and ``c``.
Each is a cffi extension ``futbig._ext._futbig_<name>`` (built with
futhark-ffi's builder) that this module drives through Futhark's C API. The
context is created lazily, on first use, once per process: ``cuda`` when it
is built and a CUDA device answers, else ``multicore``, else ``c`` (with a
warning when a CUDA device answers but ``cuda`` is not built). The
environment variable ``FUTBIG_BACKEND`` or :func:`set_backend` chooses one
explicitly.

Device arrays returned by :meth:`Context.call` stay where the backend keeps
them (GPU memory for ``cuda``) until :meth:`Context.to_host` copies them.
Each one keeps its Futhark context alive: the context is freed only after the
last array made in it (see :class:`_Lifetime`), whatever order the
interpreter finalizes objects in at exit.

Errors from Futhark become Python exceptions: a failed allocation (host or
device memory) is a ``MemoryError`` that names the size asked for, anything
else a :class:`BackendError` with Futhark's message. The arguments of a call
that fails are never changed, and the context goes on working.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import re
import threading
import warnings
import weakref
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["BACKENDS", "BackendError", "Context", "available_backends", "backend", "context", "set_backend"]

#: All backends futbig knows, in order of preference.
BACKENDS: tuple[str, ...] = ("cuda", "multicore", "c")

_lock = threading.Lock()
_contexts: dict[str, Context] = {}  # started backends, kept for the process's life
_current: str | None = None


class BackendError(RuntimeError):
    """A backend is not built, or could not be started."""


# How to get a backend that is not built, for error messages.
_HOW_TO_BUILD = {
    "cuda": "the cuda backend is compiled where a CUDA toolkit (cuda.h, nvrtc.h and libnvrtc under $CUDA_HOME, "
            "else /usr/local/cuda) and the driver's libcuda.so.1 are found: install them, then reinstall futbig from "
            "the sdist (pip install --force-reinstall --no-deps --no-binary futbig futbig-<version>.tar.gz), or in a "
            "source tree run `python3 build.py build` (`python3 build.py gpu-ext` on a GPU machine without Futhark)",
    "cpu": "reinstall futbig (pip install --force-reinstall --no-deps futbig-<version>.tar.gz, which needs a C compiler "
           "and Python's headers), or in a source tree run `python3 build.py build`",
}


def _module_name(name: str) -> str:
    return f"futbig._ext._futbig_{name}"


def _is_built(name: str) -> bool:
    try:
        return importlib.util.find_spec(_module_name(name)) is not None
    except ModuleNotFoundError:
        return False


def _cuda_device_answers() -> bool:
    """True when libcuda loads and reports at least one device (cheap, no kernels compiled)."""
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return libcuda.cuInit(0) == 0 and libcuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def available_backends() -> list[str]:
    """The backends built into this installation, best first.

    >>> set(available_backends()) <= {"cuda", "multicore", "c"}
    True
    """
    return [name for name in BACKENDS if _is_built(name)]


def _default_backend() -> str:
    requested = os.environ.get("FUTBIG_BACKEND")
    if requested:
        if requested not in BACKENDS or not _is_built(requested):
            raise BackendError(
                f"FUTBIG_BACKEND={requested!r} names {'no backend' if requested not in BACKENDS else 'a backend that is not built'}; "
                f"set it to one of {', '.join(available_backends()) or 'the built backends (none is built)'}, or unset it"
            )
        return requested
    built = available_backends()
    if not built:
        raise BackendError(f"no futbig backend is built: {_HOW_TO_BUILD['cpu']}")
    if built[0] == "cuda" and not _cuda_device_answers():
        built = built[1:]
    elif built[0] != "cuda" and _cuda_device_answers():
        warnings.warn(f"a CUDA device answers but futbig's cuda backend is not built, so futbig runs on the CPU "
                      f"({built[0]}); {_HOW_TO_BUILD['cuda']}", RuntimeWarning, stacklevel=3)
    if not built:
        raise BackendError("only the cuda backend is built and no CUDA device answers; build the CPU backends")
    return built[0]


def _cache_file(name: str, module: Any) -> str | None:
    """Where NVRTC's compiled kernels are cached, keyed by the extension file's hash."""
    if name != "cuda":
        return None
    so = Path(module.__file__)
    digest = hashlib.sha256(so.read_bytes()).hexdigest()[:16]
    cache_dir = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "futbig"
    cache_dir.mkdir(parents=True, exist_ok=True)
    return str(cache_dir / f"cuda-{digest}.kernels")


def _first_start_notice(cache: str) -> str | None:
    """What to tell the user before NVRTC compiles every kernel of a build that has no cache yet."""
    if Path(cache).exists():
        return None
    return (f"futbig: first start of this cuda build on this machine: NVRTC now compiles its GPU kernels, "
            f"which takes minutes (more than 4 on an H200); later starts read them from {cache}")


# Futhark's C API return codes (futhark.h).
_FUTHARK_OUT_OF_MEMORY = 3
_ALLOCATION = re.compile(r"Failed to allocate memory(?: in (?P<space>[^.]*))?\.\s*Attempted allocation:\s*(?P<size>\d+) bytes"
                         r"(?:\s*Currently allocated:\s*(?P<held>\d+) bytes)?")


def _size(nbytes: int) -> str:
    """``nbytes`` for people: "2147483648 bytes (2.0 GiB)"."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes} bytes ({nbytes / scale:.1f} {unit})"
    return f"{nbytes} bytes"


class _Lifetime:
    """Frees one Futhark context once neither its :class:`Context` nor any array made in it is left.

    Arrays are freed by cffi finalizers (``ffi.gc``), and when the interpreter
    collects a reference cycle or shuts down it runs the finalizers of all the
    objects concerned in no particular order: a context freed by its own
    finalizer can go before arrays that still need it (their ``futhark_free``
    then locks a freed mutex: a hang at exit, or Futhark's memory log printed
    from freed memory). So the context has no finalizer of its own; this
    object counts the live arrays, :meth:`close` marks the context unused,
    and whichever comes last frees it. Nothing here looks up a module global,
    which may already be None while the interpreter shuts down.
    """

    __slots__ = ("_lib", "_ctx", "_cfg", "_live", "_closed", "_lock")

    def __init__(self, lib: Any, ctx: Any, cfg: Any) -> None:
        self._lib, self._ctx, self._cfg = lib, ctx, cfg
        self._live = 0
        self._closed = False
        self._lock = threading.Lock()

    def adopt(self, ffi: Any, pointer: Any, free: Any) -> Any:
        """``pointer`` (a new Futhark array) with a finalizer that frees it and, if last, the context."""
        with self._lock:
            self._live += 1
        return ffi.gc(pointer, functools.partial(self._release, free))

    def _release(self, free: Any, pointer: Any) -> None:
        free(self._ctx, pointer)
        with self._lock:
            self._live -= 1
            last = self._closed and self._live == 0
        if last:
            self._free_context()

    def close(self) -> None:
        """The context will not be used for new work: free it now or after its last array."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            last = self._live == 0
        if last:
            self._free_context()

    def _free_context(self) -> None:
        lib, ctx, cfg = self._lib, self._ctx, self._cfg
        self._ctx = self._cfg = None
        lib.futhark_context_sync(ctx)  # Futhark's rule: nothing may be pending when the context is freed
        lib.futhark_context_free(ctx)
        lib.futhark_context_config_free(cfg)


class _ArrayType:
    """The C functions and the numpy dtype of one Futhark array type, e.g. ``[][]u64``."""

    def __init__(self, lib: Any, ffi: Any, name: str) -> None:
        self.name = name  # "u64_2d"
        elem, rank = name.split("_")
        self.rank = int(rank[:-1])
        self.dtype = np.dtype(("uint" if elem[0] == "u" else "int") + elem[1:])
        self.cdecl = f"struct futhark_{name} *"
        self.new = getattr(lib, f"futhark_new_{name}")
        self.free = getattr(lib, f"futhark_free_{name}")
        self.values = getattr(lib, f"futhark_values_{name}")
        self.values_raw = getattr(lib, f"futhark_values_raw_{name}")
        self.new_raw = getattr(lib, f"futhark_new_raw_{name}")
        self.shape = getattr(lib, f"futhark_shape_{name}")
        self.buffer_type = ffi.typeof(self.new).args[1]  # e.g. "uint64_t *"


class Context:
    """One started backend: its Futhark context and helpers to move data.

    Entry points are called by name with :meth:`call`; numpy arguments are
    copied to the device, device arrays are passed as they are, and results
    come back as device arrays (or Python scalars).
    """

    def __init__(self, name: str) -> None:
        if name not in BACKENDS:
            raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
        if not _is_built(name):
            raise BackendError(
                f"backend {name!r} is not built (built: {', '.join(available_backends()) or 'none'}); "
                f"{_HOW_TO_BUILD['cuda' if name == 'cuda' else 'cpu']}"
            )
        if name == "cuda" and not _cuda_device_answers():
            raise BackendError("backend 'cuda' is built but no CUDA device answers")
        module = importlib.import_module(_module_name(name))
        self.name = name
        self._lib, self._ffi = lib, ffi = module.lib, module.ffi
        # FUTBIG_PROFILE=1 makes the backend time every kernel (see kernel_times).
        self.profiling = os.environ.get("FUTBIG_PROFILE", "") not in ("", "0")
        cfg = lib.futhark_context_config_new()
        if self.profiling:
            lib.futhark_context_config_set_profiling(cfg, 1)
        # Futhark's CUDA backend allocates managed (unified) memory where the GPU supports it, so a
        # batch larger than the GPU spills into host memory until the host's OOM killer ends the
        # process (seen on the H200, 2026-11-23); device memory only gives a MemoryError instead.
        unified = getattr(lib, "futhark_context_config_set_unified_memory", None)
        if unified is not None:
            unified(cfg, 0)
        cache = _cache_file(name, module)
        if cache:
            if notice := _first_start_notice(cache):
                warnings.warn(notice, RuntimeWarning, stacklevel=3)
            lib.futhark_context_config_set_cache_file(cfg, cache.encode())
        self._ctx = lib.futhark_context_new(cfg)
        error = self._error_text()
        if error:
            lib.futhark_context_free(self._ctx)
            lib.futhark_context_config_free(cfg)
            raise BackendError(f"backend {name!r} failed to start: {error}")
        self._lifetime = _Lifetime(lib, self._ctx, cfg)
        weakref.finalize(self, self._lifetime.close)
        self._types = {t.cdecl: t for t in (_ArrayType(lib, ffi, fn[len("futhark_new_"):])
                                            for fn in dir(lib) if re.fullmatch(r"futhark_new_[iu]\d+_\d+d", fn))}
        prefix = "futhark_entry_"
        self._entries = {fn[len(prefix):]: getattr(lib, fn) for fn in dir(lib) if fn.startswith(prefix)}
        self._signatures: dict[str, tuple[list[Any], list[_ArrayType | None]]] = {}

    # Errors ---------------------------------------------------------------

    def _error_text(self) -> str:
        """Futhark's pending error message ("" if none), taken and freed."""
        pointer = self._lib.futhark_context_get_error(self._ctx)
        if pointer == self._ffi.NULL:
            return ""
        text = self._ffi.string(pointer).decode(errors="replace")
        self._lib.free(pointer)
        return text.strip()

    def _fail(self, code: int, what: str) -> Exception:
        """The exception for a failed Futhark call (``code``: its return code, 0 for a NULL result)."""
        text = self._error_text()
        found = _ALLOCATION.search(text)
        if code == _FUTHARK_OUT_OF_MEMORY or found or (code == 0 and not text):
            device = found and found["space"] == "space 'device'" or not found and self.name == "cuda"
            asked = f"{_size(int(found['size']))}" if found else "memory"
            held = f" ({_size(int(found['held']))} held already)" if found and found["held"] else ""
            space = "device memory" if device else "host memory"
            return MemoryError(
                f"futbig backend {self.name!r} ran out of memory in {what}: it could not allocate {asked} in {space}"
                f"{held}; the arguments are unchanged. Free arrays you no longer need (del) or work in smaller batches"
            )
        return BackendError(f"futbig backend {self.name!r} failed in {what}: {text or f'error code {code}'}")

    # Calls ------------------------------------------------------------------

    def _signature(self, entry: str) -> tuple[list[Any], list[_ArrayType | None]]:
        """The output pointer types of ``entry`` and, per input, its array type (None for a scalar)."""
        if entry not in self._signatures:
            outputs, inputs = [], []
            for arg in self._ffi.typeof(self._entries[entry]).args[1:]:
                if arg.kind == "pointer" and arg.item.kind in ("primitive", "pointer"):
                    outputs.append(arg)
                else:
                    inputs.append(self._types.get(arg.cname.replace("const ", "")))
            self._signatures[entry] = (outputs, inputs)
        return self._signatures[entry]

    def call(self, entry: str, *args: Any) -> Any:
        """Call entry point ``entry``; returns a device array, a scalar or a tuple of them.

        Raises ``MemoryError`` when the backend cannot allocate what the call
        needs, :class:`BackendError` on any other failure.
        """
        try:
            fn = self._entries[entry]
        except KeyError:
            raise BackendError(f"backend {self.name!r} has no entry point {entry!r}; rebuild with `python3 build.py build`") from None
        outputs, inputs = self._signature(entry)
        if len(args) != len(inputs):
            raise TypeError(f"entry point {entry!r} takes {len(inputs)} arguments, not {len(args)}")
        ffi = self._ffi
        converted = [a if t is None or isinstance(a, ffi.CData) else self._new_array(t, a, entry)
                     for t, a in zip(inputs, args)]
        out = [ffi.new(t) for t in outputs]
        code = fn(self._ctx, *out, *converted)
        if code != 0:
            raise self._fail(code, f"entry point {entry!r}{_shapes(self, args)}")
        results = []
        for t, o in zip(outputs, out):
            array_type = self._types.get(t.item.cname)
            results.append(self._lifetime.adopt(ffi, o[0], array_type.free) if array_type else o[0])
        return results[0] if len(results) == 1 else tuple(results)

    def _new_array(self, array_type: _ArrayType, data: Any, what: str) -> Any:
        """A numpy array copied into a new device array of ``array_type``."""
        data = np.ascontiguousarray(np.asarray(data).astype(array_type.dtype, copy=False))
        if data.ndim != array_type.rank:
            raise ValueError(f"{what} needs a {array_type.rank}-d array here, not one of shape {data.shape}")
        pointer = array_type.new(self._ctx, self._ffi.cast(array_type.buffer_type, self._ffi.from_buffer(data)), *data.shape)
        if pointer == self._ffi.NULL:
            raise self._fail(0, f"copying a {array_type.dtype.name} array of shape {data.shape} to the device")
        return self._lifetime.adopt(self._ffi, pointer, array_type.free)

    def _type_of(self, device_array: Any) -> _ArrayType:
        try:
            ctype = self._ffi.typeof(device_array)
            array_type = self._types[ctype.cname]
            # Another backend's module has a type of the same name, not this one.
            if ctype is self._ffi.typeof(array_type.cdecl):
                return array_type
        except (KeyError, TypeError, self._ffi.error):
            pass
        raise TypeError(f"{type(device_array).__name__} {device_array!r} is not a device array of backend {self.name!r}")

    def holds(self, device_array: Any) -> bool:
        """Whether ``device_array`` is an array of this backend's program (not a host array, not another backend's)."""
        try:
            self._type_of(device_array)
        except TypeError:
            return False
        return True

    def to_device(self, array: np.ndarray) -> Any:
        """Copy a numpy array to the backend (C order is enforced first)."""
        array = np.asarray(array)
        fut_name = ("u" if array.dtype.kind == "u" else "i") + str(8 * array.dtype.itemsize) + f"_{array.ndim}d"
        array_type = self._types.get(f"struct futhark_{fut_name} *")
        if array_type is None or array.dtype.kind not in "iu":
            raise BackendError(f"the compiled program has no {array.ndim}-d {array.dtype.name} arrays")
        return self._new_array(array_type, array, "to_device")

    def to_host(self, device_array: Any) -> np.ndarray:
        """Copy a device array back into a new numpy array."""
        array_type = self._type_of(device_array)
        result = np.empty(self.shape(device_array), dtype=array_type.dtype)
        code = array_type.values(self._ctx, device_array, self._ffi.cast(array_type.buffer_type, result.ctypes.data))
        if code == 0:
            code = self._lib.futhark_context_sync(self._ctx)
        if code != 0:
            raise self._fail(code, f"copying an array of shape {result.shape} to the host")
        return result

    def raw_address(self, device_array: Any) -> int:
        """The address of a device array's storage (GPU memory under ``cuda``), after
        all queued work is done; valid while ``device_array`` lives. For zero-copy export."""
        array_type = self._type_of(device_array)
        self.sync()
        return int(self._ffi.cast("uintptr_t", array_type.values_raw(self._ctx, device_array)))

    def wrap_raw_u64_2d(self, address: int, n: int, k: int) -> Any:
        """A ``[n][k]u64`` device array over memory at ``address`` (C order, memory the
        backend can read: GPU memory under ``cuda``), not copied and not owned: Futhark
        never frees it. Copy it (an entry such as ``resize``) and sync before the memory goes."""
        array_type = self._types["struct futhark_u64_2d *"]
        buffer_type = self._ffi.typeof(array_type.new_raw).args[1]
        raw = array_type.new_raw(self._ctx, self._ffi.cast(buffer_type, address), n, k)
        if raw == self._ffi.NULL:
            raise self._fail(0, f"wrapping {n} rows of {k} limbs")
        return self._lifetime.adopt(self._ffi, raw, array_type.free)

    def shape(self, device_array: Any) -> tuple[int, ...]:
        """The shape of a device array, without copying it."""
        array_type = self._type_of(device_array)
        cshape = array_type.shape(self._ctx, device_array)
        return tuple(int(cshape[i]) for i in range(array_type.rank))

    def sync(self) -> None:
        """Wait for all queued device work (for timing)."""
        code = self._lib.futhark_context_sync(self._ctx)
        if code != 0:
            raise self._fail(code, "waiting for queued work")

    def kernel_times(self) -> list[tuple[str, int, float]]:
        """Time per kernel since the last call, as ``(name, launches, microseconds)``, longest first.

        Only with ``FUTBIG_PROFILE=1`` in the environment when the backend
        started (otherwise the list is empty): Futhark's profiling report,
        summed by kernel.
        """
        if not self.profiling:
            return []
        self.sync()
        pointer = self._lib.futhark_context_report(self._ctx)
        if pointer == self._ffi.NULL:
            raise self._fail(1, "the profiling report")
        report = self._ffi.string(pointer).decode()
        self._lib.free(pointer)
        totals: dict[str, list] = {}
        for event in json.loads(report).get("events", []):
            entry = totals.setdefault(event["name"], [0, 0.0])
            entry[0] += 1
            entry[1] += float(event["duration"])
        return sorted(((k, n, t) for k, (n, t) in totals.items()), key=lambda e: -e[2])


def _shapes(ctx: Context, args: tuple) -> str:
    """" on arrays of shape (n, m), ..." for an error message (shapes only: nothing is copied)."""
    shapes = []
    for a in args:
        if isinstance(a, np.ndarray):
            shapes.append(str(a.shape))
        elif isinstance(a, ctx._ffi.CData):
            try:
                shapes.append(str(ctx.shape(a)))
            except TypeError:
                pass
    return f" on arrays of shape {', '.join(shapes)}" if shapes else ""


def _started(name: str) -> Context:
    """The context of backend ``name``, started on first use (call with _lock held)."""
    if name not in _contexts:
        _contexts[name] = Context(name)
    return _contexts[name]


def context() -> Context:
    """The process's current backend context, created on first use."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                name = _default_backend()
                _started(name)
                _current = name
    return _contexts[_current]


def backend() -> str:
    """The name of the backend in use (starting it if needed).

    >>> backend() in available_backends()
    True
    """
    return context().name


def set_backend(name: str) -> None:
    """Use backend ``name`` (``"cuda"``, ``"multicore"`` or ``"c"``) from now on.

    Each backend is started once per process and kept, so switching back and
    forth is cheap; arrays belong to the backend that made them and cannot be
    mixed with arrays of another.

    >>> before = backend()
    >>> last = available_backends()[-1]
    >>> set_backend(last); backend() == last
    True
    >>> set_backend(before)
    """
    global _current
    with _lock:
        _started(name)
        _current = name
