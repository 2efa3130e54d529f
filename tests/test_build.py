"""build.py's check of generated GPU kernels for a Futhark miscompilation (docs/gpu.md).

The kernels are cut down from what Futhark 0.25.27 generates for the
program in docs/gpu.md ('A miscompilation'): the loop's array `x`
(`mem_param_ext`) may be left in the buffer `color_2` by one iteration,
which the next iteration fills with zeros before it reads `x`; and the same
loop after the fix (the step's value copied), which swaps two buffers.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CLOBBERED = """
FUTHARK_KERNEL_SIZED(mainzisegmap_9_dim1, 1, 1)
void mainzisegmap_9(__global int *global_failure, int64_t w, __global unsigned char *mem_1, __global unsigned char *mem_2, __global unsigned char *color_1, __global unsigned char *color_2)
{
    mem_param_ext_5 = mem_1;
    for (int32_t k = 0; k < 4; k++) {
        for (int64_t i = 0; i < w; i++) {
            ((__global int64_t *) color_2)[tid + i * num_threads] = (int64_t) 0;
        }
        for (int64_t j = 0; j < w; j++) {
            t = ((__global int64_t *) color_2)[tid + j * num_threads];
            x = ((__global int64_t *) mem_param_ext_5)[ext_6 + j * ext_7];
            ((__global int64_t *) color_2)[tid + j * num_threads] = add64(t, x);
        }
        if (cond) {
            ext_mem_ext_3 = color_2;
        } else {
            ext_mem_ext_3 = color_1;
        }
        mem_param_ext_tmp_4 = ext_mem_ext_3;
        mem_param_ext_5 = mem_param_ext_tmp_4;
    }
    for (int64_t i = 0; i < w; i++) {
        ((__global int64_t *) mem_2)[gtid + i * n] = ((__global int64_t *) mem_param_ext_5)[ext_6 + i * ext_7];
    }
}
"""

# The fixed loop: x is copied into color_1 before the loop, then each step
# writes through mem_param_out and the two pointers swap.
SWAPPED = """
FUTHARK_KERNEL_SIZED(mainzisegmap_9_dim1, 1, 1)
void mainzisegmap_9(__global int *global_failure, int64_t w, __global unsigned char *mem_1, __global unsigned char *mem_2, __global unsigned char *color_1, __global unsigned char *color_2, __global unsigned char *color_3)
{
    for (int64_t i = 0; i < w; i++) {
        ((__global int64_t *) color_1)[tid + i * num_threads] = ((__global int64_t *) mem_1)[gtid + i * n];
    }
    mem_param_5 = color_1;
    mem_param_out_6 = color_2;
    for (int32_t k = 0; k < 4; k++) {
        for (int64_t i = 0; i < w; i++) {
            ((__global int64_t *) color_3)[tid + i * num_threads] = (int64_t) 0;
        }
        for (int64_t j = 0; j < w; j++) {
            t = ((__global int64_t *) color_3)[tid + j * num_threads];
            x = ((__global int64_t *) mem_param_5)[tid + j * num_threads];
            ((__global int64_t *) color_3)[tid + j * num_threads] = add64(t, x);
        }
        for (int64_t i = 0; i < w; i++) {
            ((__global int64_t *) mem_param_out_6)[tid + i * num_threads] = ((__global int64_t *) color_3)[tid + i * num_threads];
        }
        mem_param_tmp_7 = mem_param_out_6;
        mem_param_out_tmp_8 = mem_param_5;
        mem_param_5 = mem_param_tmp_7;
        mem_param_out_6 = mem_param_out_tmp_8;
    }
}
"""


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("futbig_build_checks", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_buffer_overwritten_before_the_loop_reads_it_is_flagged(build):
    assert build.clobbered_loop_arrays(CLOBBERED) == ["mainzisegmap_9: mem_param_ext_5 <- color_2"]


def test_a_loop_that_swaps_two_buffers_is_not_flagged(build):
    assert build.clobbered_loop_arrays(SWAPPED) == []
    assert build.clobbered_loop_arrays(CLOBBERED.replace("ext_mem_ext_3 = color_2;", "ext_mem_ext_3 = color_1;")) == []


def test_the_kernels_are_read_from_generated_c(build):
    # As Futhark embeds them: string literals, split anywhere, escapes included.
    pieces = [CLOBBERED[:300], CLOBBERED[300:]]
    literal = ", ".join('"' + p.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"' for p in pieces)
    generated = f"int x;\nstatic const char *gpu_program[] = {{{literal}, NULL}};\nint y;\n"
    assert build.gpu_kernel_source(generated) == CLOBBERED
    assert build.clobbered_loop_arrays(build.gpu_kernel_source(generated)) == [
        "mainzisegmap_9: mem_param_ext_5 <- color_2"]


PROGRAM = """
def step [w] (x: [w]u64) (y: [w]u64) : *[w]u64 =
  let t = loop t = replicate w 0u64 for i < w do
            loop t for j < w do t with [j] = t[j] + x[j] * y[i] + u64.i64 j
  let d = loop d = replicate w 0u64 for j < w do d with [j] = t[j] - x[j]
  in if t[0] & 1 == 0 then t else d
