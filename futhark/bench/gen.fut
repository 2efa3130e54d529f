-- | Device-side generation of the benchmark batches.

import "../../lib/github.com/futbig/futbig/testing"

-- | Two batches of `2^log_total / bits` uniformly random numbers of `bits`
-- bits each (`bits` a multiple of 256, so no padding).
def random_pair (log_total: i64) (bits: i64) : ([][]u64, [][]u64) =
  let n = (1 << log_total) / bits
  let m = bits / 64
  let limb seed i j = mix (seed ^ mix (u64.i64 (i * m + j)))
  in (tabulate_2d n m (limb 1), tabulate_2d n m (limb 2))
