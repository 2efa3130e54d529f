-- gcd, modinv and powmod as the library's entries see them (the modulus an
-- input, all outputs), on 2^28-bit batches (the shape of CGBN's perf_tests
-- in the anchors), one shared modulus 2^bits - 159; powmod with one
-- exponent as wide as the modulus (the first row of `b`):
--
--   bash tools/gpu_run.sh futhark-bench futhark/bench/modular_bench.fut
-- ==
-- entry: gcd_bench modinv_bench powmod_bench
-- "256" script input { batch_mod 28i64 256i64 }
-- "512" script input { batch_mod 28i64 512i64 }
-- "1024" script input { batch_mod 28i64 1024i64 }
-- "2048" script input { batch_mod 28i64 2048i64 }
-- "4096" script input { batch_mod 28i64 4096i64 }

import "../../lib/github.com/futbig/futbig/modular"
import "gen"

entry batch_mod (log_total: i64) (bits: i64) : ([][]u64, [][]u64, [][]u64) =
  let (a, b) = random_pair log_total bits
  let m = bits / 64
  in (a, b, [tabulate m (\j -> if j == 0 then u64.highest - 158 else u64.highest)])

entry gcd_bench [n][k][m] (a: [n][m]u64) (b: [n][m]u64) (_: [k][m]u64) : [n][m]u64 = gcd a b

entry modinv_bench [n][k][m] (a: [n][m]u64) (_: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8, [n]u8) =
  modinv a mods

entry powmod_bench [n][k][m] (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  powmod false mont_auto true a [b[0]] mods
