-- Tests of bits.fut.

import "bits"

-- ==
-- entry: test_bit_length
-- input { [[0u64, 0u64, 0u64, 0u64], [1u64, 0u64, 0u64, 0u64], [0u64, 1u64, 0u64, 0u64],
--          [18446744073709551615u64, 255u64, 0u64, 0u64], [5u64, 0u64, 0u64, 9223372036854775808u64]] }
-- output { [0i64, 1i64, 65i64, 72i64, 256i64] }
-- input { empty([0][4]u64) } output { empty([0]i64) }
entry test_bit_length [n][m] (xs: [n][m]u64) = bit_length xs

-- ==
-- entry: test_popcount
-- input { [[0u64, 0u64, 0u64, 0u64], [1u64, 0u64, 0u64, 0u64], [0u64, 3u64, 0u64, 0u64],
--          [18446744073709551615u64, 255u64, 0u64, 9223372036854775808u64]] }
-- output { [0i64, 1i64, 2i64, 73i64] }
-- input { empty([0][4]u64) } output { empty([0]i64) }
entry test_popcount [n][m] (xs: [n][m]u64) = popcount xs
