-- Strips against convmul (the classical kernels of the ladder at these widths).
-- ==
-- entry: strips_lo strips_parts_lo classical_lo strips_full classical_full
-- "cpu 4096" script input { batch_pair 24i64 4096i64 }
-- "cpu 16384" script input { batch_pair 24i64 16384i64 }
-- "4096" script input { batch_pair 32i64 4096i64 }
-- "8192" script input { batch_pair 32i64 8192i64 }
-- "16384" script input { batch_pair 32i64 16384i64 }
-- "32768" script input { batch_pair 32i64 32768i64 }

import "../../lib/github.com/futbig/futbig/mul"
import "../../lib/github.com/futbig/futbig/strips"
import "gen"
import "../../lib/github.com/futbig/futbig/testing"

entry batch_pair (log_total: i64) (bits: i64) : ([][]u64, [][]u64) =
  random_pair log_total bits

entry strips_lo [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = mul_strips false m (64*m) a b
entry classical_lo [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = mul_lo_convmul (64*m) a b
entry strips_full [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 = mul_strips false (m*2) (64*(m*2)) a b
entry classical_full [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 = mul_full_convmul a b

-- Whether strips and per-row products agree on random and all-ones operands.
entry check [n][m] (a: [n][m]u64) (b: [n][m]u64) : (bool, bool) =
  let ones = map (map (\_ -> u64.highest)) a
  let ok x y = and (map2 (==) (flatten (mul_strips true m (64*m) x y)) (flatten (map2 (mul_row m) x y)))
               && and (map2 (==) (flatten (mul_strips true (m*2) (64*(m*2)) x y)) (flatten (map2 (mul_row (m*2)) x y)))
  in (ok a b, ok ones ones && ok a ones)

-- `check` on `n` instances of `m` limbs of random and sparse patterns.
entry check_at (n: i64) (m: i64) (seed: u64) : (bool, bool) =
  let limb s i j = let v = mix (seed ^ s ^ mix (u64.i64 (i * m + j)))
                   in if v % 7 == 0 then u64.highest else if v % 11 == 0 then 0 else v
  in check (tabulate_2d n m (limb 1)) (tabulate_2d n m (limb 2))

-- The strip kernel alone (its outputs reduced to one limb per thread).
entry strips_parts_lo [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([]u64, []u64) =
  let G = (m + 6) / 7
  let P = (G + 1) / 2
  let (l1, o1, l2, o2) = strip_parts P false (runtime_digit_mask (64*m)) a b
  in (map2 (\x o -> x[0] ^ x[6] ^ o) l1 o1, map2 (\x o -> x[0] ^ x[6] ^ o) l2 o2)