entry main [n][w] (xs: [n][w]u64) (ys: [n][w]u64) : [n][w]u64 =
  map2 (\\x y -> loop x = copy x for _k < 4 do step x y) xs ys
"""


def installed_futhark(build) -> Path | None:
    """The compiler build.py would take, if it need not fetch one (the GPU machine has none)."""
    for candidate in (os.environ.get("FUTHARK"), shutil.which("futhark"), build.FUTHARK_DIR / "bin" / "futhark"):
        if candidate and Path(candidate).is_file() and build.futhark_version(candidate) == build.FUTHARK_VERSION:
            return Path(candidate)
    return None


@pytest.mark.parametrize("fixed", [False, True])
def test_the_build_stops_before_compiling_a_miscompiled_kernel(build, tmp_path, monkeypatch, fixed):
    # docs/gpu.md's program through generate_c: stopped, its C deleted; with the fix, built.
    futhark = installed_futhark(build)
    if futhark is None:
        pytest.skip(f"no futhark {build.FUTHARK_VERSION} here (`python3 build.py build` sets it up)")
    program = tmp_path / "program.fut"
    program.write_text(PROGRAM.replace("in if t[0] & 1 == 0 then t else d", "in copy (if t[0] & 1 == 0 then t else d)") if fixed else PROGRAM)
    monkeypatch.setattr(build, "ENTRY_PROGRAM", program)
    monkeypatch.setattr(build, "C_PATCHES", ())
    monkeypatch.setattr(build, "bound_ntt_kernels", lambda generated_c: generated_c)  # it has no NTT
    if fixed:
        stem = build.generate_c(futhark, "cuda", tmp_path / "out")
        assert stem.with_suffix(".c").is_file()
    else:
        with pytest.raises(build.BuildError, match=r"mainzisegmap_\d+: mem_param_ext_\d+ <- color_\d+"):
            build.generate_c(futhark, "cuda", tmp_path / "out")
        assert not (tmp_path / "out" / "futbig.c").exists()


# Host code as Futhark's cuda backend writes it: a launch of a block of constant size and
# shared memory, one of run-time sizes, one with a call in its grid size.
LAUNCHES = """
                err = gpu_kernel_f_1zisegmap_intrablock_7(ctx, n_3, 1, 1, (int64_t) 1024, 1, 1, (int64_t) 258048, a_1, mem_2.mem);
                err = gpu_kernel_f_1zisegmap_intrablock_8(ctx, n_3, 1, 1, tt_4, 1, 1, bytes_5 + srem64((int64_t) 8 - srem64(bytes_5, (int64_t) 8), (int64_t) 8), a_1);
                err = gpu_kernel_g_2zisegmap_intrablock_9(ctx, sdiv_up64(n_3, (int64_t) 4), 1, 1, (int64_t) 512, 1, 1, (int64_t) 98304, a_1);
