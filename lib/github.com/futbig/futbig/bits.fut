-- | Per-instance counts of bits: the bit length and the number of set
-- bits of each row, for `Array.bit_length` and `popcount`.  One instance
-- per row, its limbs read in order; the results are `[n]i64`.

-- | The bit length of each row: one more than the index of its highest
-- set bit, 0 for a zero row.
def bit_length [n][m] (xs: [n][m]u64) : [n]i64 =
  map (\row -> loop len = 0i64 for i < m do
                 if row[i] != 0 then 64 * i + 64 - i64.i32 (u64.clz row[i]) else len)
      xs

-- | The number of set bits of each row.
def popcount [n][m] (xs: [n][m]u64) : [n]i64 =
  map (\row -> loop count = 0i64 for x in row do count + i64.i32 (u64.popc x)) xs
