-- Benchmarks of multiplication on the papers' batches: 2^32 bits per operand,
-- n = 2^32/bits instances of bits = 2^9 .. 2^18, generated on the device.
-- The "small" dataset is for CPU backends; see add_bench.fut for how to run
-- these programs.
-- ==
-- entry: mul_lo_bench mul_lo_classical_bench mul_lo_ntt_bench sqr_lo_bench sqr_lo_ntt_bench mul_full_bench mul_full_classical_bench mul_full_ntt_bench poly_bench mul_limb_bench
-- "small 512" script input { batch_pair 14i64 512i64 }
-- "512" script input { batch_pair 32i64 512i64 }
-- "1024" script input { batch_pair 32i64 1024i64 }
-- "2048" script input { batch_pair 32i64 2048i64 }
-- "4096" script input { batch_pair 32i64 4096i64 }
-- "8192" script input { batch_pair 32i64 8192i64 }
-- "16384" script input { batch_pair 32i64 16384i64 }
-- "32768" script input { batch_pair 32i64 32768i64 }
-- "65536" script input { batch_pair 32i64 65536i64 }
-- "131072" script input { batch_pair 32i64 131072i64 }
-- "262144" script input { batch_pair 32i64 262144i64 }

import "../../lib/github.com/futbig/futbig/mul"
import "../../lib/github.com/futbig/futbig/fused"
import "../../lib/github.com/futbig/futbig/ntt"
import "gen"

entry batch_pair (log_total: i64) (bits: i64) : ([][]u64, [][]u64) =
  random_pair log_total bits

-- The GPU's ladder (`cpu` false) and each of its algorithms, forced:
-- comparing them sets the switch points in thresholds.fut.
entry mul_lo_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = mul_lo false (64*m) a b

entry mul_lo_classical_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_lo_by false mul_classical (64*m) a b

entry mul_lo_ntt_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_lo_by false mul_by_ntt (64*m) a b

entry sqr_lo_bench [n][m] (a: [n][m]u64) (_: [n][m]u64) : [n][m]u64 = sqr_lo_by false mul_auto (64*m) a

entry sqr_lo_ntt_bench [n][m] (a: [n][m]u64) (_: [n][m]u64) : [n][m]u64 =
  sqr_lo_by false mul_by_ntt (64*m) a

entry mul_full_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 = mul_full false a b

entry mul_full_classical_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_full_by false mul_classical a b

entry mul_full_ntt_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_full_by false mul_by_ntt a b

entry poly_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = poly false (64*m) a b

entry mul_limb_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u64) =
  mul_limb (64*m) a (map (\r -> r[0]) b)
