-- The NTT's products with blocks of at most 2^13 transform points (1024
-- threads of 8 values: 2^18-bit operands run four-step, five kernels) and
-- 2^14 (1024 threads of 16 values: 2^18 bits in one block kernel), on the
-- papers' batches (2^32 bits per operand).  They differ only at 2^18 bits;
-- comparing them sets `ntt_block_log` in thresholds.fut.  Apart from
-- mul_bench.fut so that the GPU machine compiles only the NTT for it:
--
--   bash tools/gpu_run.sh futhark-bench futhark/bench/ntt_block_bench.fut
-- ==
-- entry: mul_lo_ntt13_bench mul_lo_ntt14_bench sqr_lo_ntt13_bench sqr_lo_ntt14_bench mul_full_ntt13_bench mul_full_ntt14_bench
-- "small 262144" script input { batch_pair 20i64 262144i64 }
-- "131072" script input { batch_pair 32i64 131072i64 }
-- "262144" script input { batch_pair 32i64 262144i64 }

import "../../lib/github.com/futbig/futbig/ntt"
import "gen"

entry batch_pair (log_total: i64) (bits: i64) : ([][]u64, [][]u64) =
  random_pair log_total bits

entry mul_lo_ntt13_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_lo_ntt_with 13 false (64*m) a b

entry mul_lo_ntt14_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_lo_ntt_with 14 false (64*m) a b

entry sqr_lo_ntt13_bench [n][m] (a: [n][m]u64) (_: [n][m]u64) : [n][m]u64 =
  mul_lo_ntt_with 13 true (64*m) a a

entry sqr_lo_ntt14_bench [n][m] (a: [n][m]u64) (_: [n][m]u64) : [n][m]u64 =
  mul_lo_ntt_with 14 true (64*m) a a

entry mul_full_ntt13_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_full_ntt_with 13 false a b

entry mul_full_ntt14_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_full_ntt_with 14 false a b
