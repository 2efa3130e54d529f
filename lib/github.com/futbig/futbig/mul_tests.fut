-- Tests of mul.fut against the sequential references of testing.fut.

import "limbs"
import "mul"
import "testing"
import "thresholds"

-- Hand-checkable: (2^64-1)^2 = 2^128 - 2^65 + 1, and 3*5.
-- ==
-- entry: test_mul_full_small
-- input { [[18446744073709551615u64, 0u64, 0u64, 0u64], [3u64, 0u64, 0u64, 0u64]]
--         [[18446744073709551615u64, 0u64, 0u64, 0u64], [5u64, 0u64, 0u64, 0u64]] }
-- output { [[1u64, 18446744073709551614u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64],
--           [15u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64]] }
entry test_mul_full_small [n][m] (a: [n][m]u64) (b: [n][m]u64) = mul_full false a b

-- ==
-- entry: test_mul_limb_small
-- input { 72i64 [[18446744073709551615u64, 255u64, 0u64, 0u64]] [256u64] }
-- output { [[18446744073709551360u64, 255u64, 0u64, 0u64]] [255u64] }
entry test_mul_limb_small [n][m] (bits: i64) (a: [n][m]u64) (d: [n]u64) = mul_limb bits a d

-- `load_rows` (limbs.fut), convmul's padded staging: rows of 4 limbs 5
-- apart, zeros between them and past the end of the array; and unpadded.
-- ==
-- entry: test_load_rows
-- input { [1u64, 2u64, 3u64, 4u64, 5u64, 6u64, 7u64, 8u64, 9u64, 10u64] 2i64 2i64 4i64 5i64 }
-- output { [3u64, 4u64, 5u64, 6u64, 0u64, 7u64, 8u64, 9u64, 10u64, 0u64] }
-- input { [1u64, 2u64, 3u64, 4u64, 5u64, 6u64, 7u64, 8u64, 9u64, 10u64] 4i64 2i64 4i64 5i64 }
-- output { [5u64, 6u64, 7u64, 8u64, 0u64, 9u64, 10u64, 0u64, 0u64, 0u64] }
-- input { [1u64, 2u64, 3u64, 4u64, 5u64, 6u64, 7u64, 8u64, 9u64, 10u64] 0i64 2i64 4i64 4i64 }
-- output { [1u64, 2u64, 3u64, 4u64, 5u64, 6u64, 7u64, 8u64] }
-- input { [1u64, 2u64, 3u64, 4u64, 5u64, 6u64, 7u64, 8u64, 9u64, 10u64] 1i64 3i64 4i64 5i64 }
-- output { [2u64, 3u64, 4u64, 5u64, 0u64, 6u64, 7u64, 8u64, 9u64, 0u64, 10u64, 0u64, 0u64, 0u64, 0u64] }
entry test_load_rows [k] (xs: [k]u64) (off: i64) (ipb: i64) (m: i64) (stride: i64) : []u64 =
  load_rows xs off ipb m stride

-- Self-checking: (seed, n, m, bits).
-- ==
-- entry: test_mul_lo test_sqr_lo test_mul_full test_sqr_full test_mul_limb
-- input { 1u64 0i64 4i64 256i64 }     output { true }
-- input { 2u64 1i64 4i64 1i64 }       output { true }
-- input { 3u64 3i64 4i64 200i64 }     output { true }
-- input { 4u64 300i64 4i64 256i64 }   output { true }
-- input { 5u64 130i64 8i64 512i64 }   output { true }
-- input { 6u64 130i64 8i64 449i64 }   output { true }
-- input { 7u64 70i64 12i64 576i64 }   output { true }
-- input { 8u64 40i64 16i64 1024i64 }  output { true }
-- input { 9u64 40i64 20i64 1088i64 }  output { true }
-- input { 16u64 9i64 28i64 1792i64 }  output { true }
-- input { 17u64 9i64 32i64 2047i64 }  output { true }
-- input { 18u64 9i64 36i64 2300i64 }  output { true }
-- input { 10u64 17i64 64i64 4096i64 } output { true }
-- input { 11u64 17i64 68i64 4160i64 } output { true }
-- input { 19u64 13i64 124i64 7900i64 } output { true }
-- input { 20u64 11i64 96i64 6144i64 } output { true }
-- input { 12u64 5i64 256i64 16320i64 } output { true }
-- input { 13u64 2i64 1000i64 64000i64 } output { true }
-- input { 14u64 2i64 2052i64 131328i64 } output { true }
-- input { 15u64 1i64 4100i64 262400i64 } output { true }

