-- A program of its own that fuses a sequence of futbig operations into one
-- kernel: `(a + b) * c mod 2^(64m)` for every row, with the sum kept in the
-- block (registers and shared memory) between the addition and the
-- multiplication instead of going through global memory.

import "lib/github.com/futbig/futbig/limbs"
import "lib/github.com/futbig/futbig/blocks"
import "lib/github.com/futbig/futbig/thresholds"
import "lib/github.com/futbig/futbig/add"
import "lib/github.com/futbig/futbig/mul"
import "lib/github.com/futbig/futbig/testing"

-- | `(a + b) * c mod 2^(64m)`; `m` a multiple of 4, at most `poly_block_limbs`
-- (one block's shared memory holds the rows and the intermediates).
def add_mul [n][m] (a: [n][m]u64) (b: [n][m]u64) (c: [n][m]u64) : [n][m]u64 =
  let ipb = instances_per_block mul_block_threads m -- rows per block
  let g = ipb * (m / 4)                             -- threads per block, 4 limbs each
  let (af, bf, cf) = (opaque (flatten a), opaque (flatten b), opaque (flatten c))
  let keep _ quad _ = quad                          -- no masking, carry out dropped
  in block_map (num_blocks n ipb)
               (\blk -> let off = blk * (ipb * m)
                        let x = load_limbs af off g
                        let y = load_limbs bf off g
                        let s = add_quads_with g (m / 4) carry_none keep (quad_at x) (quad_at y)
                        let p = mul_lo_quads_with m g keep (store_quads s :> [4*g]u64) (load_limbs cf off g)
                        in store_quads p :> [ipb*m]u64)
     |> unblock n m

-- Checked against futbig's sequential reference code; (seed, n, m).
-- ==
-- entry: test_add_mul
-- input { 1u64 1i64 4i64 }    output { true }
-- input { 2u64 300i64 4i64 }  output { true }
-- input { 3u64 70i64 12i64 }  output { true }
-- input { 4u64 9i64 64i64 }   output { true }
-- input { 5u64 2i64 1024i64 } output { true }
entry test_add_mul (seed: u64) (n: i64) (m: i64) : bool =
  let (a, b, c) = (gen seed n m (64 * m), gen (seed + 1) n m (64 * m), gen (seed + 2) n m (64 * m))
  let expected = map3 (\x y z -> take m (ref_mul (ref_add 0 x y).0 z)) a b c
  in all_eq (add_mul a b c) expected
