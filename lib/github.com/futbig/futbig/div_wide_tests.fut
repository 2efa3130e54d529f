-- | The widest datasets of div_tests.fut's per-thread checks, in a program
-- of their own, so that each program's start-up on the cuda backend (NVRTC
-- compiles every kernel: 77 s for div_tests.fut on an H200, 2026-11-26)
-- stays short.  (`check_divmod` keeps its wide datasets there: wrapped
-- here, it made Futhark 0.25.27 fail with an internal error after the
-- `simplify` pass.)

import "div_tests"

-- ==
-- entry: check_divmod_thread_wide check_long_division_wide check_long_division4_wide check_long_division8_wide check_div_limb_wide
-- random input { [60][256]u64 [60][256]u64 }
-- output { true }
-- random input { [14][1024]u64 [14][1024]u64 }
-- output { true }

-- | `check_divmod_thread` (one instance per thread, as on the GPU).
entry check_divmod_thread_wide [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_divmod_thread x y

-- | `check_long_division` (one quotient limb per pass).
entry check_long_division_wide [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_long_division x y

-- | `check_long_division4` (four quotient limbs per pass).
entry check_long_division4_wide [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_long_division4 x y

-- | `check_long_division8` (eight quotient limbs per pass).
entry check_long_division8_wide [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_long_division8 x y

-- | `check_div_limb` (division by one limb, both methods).
entry check_div_limb_wide [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_div_limb x y
