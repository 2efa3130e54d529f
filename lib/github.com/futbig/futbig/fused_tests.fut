-- Tests of fused.fut against compositions of the sequential references.

import "limbs"
import "fused"
import "testing"

-- ==
-- entry: test_add6_small
-- input { 256i64 [[1u64, 0u64, 0u64, 0u64]] [[2u64, 0u64, 0u64, 0u64]] }
-- output { [[26u64, 0u64, 0u64, 0u64]] }
entry test_add6_small [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) = add6 bits a b

-- (2*2+3)*(3*3+3)+2*3 = 90
-- ==
-- entry: test_poly_small
-- input { 256i64 [[2u64, 0u64, 0u64, 0u64]] [[3u64, 0u64, 0u64, 0u64]] }
-- output { [[90u64, 0u64, 0u64, 0u64]] }
entry test_poly_small [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) = poly false bits a b

local def radd [m] (x: [m]u64) (y: [m]u64) : [m]u64 = (ref_add 0 x y).0
local def rmul [m] (x: [m]u64) (y: [m]u64) : [m]u64 = take m (ref_mul x y)

-- Self-checking: (seed, n, m, bits).
-- ==
-- entry: test_add6 test_poly
-- input { 1u64 0i64 4i64 256i64 }     output { true }
-- input { 2u64 1i64 4i64 1i64 }       output { true }
-- input { 3u64 3i64 4i64 200i64 }     output { true }
-- input { 4u64 300i64 4i64 256i64 }   output { true }
-- input { 5u64 130i64 8i64 512i64 }   output { true }
-- input { 7u64 70i64 12i64 576i64 }   output { true }
-- input { 8u64 40i64 16i64 1024i64 }  output { true }
-- input { 9u64 40i64 20i64 1088i64 }  output { true }
-- input { 10u64 17i64 64i64 4096i64 } output { true }
-- input { 11u64 17i64 68i64 4160i64 } output { true }
-- input { 12u64 3i64 256i64 16320i64 } output { true }
-- input { 13u64 2i64 1000i64 64000i64 } output { true }
-- input { 15u64 1i64 4100i64 262400i64 } output { true }

entry test_add6 (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let ref = map2 (\x y -> let t1 = radd x y
                          let t2 = radd t1 t1
                          let t5 = radd (radd (radd t2 t1) y) y
                          in mask_row bits (radd t5 t5)) a b
  in all_eq (add6 bits a b) ref

entry test_poly (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let ref = map2 (\x y -> mask_row bits (radd (rmul (radd (rmul x x) y) (radd (rmul y y) y))
                                              (rmul x y))) a b
  in all_eq (poly false bits a b) ref
