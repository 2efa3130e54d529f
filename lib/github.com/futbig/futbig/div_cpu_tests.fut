-- | Tests of division's CPU layout (`divmod_thread true`: the rows and
-- the switches of the `c` and `multicore` backends), beside div_tests.fut.
-- Tagged `cpu_only`: the GPU never runs this layout, and `futhark test`
-- with the cuda backend spent more than 150 s on its 1024-limb check
-- alone (NVIDIA H100, 2026-11-25), past the tool's time limit
-- (`tools/gpu_run.sh futhark-test` excludes the tag).
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
