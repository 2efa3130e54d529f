-- | Comparison of batches of big integers.

-- | Sign of `a - b` per instance: -1, 0 or 1.  The most significant limb
-- that differs decides.  Each differing limb `i` is keyed `4*(i+1) + sign+1`
-- and the largest key wins: a commutative `max` reduction, which the GPU
-- backend may evaluate in any order (a first/last-nonzero operator gave
-- wrong signs on CUDA at 1000 limbs, where the reduction spans blocks).
def cmp [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n]i8 =
  let key i u v : i64 = if u == v then 0 else 4 * (i + 1) + (if u < v then 0 else 2)
  -- A segmented reduction (only_inner) reads the rows in place; the
  -- one-thread-per-row version that Futhark picks for large batches
  -- transposes both operands first (12 ms of a 40 ms division on the H200).
  -- `opaque` keeps the consumer from fusing the reduction into its own
  -- map, which would bring that version back.
  in opaque (#[incremental_flattening(only_inner)]
             map2 (\x y -> let k = reduce_comm i64.max 0 (map3 key (iota m) x y)
                           in if k == 0 then 0 else i8.i64 (k & 3) - 1)
                  a b)

-- | Flags (1) the rows of `x` that are `>= 2^bits`: those with a bit set
-- at a position `>= bits` (`bits >= 0`).  Only limbs `bits/64` and up are
-- read.  Shaped as `cmp` (a segmented reduction over the rows, not fused
-- into its consumer), where that shape was measured to avoid transposes.
def exceeds [n][m] (bits: i64) (x: [n][m]u64) : [n]u8 =
  let t = i64.min (bits / 64) m
  let r = u64.i64 (bits % 64)
  let over j v = if j == 0 then v >> r else v
  in opaque (#[incremental_flattening(only_inner)]
             map (\row -> u8.bool (reduce_comm (|) 0 (map2 over (iota (m - t)) (drop t row)) != 0)) x)