-- The operands of the self-checking tests.
local def operands (seed: u64) (n: i64) (m: i64) (bits: i64) : ([n][m]u64, [n][m]u64) =
  (gen seed n m bits, gen (seed + 100) n m bits)

-- Whether `got` holds the low halves of the products, reduced modulo `2^bits`.
local def lo_ok [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) (got: [n][m]u64) : bool =
  all_eq got (map2 (\x y -> mask_row bits (take m (ref_mul x y))) a b)

-- Whether `got` holds the full products.
local def full_ok [n][m] (a: [n][m]u64) (b: [n][m]u64) (got: [n][m*2]u64) : bool =
  all_eq got (map2 ref_mul a b)

-- Whether `got` holds the low halves of the squares.
local def sqr_lo_ok [n][m] (bits: i64) (a: [n][m]u64) (got: [n][m]u64) : bool =
  all_eq got (map (\x -> mask_row bits (take m (ref_mul x x))) a)

-- The classical products at every width (the NTT has ntt_tests.fut, the
-- ladder `test_ladder`).
entry test_mul_lo (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands seed n m bits
  in lo_ok bits a b (mul_lo_by false mul_classical bits a b)

entry test_sqr_lo (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  in sqr_lo_ok bits a (sqr_lo_by false mul_classical bits a)

entry test_mul_full (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands seed n m bits
  in full_ok a b (mul_full_by false mul_classical a b)

entry test_sqr_full (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  in all_eq (sqr_full_by false mul_classical a) (map2 ref_mul a a)

-- The CPU backends' classical multiplication (`mul_by_rows`: `mul_seq`,
-- `sqr_seq`), products and squares, low halves and full, at widths that
-- are not multiples of 4 and odd bit widths.
-- ==
-- entry: test_rows
-- input { 41u64 3i64 1i64 64i64 }     output { true }
-- input { 42u64 5i64 1i64 7i64 }      output { true }
-- input { 43u64 0i64 2i64 128i64 }    output { true }
-- input { 44u64 7i64 3i64 150i64 }    output { true }
-- input { 45u64 9i64 4i64 256i64 }    output { true }
-- input { 46u64 9i64 5i64 300i64 }    output { true }
-- input { 47u64 5i64 33i64 2100i64 }  output { true }
-- input { 48u64 4i64 64i64 4096i64 }  output { true }
-- input { 49u64 3i64 129i64 8200i64 } output { true }

entry test_rows (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands seed n m bits
  in lo_ok bits a b (mul_lo_by true mul_classical bits a b)
     && sqr_lo_ok bits a (sqr_lo_by true mul_classical bits a)
     && full_ok a b (mul_full_by true mul_classical a b)
     && all_eq (sqr_full_by true mul_classical a) (map2 ref_mul a a)

-- `mul_lo` and `mul_full` around the per-thread widths (up to
-- `thread_mul_limbs` = 32 and `thread_mul_full_limbs` = 28), with partial
-- last blocks (128 instances a block) and odd bit widths; above them they
-- run convmul.  And convmul itself (products and squares) at the same
-- widths, which `mul_lo` and `mul_full` do not use up to those.
-- ==
-- entry: test_mul_lo test_mul_full test_mul_lo_convmul test_mul_full_convmul test_sqr_lo_convmul test_sqr_full_convmul
-- input { 21u64 0i64 4i64 256i64 }     output { true }
-- input { 22u64 1i64 4i64 1i64 }       output { true }
-- input { 23u64 300i64 4i64 256i64 }   output { true }
-- input { 24u64 128i64 4i64 193i64 }   output { true }
-- input { 25u64 130i64 8i64 512i64 }   output { true }
-- input { 26u64 257i64 8i64 449i64 }   output { true }
-- input { 27u64 129i64 12i64 700i64 }  output { true }
-- input { 28u64 140i64 16i64 1024i64 } output { true }
-- input { 29u64 131i64 16i64 961i64 }  output { true }
-- input { 30u64 100i64 20i64 1280i64 } output { true }
-- input { 31u64 100i64 24i64 1500i64 } output { true }
-- input { 32u64 100i64 28i64 1792i64 } output { true }
-- input { 33u64 200i64 32i64 2048i64 } output { true }
-- input { 34u64 77i64 32i64 1983i64 }  output { true }
-- input { 35u64 40i64 36i64 2304i64 }  output { true }

entry test_mul_lo_convmul (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands seed n m bits
  in lo_ok bits a b (mul_lo_convmul bits a b)

entry test_mul_full_convmul (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands seed n m bits
  in full_ok a b (mul_full_convmul a b)

entry test_sqr_lo_convmul (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  in sqr_lo_ok bits a (sqr_lo_convmul bits a)

entry test_sqr_full_convmul (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  in all_eq (sqr_full_convmul a) (map2 ref_mul a a)

entry test_mul_limb (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let d = map (\i -> let h = mix (seed * 31 + u64.i64 i)
                     in if i % 4 == 0 then u64.highest else h) (iota n)
  let (ws, hs) = mul_limb bits a d
  let ok = map4 (\x di w h ->
                   let (lo, top) = ref_mul_limb x di
                   let full = lo ++ [top, 0]
                   let ref_h = loop acc = 0u64 for j < 64 do acc | (bit_at full (bits + j) << u64.i64 j)
                   in and (map2 (==) w (mask_row bits lo)) && h == ref_h)
                a d ws hs
  in and ok

-- The ladder's choice one step (4 limbs) below, at and above each switch
-- to the NTT, for the GPU's (`cpu` false) and the CPUs' switch points:
-- (seed, n, cpu, op, step), op 0..3 = mul_lo, mul_full, sqr_lo, sqr_full.
-- ==
-- entry: test_ladder
-- input { 40u64 3i64 false 0i64 -1i64 } output { true }
-- input { 41u64 3i64 false 0i64 0i64 }  output { true }
-- input { 42u64 3i64 false 0i64 1i64 }  output { true }
-- input { 43u64 3i64 false 1i64 -1i64 } output { true }
-- input { 44u64 3i64 false 1i64 0i64 }  output { true }
-- input { 45u64 3i64 false 1i64 1i64 }  output { true }
-- input { 46u64 3i64 false 2i64 -1i64 } output { true }
-- input { 47u64 3i64 false 2i64 0i64 }  output { true }
-- input { 48u64 3i64 false 2i64 1i64 }  output { true }
-- input { 49u64 3i64 false 3i64 -1i64 } output { true }
-- input { 50u64 3i64 false 3i64 0i64 }  output { true }
-- input { 51u64 3i64 false 3i64 1i64 }  output { true }
-- input { 52u64 3i64 true 0i64 -1i64 }  output { true }
-- input { 53u64 3i64 true 0i64 0i64 }   output { true }
-- input { 54u64 3i64 true 0i64 1i64 }   output { true }
-- input { 55u64 3i64 true 1i64 -1i64 }  output { true }
-- input { 56u64 3i64 true 1i64 0i64 }   output { true }
-- input { 57u64 3i64 true 1i64 1i64 }   output { true }
-- input { 58u64 3i64 true 2i64 -1i64 }  output { true }
-- input { 59u64 3i64 true 2i64 0i64 }   output { true }
-- input { 60u64 3i64 true 2i64 1i64 }   output { true }
-- input { 61u64 3i64 true 3i64 -1i64 }  output { true }
-- input { 62u64 3i64 true 3i64 0i64 }   output { true }
-- input { 63u64 3i64 true 3i64 1i64 }   output { true }

entry test_ladder (seed: u64) (n: i64) (cpu: bool) (op: i64) (step: i64) : bool =
  let from = match op
             case 0 -> ntt_lo_limbs cpu
             case 1 -> ntt_full_limbs cpu
             case 2 -> ntt_sqr_lo_limbs cpu
             case _ -> ntt_sqr_full_limbs cpu
  let m = from + 4 * step
  let bits = 64 * m - 3
  let (a, b) = operands seed n m bits
  in match op
     case 0 -> lo_ok bits a b (mul_lo cpu bits a b)
     case 1 -> full_ok a b (mul_full cpu a b)
     case 2 -> sqr_lo_ok bits a (sqr_lo_by cpu mul_auto bits a)
     case _ -> all_eq (sqr_full_by cpu mul_auto a) (map2 ref_mul a a)
