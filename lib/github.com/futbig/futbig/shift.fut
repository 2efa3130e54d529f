-- | Bit shifts of batches of big integers.  Limb `i` of the result combines
-- two limbs of the input, so a shift is a map (thesis Listing 14).

import "limbs"

-- Limb `j` of `xs`, zero outside the number.
local def limb_or_zero [m] (xs: [m]u64) (j: i64) : u64 =
  if j >= 0 && j < m then xs[j] else 0

-- | `xs << k mod 2^bits` for one instance.
def shl_row [m] (bits: i64) (k: i64) (xs: [m]u64) : [m]u64 =
  let q = k / 64
  let r = u64.i64 (k % 64)
  in tabulate m (\i -> let hi = limb_or_zero xs (i - q) << r
                       let lo = if r == 0 then 0 else limb_or_zero xs (i - q - 1) >> (64 - r)
                       in mask_limb bits i (hi | lo))

-- | `xs >> k` for one instance.
def shr_row [m] (k: i64) (xs: [m]u64) : [m]u64 =
  let q = i64.min k (64 * m) / 64
  let r = u64.i64 (k % 64)
  in tabulate m (\i -> let lo = limb_or_zero xs (i + q) >> r
                       let hi = if r == 0 then 0 else limb_or_zero xs (i + q + 1) << (64 - r)
                       in lo | hi)

-- | `a << k mod 2^bits`, `k >= 0`.
def shl [n][m] (bits: i64) (k: i64) (a: [n][m]u64) : [n][m]u64 =
  map (shl_row bits k) a

-- | `a >> k`, `k >= 0`.
def shr [n][m] (k: i64) (a: [n][m]u64) : [n][m]u64 =
  map (shr_row k) a

-- | `a << ks[i] mod 2^bits` per instance.
def shl_each [n][m] (bits: i64) (ks: [n]i64) (a: [n][m]u64) : [n][m]u64 =
  map2 (shl_row bits) ks a

-- | `a >> ks[i]` per instance.
def shr_each [n][m] (ks: [n]i64) (a: [n][m]u64) : [n][m]u64 =
  map2 shr_row ks a
