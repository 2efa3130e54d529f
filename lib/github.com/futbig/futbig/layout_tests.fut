-- Tests of layout.fut.

import "layout"

-- Three arrays joined by placing each into one destination.
-- ==
-- entry: test_place
-- input { [[1u64, 2u64], [3u64, 4u64]] [[5u64, 6u64]] [[7u64, 8u64], [9u64, 10u64]] }
-- output { [[1u64, 2u64], [3u64, 4u64], [5u64, 6u64], [7u64, 8u64], [9u64, 10u64]] }
-- input { empty([0][4]u64) [[1u64, 0u64, 0u64, 0u64]] [[2u64, 0u64, 0u64, 0u64], [3u64, 0u64, 0u64, 0u64]] }
-- output { [[1u64, 0u64, 0u64, 0u64], [2u64, 0u64, 0u64, 0u64], [3u64, 0u64, 0u64, 0u64]] }
-- input { empty([0][4]u64) empty([0][4]u64) empty([0][4]u64) } output { empty([0][4]u64) }
entry test_place [k1][k2][k3][m] (x: [k1][m]u64) (y: [k2][m]u64) (z: [k3][m]u64) : [][m]u64 =
  let dst = zero_rows (k1 + k2 + k3) m
  let dst = place dst 0 x
  let dst = place dst k1 y
  in place dst (k1 + k2) z

-- ==
-- entry: test_zero_rows
-- input { 2i64 4i64 } output { [[0u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64]] }
-- input { 0i64 4i64 } output { empty([0][4]u64) }
entry test_zero_rows (n: i64) (m: i64) : [n][m]u64 = zero_rows n m

-- ==
-- entry: test_limb_rows
-- input { 4i64 [7u64, 18446744073709551615u64] }
-- output { [[7u64, 0u64, 0u64, 0u64], [18446744073709551615u64, 0u64, 0u64, 0u64]] }
-- input { 1i64 [3u64] } output { [[3u64]] }
-- input { 8i64 empty([0]u64) } output { empty([0][8]u64) }
entry test_limb_rows [n] (m: i64) (xs: [n]u64) : [n][m]u64 = limb_rows m xs
