-- | The widest datasets of div_tests.fut's checks, in a program of their
-- own: with the cuda backend the whole of div_tests.fut ran past `futhark
-- test`'s 300 s limit per program (NVIDIA H100, 2026-11-25).  (`check_divmod`
-- keeps its wide datasets there: wrapped here, it made Futhark 0.25.27 fail
-- with an internal error after the `simplify` pass.)

import "div_tests"

-- ==
-- entry: check_divmod_thread_wide check_long_division_wide check_long_division4_wide check_long_division8_wide check_long_division_registers_wide check_div_limb_wide
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

-- | `check_long_division_registers` (constant indices, here not in registers).
entry check_long_division_registers_wide [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  check_long_division_registers x y

-- | `check_div_limb` (division by one limb, both methods).
entry check_div_limb_wide [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_div_limb x y
