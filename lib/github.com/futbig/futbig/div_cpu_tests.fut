-- | Tests of division's CPU layout (`divmod_thread true`: the rows and
-- the switches of the `c` and `multicore` backends), beside div_tests.fut,
-- and of the register long division at widths that are not constants.
-- Tagged `cpu_only` (`tools/gpu_run.sh futhark-test` excludes the tag):
-- the GPU never runs this layout, and runs the register long division
-- only at constant widths (div_tests.fut checks those on every backend).
-- ==
-- tags { cpu_only }
-- entry: test_divmod_thread_cpu
-- input { [[10u64, 0u64, 0u64, 0u64], [0u64, 0u64, 1u64, 0u64], [7u64, 0u64, 0u64, 0u64], [5u64, 6u64, 7u64, 8u64]]
--         [[3u64, 0u64, 0u64, 0u64], [1u64, 1u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64], [5u64, 6u64, 7u64, 8u64]] }
-- output { [[3u64, 0u64, 0u64, 0u64], [18446744073709551615u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64], [1u64, 0u64, 0u64, 0u64]]
--          [[1u64, 0u64, 0u64, 0u64], [1u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64]]
--          [0u8, 0u8, 1u8, 0u8] }
-- input { empty([0][4]u64) empty([0][4]u64) }
-- output { empty([0][4]u64) empty([0][4]u64) empty([0]u8) }

import "div"
import "div_tests"

-- | `divmod` with one instance per thread, as on a CPU.
entry test_divmod_thread_cpu [n][m] (a: [n][m]u64) (b: [n][m]u64) = divmod_thread true a b

-- ==
-- entry: check_divmod_thread_cpu
-- random input { [700][4]u64 [700][4]u64 }
-- output { true }
-- random input { [700][8]u64 [700][8]u64 }
-- output { true }
-- random input { [300][12]u64 [300][12]u64 }
-- output { true }
-- random input { [300][16]u64 [300][16]u64 }
-- output { true }
-- random input { [300][20]u64 [300][20]u64 }
-- output { true }
-- random input { [300][32]u64 [300][32]u64 }
-- output { true }
-- random input { [300][64]u64 [300][64]u64 }
-- output { true }
-- random input { [200][68]u64 [200][68]u64 }
-- output { true }
-- random input { [60][256]u64 [60][256]u64 }
-- output { true }
-- random input { [14][1024]u64 [14][1024]u64 }
-- output { true }

-- | Per thread, as on a CPU: all shaped instances divide exactly.
entry check_divmod_thread_cpu [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_thread true x y

-- ==
-- entry: check_long_division_registers_any_width
-- random input { [300][12]u64 [300][12]u64 }
-- output { true }
-- random input { [300][16]u64 [300][16]u64 }
-- output { true }
-- random input { [300][20]u64 [300][20]u64 }
-- output { true }
-- random input { [300][32]u64 [300][32]u64 }
-- output { true }
-- random input { [300][64]u64 [300][64]u64 }
-- output { true }
-- random input { [200][68]u64 [200][68]u64 }
-- output { true }
-- random input { [60][256]u64 [60][256]u64 }
-- output { true }
-- random input { [14][1024]u64 [14][1024]u64 }
-- output { true }

-- | Long division with constant indices at a width that is not a constant
-- (the same arithmetic, not in registers).  On the cuda backend this
-- version gave wrong results at every width (NVIDIA H200, 2026-11-26:
-- `futhark test`, widths 4 to 1024 limbs), while the constant widths the
-- library uses pass there (`check_long_division_registers`); the library
-- never calls it at other widths.
entry check_long_division_registers_any_width [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  check_long long_division_registers x y
