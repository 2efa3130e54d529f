-- Benchmarks of division on the papers' batches: 2^32 bits per operand,
-- n = 2^32/bits instances of bits = 2^9 .. 2^18, a of all m limbs and b
-- of m/2 limbs (the anchor table's divisor shape), generated on the
-- device.  The "small" datasets check the program quickly on any
-- backend; the full-size ones need a GPU.  For `futhark bench` only (see
-- add_bench.fut on why there is no program tag).
-- ==
-- entry: divmod_newton_bench divmod_thread_bench divmod_thread_cpu_bench
-- "small 512" script input { batch_div 12i64 512i64 }
-- "small 4096" script input { batch_div 14i64 4096i64 }
-- "512" script input { batch_div 32i64 512i64 }
-- "1024" script input { batch_div 32i64 1024i64 }
-- "2048" script input { batch_div 32i64 2048i64 }
-- "4096" script input { batch_div 32i64 4096i64 }
-- "8192" script input { batch_div 32i64 8192i64 }
-- "16384" script input { batch_div 32i64 16384i64 }
-- "32768" script input { batch_div 32i64 32768i64 }
-- "65536" script input { batch_div 32i64 65536i64 }
-- "131072" script input { batch_div 32i64 131072i64 }
-- "262144" script input { batch_div 32i64 262144i64 }

import "../../lib/github.com/futbig/futbig/div"
import "gen"

-- | Dividends of `bits` bits and divisors of `bits/2` bits (top limb
-- nonzero), `2^log_total / bits` of each.
entry batch_div (log_total: i64) (bits: i64) : ([][]u64, [][]u64) =
  let (a, b) = random_pair log_total bits
  let half = (bits / 64) / 2
  let divisor row = map2 (\j x -> if j < half - 1 then x else if j == half - 1 then x | 1 else 0)
                         (indices row) row
  in (a, map divisor b)

-- | `divmod` of the batch through the reciprocal.
entry divmod_newton_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  divmod_newton false a b

-- | `divmod` of the batch with one instance per thread, as on the GPU.
entry divmod_thread_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  divmod_thread false a b

-- | `divmod` of the batch with one instance per thread, as on a CPU.
entry divmod_thread_cpu_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  divmod_thread true a b

-- Division by one limb, by a loop per instance or by a scan over all limbs
-- (thresholds.fut's `div_limb_loops`): full batches of every width, and
-- few instances of 2^18 bits, where the loops leave the GPU idle.
-- ==
-- entry: div_limb_loop_bench div_limb_scan_bench
-- "small 4096" script input { batch_div 14i64 4096i64 }
-- "512" script input { batch_div 32i64 512i64 }
-- "4096" script input { batch_div 32i64 4096i64 }
-- "65536" script input { batch_div 32i64 65536i64 }
-- "262144" script input { batch_div 32i64 262144i64 }
-- "262144 x 1024" script input { batch_div 28i64 262144i64 }
-- "262144 x 64" script input { batch_div 24i64 262144i64 }
-- "262144 x 4" script input { batch_div 20i64 262144i64 }

local def by_low_limbs [n][m] (method: i64) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u64, [n]u8) =
  div_limb false method a (map (\row -> row[0] | 1) b)

-- | `div_limb` of the batch by the low limbs of b, made odd, a loop per instance.
entry div_limb_loop_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u64, [n]u8) =
  by_low_limbs div_limb_by_loop a b

-- | `div_limb` of the batch by the low limbs of b, made odd, by a scan over all limbs.
entry div_limb_scan_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u64, [n]u8) =
  by_low_limbs div_limb_by_scan a b