"""


def test_blocks_that_no_gpu_launches_are_found(build):
    assert build.oversized_blocks(LAUNCHES) == ["f_1zisegmap_intrablock_7: 258048 bytes"]
    assert build.oversized_blocks(LAUNCHES, limit=64 * 1024) == ["f_1zisegmap_intrablock_7: 258048 bytes",
                                                                 "g_2zisegmap_intrablock_9: 98304 bytes"]
    assert build.oversized_blocks(LAUNCHES.replace("258048", "232448")) == []


@pytest.mark.parametrize("available_gb, cores, expected", [(4, 2, 1), (20, 2, 2), (23, 2, 2), (27, 2, 2), (27, 4, 3),
                                                        (512, 16, 5), (512, 1, 1)])
def test_jobs_run_side_by_side_as_memory_and_cores_allow(build, tmp_path, available_gb, cores, expected):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(f"MemTotal:       {2 * available_gb * 2**20} kB\nMemAvailable:   {available_gb * 2**20} kB\n")
    assert build.parallel_jobs(5, str(meminfo), cores) == expected


def test_jobs_run_side_by_side_without_meminfo(build, tmp_path):
    assert build.parallel_jobs(3, str(tmp_path / "absent"), 8) == 3
    assert build.parallel_jobs(3, str(tmp_path / "absent"), 2) == 2


def test_a_failed_job_cancels_the_jobs_not_started(build, monkeypatch):
    monkeypatch.setattr(build, "parallel_jobs", lambda jobs: 1)
    ran = []

    def fail():
        ran.append("fail")
        raise build.BuildError("job failed")

    with pytest.raises(build.BuildError, match="job failed"):
        build.run_jobs([lambda: ran.append("first"), fail, lambda: ran.append("never")])
    assert ran == ["first", "fail"]


# The kernel prelude, three kernels and their launches as the cuda backend writes them: the
# kernels are string literals, split anywhere (here inside the second declaration).
PRELUDE_AND_KERNELS = (
    r'static const char *gpu_program[] = {"#define SHARED_MEM_PARAM\n#define FUTHARK_KERNEL extern \"C\" '
    r'__global__ __launch_bounds__(MAX_THREADS_PER_BLOCK)\n#define FUTHARK_KERNEL_SIZED(a,b,c) extern \"C\" '
    r'__global__ __launch_bounds__(a*b*c)\n\n// End of prelude.cu\n", "FUTHARK_KERNEL_SIZED(mul_ntt_22zisegmap_'
    r'intrablock_3_dim1, 1, 1)\nvoid mul_ntt_22zisegmap_intrablock_3(int x)\n{\n}\nFUTHARK_KERNEL_SIZED(mul_ntt_22'
    r'zisegmap_intrablock_4_dim1, 1,", " 1)\nvoid mul_ntt_22zisegmap_intrablock_4(int x)\n{\n}\n'
    r'FUTHARK_KERNEL_SIZED(mul_ntt_22zisegmap_intrablock_5_dim1, 1, 1)\nvoid mul_ntt_22zisegmap_intrablock_5(int x)\n'
    r'{\n}\nFUTHARK_KERNEL_SIZED(mul_lo_by_3zisegmap_9_dim1, 1, 1)\nvoid mul_lo_by_3zisegmap_9(int x)\n{\n}\n", NULL};'
    """
                err = gpu_kernel_mul_ntt_22zisegmap_intrablock_3(ctx, nbp_1, 1, 1, (int64_t) 256, 1, 1, (int64_t) 52224, a_1);
                err = gpu_kernel_mul_ntt_22zisegmap_intrablock_4(ctx, nbp_1, 1, 1, (int64_t) 512, 1, 1, (int64_t) 104448, a_1);
                err = gpu_kernel_mul_ntt_22zisegmap_intrablock_5(ctx, nbp_1, 1, 1, (int64_t) 512, 1, 1, (int64_t) 131072, a_1);
                err = gpu_kernel_mul_lo_by_3zisegmap_9(ctx, n_2, 1, 1, (int64_t) 128, 1, 1, (int64_t) 16384, a_1);
"""
)


def test_ntt_block_kernels_get_launch_bounds_where_two_blocks_fit(build):
    kernels = build.gpu_kernel_source(build.bound_ntt_kernels(PRELUDE_AND_KERNELS))
    assert '#define FUTBIG_KERNEL_RESIDENT(a,b,c) extern "C" __global__ __launch_bounds__(a*b*c, 1024/(a*b*c))\n' in kernels
    # Four blocks of 256 threads and 52224 bytes fit an SM, two of 512 and 104448 bytes too.
    assert "FUTBIG_KERNEL_RESIDENT(mul_ntt_22zisegmap_intrablock_3_dim1, 1, 1)" in kernels
    assert "FUTBIG_KERNEL_RESIDENT(mul_ntt_22zisegmap_intrablock_4_dim1, 1, 1)" in kernels
    # Two of 131072 bytes do not; kernels other than the NTT's are left alone.
    assert "FUTHARK_KERNEL_SIZED(mul_ntt_22zisegmap_intrablock_5_dim1, 1, 1)" in kernels
    assert "FUTHARK_KERNEL_SIZED(mul_lo_by_3zisegmap_9_dim1, 1, 1)" in kernels


def test_generated_c_without_ntt_block_kernels_stops_the_build(build):
    # What bound_ntt_kernels was written for is gone: a new Futhark must be checked by hand.
    with pytest.raises(build.BuildError, match="NTT block kernels"):
        build.bound_ntt_kernels(PRELUDE_AND_KERNELS.replace("mul_ntt_", "mul_fft_"))
