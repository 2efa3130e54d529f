#!/usr/bin/env bash
# One command on the GPU machine: build the CUDA extension from the C that
# `python3 build.py gpu` generated, run the test suite on cuda, then the
# benchmark. Logs and results go to $OUT (or ./gpu-out). See docs/gpu.md.
#
#   bash tools/gpu_run.sh [tests|bench|futhark-test|futhark-bench|fuzz|sdist|all] [pytest, bench, futhark bench or fuzz args...]
#
# futhark-test runs the `futhark test` specs (lib/github.com/futbig/futbig/*_tests.fut, or
# the files given) with the cuda backend, with the compiler that
# `python3 build.py gpu` packed, and
# futhark-bench runs `futhark bench` on the programs given the same way. fuzz
# runs `python -m futbig fuzz` once per operation, in parallel over the cores
# (FUZZ_OPS="add mul ..." picks the operations). sdist installs the sdist
# that `build.py gpu` packed into a fresh venv, as a user would (setup.py
# compiles `cuda` beside `c` and `multicore`), and runs the installed
# package's tests on cuda.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}; shift || true
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
export PYTHONUNBUFFERED=1
[ -d /tmp/futbig-site/futhark_ffi ] ||  # once per machine
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/futbig-site .gpu/wheels/*.whl || { echo "wheel install failed"; exit 1; }
export PYTHONPATH=/tmp/futbig-site:$PWD/python
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
case "$what" in  # `futhark test`, `futhark bench` and the sdist need no extension built here
  futhark-test|futhark-bench|sdist) ;;
  *) python3 build.py gpu-ext 2>&1 | tail -3 || exit 1 ;;
esac
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  FUTBIG_TEST_BACKENDS=cuda python3 -m pytest -q -p no:cacheprovider "$@" 2>&1 | tee "$out/tests.log"
  rc=${PIPESTATUS[0]}
  echo "pytest exit code: $rc" | tee -a "$out/tests.log"
fi
futhark_cuda() {  # futhark with the packed compiler and the cuda backend
  [ -x /tmp/futhark-gpu/bin/futhark ] || tar -xJf .gpu/futhark.tar.xz -C /tmp ||
    { echo "no .gpu/futhark.tar.xz: run python3 build.py gpu"; return 1; }
  link=$(ldconfig -p | sed -n 's/.*libcuda\.so\.1 .*=> //p' | head -1)
  mkdir -p /tmp/cuda-link && ln -sf "$link" /tmp/cuda-link/libcuda.so
  # Futhark compiles each program with $CC $CFLAGS; the wrapper adds what
  # the CUDA 13 toolkit here needs (csrc/cuda_compat.h, docs/gpu.md).
  printf '#!/bin/sh\nexec gcc -I/usr/local/cuda/include -include %s "$@" -L/tmp/cuda-link -L/usr/local/cuda/lib64\n' \
    "$PWD/csrc/cuda_compat.h" > /tmp/cuda-cc && chmod +x /tmp/cuda-cc
  CC=/tmp/cuda-cc CFLAGS="-O3 -std=c99" LD_LIBRARY_PATH=/usr/local/cuda/lib64 \
    /tmp/futhark-gpu/bin/futhark "$1" --backend=cuda "${@:2}"
}
if [ "$what" = futhark-test ] || [ "$what" = all ]; then
  specs=(lib/github.com/futbig/futbig/*_tests.fut)
  [ "$what" = futhark-test ] && [ $# -gt 0 ] && specs=("$@")
  futhark_cuda test --exclude=cpu_only "${specs[@]}" 2>&1 | tee "$out/futhark-test.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
if [ "$what" = futhark-bench ]; then
  # e.g. futhark-bench futhark/bench/div_bench.fut --entry-point=div_limb_loop_bench
  futhark_cuda bench "$@" 2>&1 | tee "$out/futhark-bench.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  python3 -m futbig bench --backend cuda --out "$out" "$@" 2>&1 | tee "$out/bench.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
if [ "$what" = sdist ]; then
  # No network there: the build's requirements come from .gpu/wheels, numpy
  # and pytest from the image. The image's python3 is itself a venv, whose
  # packages a new venv does not see (2026-11-26), so a .pth file adds its
  # site-packages; --no-deps, since pip's resolver does not read .pth paths.
  # PYTHONPATH (above) is unset, or pip takes /tmp/futbig-site's wheels as
  # installed.
  sdist=$(realpath "$(ls .gpu/dist/futbig-*.tar.gz | head -1)")
  repo=$PWD venv=/tmp/futbig-sdist-venv
  image_site=$(env -u PYTHONPATH python3 -c 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))')
  rm -rf "$venv" && env -u PYTHONPATH python3 -m venv "$venv"
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$image_site" > "$site/image-packages.pth"
  env -u PYTHONPATH "$venv/bin/pip" install -q --no-index --no-deps --find-links .gpu/wheels \
    setuptools cffi pycparser futhark-ffi gmpy2
  start=$(date +%s)
  env -u PYTHONPATH "$venv/bin/pip" install -v --no-index --no-deps --no-build-isolation "$sdist" > "$out/sdist-install.log" 2>&1
  status=$?
  echo "pip install of $(basename "$sdist"): exit $status, $(( $(date +%s) - start )) s" | tee -a "$out/sdist.log"
  grep -i "futbig:" "$out/sdist-install.log" | tee -a "$out/sdist.log"
  [ $status = 0 ] || rc=1
  (cd /tmp && env -u PYTHONPATH "$venv/bin/python" -m futbig info) 2>&1 | tee -a "$out/sdist.log"
  (cd /tmp && env -u PYTHONPATH FUTBIG_TEST_BACKENDS=cuda FUTBIG_SDIST="$sdist" "$venv/bin/python" -m pytest \
     -c "$repo/pyproject.toml" -m "" -p no:cacheprovider -q --pyargs futbig \
     "$repo/tests/test_sdist.py" "$repo/tests/test_api.py" "$@") 2>&1 | tee -a "$out/sdist.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
if [ "$what" = fuzz ]; then
  # One process per operation, as many at once as there are cores: the GMP
  # checks on the host, not the GPU, bound the run. The first one fills the
  # kernel cache that the others then read.
  python3 -m futbig fuzz --backend cuda --ops add --cases 1000 --quiet "$@" > /dev/null 2>&1
  mkdir -p /tmp/fuzz-logs
  ops=${FUZZ_OPS:-$(python3 -c "from futbig import fuzz; print(' '.join(fuzz.OP_NAMES))")}
  printf '%s\n' $ops |
    xargs -P "$(nproc)" -I{} sh -c 'python3 -m futbig fuzz --backend cuda --ops {} --quiet "$@" > /tmp/fuzz-logs/{}.log 2>&1 || echo "FAILED {}" >> /tmp/fuzz-logs/{}.log' sh "$@"
  [ $? = 0 ] || rc=1
  cat /tmp/fuzz-logs/*.log | tee "$out/fuzz.log"
  grep -q FAILED "$out/fuzz.log" && rc=1
fi
exit $rc
