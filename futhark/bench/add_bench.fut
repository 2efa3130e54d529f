-- Benchmarks of addition, subtraction and the fused six additions on the
-- papers' batches: 2^32 bits per operand, n = 2^32/bits instances of bits
-- = 2^9 .. 2^18 (m = 8 .. 4096 limbs), generated on the device by
-- `batch_pair`.  The "small 512" dataset (2^16 bits per operand) checks
-- the program quickly on any backend; the full-size ones need a GPU.
-- These programs are for `futhark bench` only: test runs
-- should name the top-level files (`futhark test futhark/*.fut`), since
-- `futhark test futhark/` would also run the full-size datasets here (a
-- program tag cannot exclude them: `futhark bench` 0.25.27 skips every
-- tagged program).
-- ==
-- entry: add_bench sub_bench add6_bench
-- "small 512" script input { batch_pair 16i64 512i64 }
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

import "../../lib/github.com/futbig/futbig/add"
import "../../lib/github.com/futbig/futbig/fused"
import "gen"

-- | Two batches of `2^log_total / bits` random numbers of `bits` bits.
entry batch_pair (log_total: i64) (bits: i64) : ([][]u64, [][]u64) =
  random_pair log_total bits

entry add_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) = add false (64*m) a b

entry sub_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) = sub false (64*m) a b

entry add6_bench [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = add6 (64*m) a b
