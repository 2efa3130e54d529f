-- Tests of compare.fut, bitwise.fut, shift.fut and flags.fut.

import "limbs"
import "compare"
import "bitwise"
import "shift"
import "testing"
import "flags"

-- ==
-- entry: test_flag_summary
-- input { [0u8, 0u8, 1u8, 0u8, 7u8] } output { 2i64 2i64 }
-- input { [3u8] } output { 0i64 1i64 }
-- input { [0u8, 0u8] } output { -1i64 0i64 }
-- input { empty([0]u8) } output { -1i64 0i64 }
entry test_flag_summary [n] (flags: [n]u8) = summary flags

-- ==
-- entry: test_cmp_small
-- input { [[1u64, 2u64, 0u64, 0u64], [5u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 7u64]]
--         [[2u64, 1u64, 0u64, 0u64], [5u64, 0u64, 0u64, 0u64], [9u64, 0u64, 0u64, 8u64]] }
-- output { [1i8, 0i8, -1i8] }
entry test_cmp_small [n][m] (a: [n][m]u64) (b: [n][m]u64) = cmp a b

-- ==
-- entry: test_shl_small
-- input { 130i64 65i64 [[18446744073709551615u64, 1u64, 0u64, 0u64]] }
-- output { [[0u64, 18446744073709551614u64, 3u64, 0u64]] }
entry test_shl_small [n][m] (bits: i64) (k: i64) (a: [n][m]u64) = shl bits k a

-- ==
-- entry: test_shr_small
-- input { 65i64 [[0u64, 18446744073709551614u64, 3u64, 0u64]] }
-- output { [[18446744073709551615u64, 1u64, 0u64, 0u64]] }
entry test_shr_small [n][m] (k: i64) (a: [n][m]u64) = shr k a

-- ==
-- entry: test_bit_not_small
-- input { 68i64 [[1u64, 2u64, 0u64, 0u64]] }
-- output { [[18446744073709551614u64, 13u64, 0u64, 0u64]] }
entry test_bit_not_small [n][m] (bits: i64) (a: [n][m]u64) = bit_not bits a

-- Reference shifts bit by bit.
local def ref_shl [m] (bits: i64) (k: i64) (x: [m]u64) : [m]u64 =
  tabulate m (\i -> loop acc = 0u64 for j < 64 do
                      let p = 64 * i + j
                      in if p < bits && p >= k then acc | (bit_at x (p - k) << u64.i64 j) else acc)

local def ref_shr [m] (k: i64) (x: [m]u64) : [m]u64 =
  tabulate m (\i -> loop acc = 0u64 for j < 64 do
                      acc | (bit_at x (64 * i + j + k) << u64.i64 j))

-- Self-checking: (seed, n, m, bits).
-- ==
-- entry: test_cmp test_shifts test_bitwise
-- input { 1u64 0i64 4i64 256i64 }     output { true }
-- input { 2u64 1i64 4i64 1i64 }       output { true }
-- input { 3u64 3i64 4i64 200i64 }     output { true }
-- input { 4u64 300i64 4i64 256i64 }   output { true }
-- input { 6u64 130i64 8i64 449i64 }   output { true }
-- input { 8u64 40i64 16i64 1024i64 }  output { true }
-- input { 10u64 17i64 64i64 4096i64 } output { true }
-- input { 15u64 3i64 5000i64 320000i64 } output { true }

entry test_cmp (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = map2 (\i x -> if i % 3 == 0 then x else copy (gen (seed + 100) n m bits)[i]) (iota n) a
  let ref x y = loop s = 0i8 for i < m do
                  if x[i] < y[i] then -1 else if x[i] > y[i] then 1 else s
  in and (map3 (\x y c -> c == ref x y) a b (cmp a b))

entry test_shifts (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let ks = gen_counts seed n m
  let k = i64.u64 (mix seed % 300)
  in all_eq (shl bits k a) (map (ref_shl bits k) a)
     && all_eq (shr k a) (map (ref_shr k) a)
     && all_eq (shl_each bits ks a) (map2 (ref_shl bits) ks a)
     && all_eq (shr_each ks a) (map2 ref_shr ks a)
     && all_eq (shl bits (i64.highest / 2) a) (map (map (const 0)) a)
     && all_eq (shr (i64.highest / 2) a) (map (map (const 0)) a)

entry test_bitwise (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let all_ones = map (\_ -> tabulate m (\i -> limb_mask bits i)) a
  in all_eq (bit_xor (bit_or (bit_and a b) (bit_and a (bit_not bits b))) a) (map (map (const 0)) a)
     && all_eq (bit_or a (bit_not bits a)) all_ones
     && all_eq (bit_and b (bit_not bits b)) (map (map (const 0)) a)

-- ==
-- entry: test_exceeds_small
-- input { 65i64 [[0u64, 1u64, 0u64, 0u64], [0u64, 2u64, 0u64, 0u64], [7u64, 0u64, 0u64, 9u64]] }
-- output { [0u8, 1u8, 1u8] }
-- input { 0i64 [[0u64], [5u64]] } output { [0u8, 1u8] }
-- input { 256i64 [[18446744073709551615u64, 1u64, 1u64, 18446744073709551615u64]] }
-- output { [0u8] }
-- input { 64i64 empty([0][4]u64) } output { empty([0]u8) }
entry test_exceeds_small [n][m] (bits: i64) (x: [n][m]u64) = exceeds bits x

-- Self-checking: rows of `bits + 70` bits flagged against a bit-by-bit
-- reference, for every `bits` from 0 to 64*m.  (seed, n, m)
-- ==
-- entry: test_exceeds
-- input { 1u64 7i64 4i64 }  output { true }
-- input { 2u64 33i64 8i64 } output { true }
entry test_exceeds (seed: u64) (n: i64) (m: i64) : bool =
  all (\bits ->
         let x = gen (seed + u64.i64 bits) n m (i64.min (64 * m) (bits + 70))
         let ref row = u8.bool (any (\p -> bit_at row p == 1) (bits..<64 * m))
         in and (map2 (==) (exceeds bits x) (map ref x)))
      (0...64 * m)
