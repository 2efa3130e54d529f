-- Tests of add.fut against the sequential references of testing.fut.

import "add"
import "limbs"
import "testing"

-- Hand-checkable: carry chains across limbs and the carry flag.
-- ==
-- entry: test_add_small
-- input { 128i64 [[18446744073709551615u64, 18446744073709551615u64, 0u64, 0u64],
--                 [5u64, 0u64, 0u64, 0u64]]
--                [[1u64, 0u64, 0u64, 0u64], [7u64, 0u64, 0u64, 0u64]] }
-- output { [[0u64, 0u64, 0u64, 0u64], [12u64, 0u64, 0u64, 0u64]] [1u8, 0u8] }
-- input { 129i64 [[18446744073709551615u64, 18446744073709551615u64, 0u64, 0u64]]
--                [[1u64, 0u64, 0u64, 0u64]] }
-- output { [[0u64, 0u64, 1u64, 0u64]] [0u8] }
entry test_add_small [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) = add false bits a b

-- ==
-- entry: test_sub_small
-- input { 256i64 [[0u64, 0u64, 1u64, 0u64], [3u64, 0u64, 0u64, 0u64]]
--                [[1u64, 0u64, 0u64, 0u64], [5u64, 0u64, 0u64, 0u64]] }
-- output { [[18446744073709551615u64, 18446744073709551615u64, 0u64, 0u64],
--           [18446744073709551614u64, 18446744073709551615u64,
--            18446744073709551615u64, 18446744073709551615u64]] [0u8, 1u8] }
entry test_sub_small [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) = sub false bits a b

-- ==
-- entry: test_neg_small
-- input { 70i64 [[1u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64]] }
-- output { [[18446744073709551615u64, 63u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64]] }
entry test_neg_small [n][m] (bits: i64) (a: [n][m]u64) = neg false bits a

-- Self-checking: (seed, n, m, bits), in both layouts (`cpu` false: the
-- GPU's block kernels; true: rows).
-- ==
-- entry: test_add test_sub test_neg
-- input { 1u64 0i64 4i64 256i64 }     output { true }
-- input { 2u64 1i64 4i64 1i64 }       output { true }
-- input { 3u64 3i64 4i64 200i64 }     output { true }
-- input { 4u64 300i64 4i64 256i64 }   output { true }
-- input { 5u64 130i64 8i64 512i64 }   output { true }
-- input { 6u64 130i64 8i64 449i64 }   output { true }
-- input { 7u64 70i64 12i64 576i64 }   output { true }
-- input { 8u64 40i64 16i64 1024i64 }  output { true }
-- input { 9u64 40i64 20i64 1088i64 }  output { true }
-- input { 10u64 17i64 64i64 4096i64 } output { true }
-- input { 11u64 17i64 68i64 4160i64 } output { true }
-- input { 12u64 9i64 256i64 16320i64 } output { true }
-- input { 13u64 5i64 1000i64 64000i64 } output { true }
-- input { 14u64 3i64 4096i64 262144i64 } output { true }
-- input { 15u64 3i64 5000i64 320000i64 } output { true }
-- input { 16u64 3i64 5000i64 1i64 }   output { true }

entry test_add (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let check (ws, cs) =
    and (map4 (\x y w c ->
                 let (full, cout) = ref_add 0 x y
                 let ref_c = bit_at (full ++ [cout]) bits
                 in and (map2 (==) w (mask_row bits full)) && u64.u8 c == ref_c)
              a b ws cs)
  in check (add false bits a b) && check (add true bits a b)

entry test_sub (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let check (ws, bs) =
    and (map4 (\x y w br ->
                 let (full, bout) = ref_sub x y
                 in and (map2 (==) w (mask_row bits full)) && u64.u8 br == bout)
              a b ws bs)
  in check (sub false bits a b) && check (sub true bits a b)

entry test_neg (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let check ws = and (map2 (\x w -> let (full, _) = ref_sub (map (const 0) x) x
                                    in and (map2 (==) w (mask_row bits full)))
                          a ws)
  in check (neg false bits a) && check (neg true bits a)
