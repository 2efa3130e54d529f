-- | Fused programs of several dependent operations in one GPU kernel (the
-- papers' benchmarks): intermediate results stay in the block (registers
-- and shared memory) between the operations.

import "limbs"
import "blocks"
import "thresholds"
import "add"
import "mul"

-- Masks thread `i`'s quad (instance width `m`) to `bits`.
local def mask_quad (bits: i64) (m: i64) (i: i64) ((w0, w1, w2, w3): quad) : quad =
  let l = rem32 (4 * i) m
  in (mask_limb bits l w0, mask_limb bits (l+1) w1, mask_limb bits (l+2) w2, mask_limb bits (l+3) w3)

-- Within a block, `add6` keeps numbers with deferred carries: thread `i`
-- holds a quad and the count of carries out of its top limb that still
-- have to be added into thread `i+1`'s quad.  The six additions then need
-- no communication between threads; one block addition at the end adds the
-- counts in (the count of an instance's last thread is dropped: mod
-- 2^(64m)).  Six block additions, each with its own carry scan, measured
-- 2352 us per 2^32-bit batch on the H200 at every width.
local type lazy = (quad, u64)

local def lazy_add (((x0, x1, x2, x3), cx): lazy) (((y0, y1, y2, y3), cy): lazy) : lazy =
  let (s0, k0) = adc x0 y0 0
  let (s1, k1) = adc x1 y1 k0
  let (s2, k2) = adc x2 y2 k1
  let (s3, k3) = adc x3 y3 k2
  in ((s0, s1, s2, s3), cx + cy + k3)

-- | `6a + 10b mod 2^bits` on one block of instances (the limbs at `off` of
-- the flat `af` and `bf`) by six dependent additions: t1 = a+b, t2 = t1+t1,
-- t3 = t2+t1, t4 = t3+b, t5 = t4+b, t6 = t5+t5, with deferred carries.
local def add6_quads [k] (bits: i64) (m: i64) (g: i64) (af: [k]u64) (bf: [k]u64) (off: i64) : [g]quad =
  let seg = m / 4
  let (qs, cs) =
    tabulate g (\i -> let a = (quad_from af (off + 4*i), 0)
                      let b = (quad_from bf (off + 4*i), 0)
                      let t1 = lazy_add a b
                      let t2 = lazy_add t1 t1
                      let t3 = lazy_add t2 t1
                      let t4 = lazy_add t3 b
                      let t5 = lazy_add t4 b
                      in lazy_add t5 t5)
    |> unzip
  -- The predecessor is only read within the instance (i > 0).
  let deferred i = if rem32 i seg == 0 then zero_quad else (#[unsafe] cs[i-1], 0, 0, 0)
  in add_quads_with g seg carry_none (\i w _ -> mask_quad bits m i w) (\i -> qs[i]) deferred

local def add6_row [m] (bits: i64) (a: [m]u64) (b: [m]u64) : [m]u64 =
  let add x y = (add_row carry_none x y).0
  let t1 = add a b
  let t2 = add t1 t1
  let t3 = add t2 t1
  let t4 = add t3 b
  let t5 = add t4 b
  in mask_row bits (add t5 t5)

-- | `6a + 10b mod 2^bits`, six dependent additions in one kernel.
def add6 [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  if m <= max_block_limbs then
    let ipb = instances_per_block add_block_threads m
    let g = ipb * (m / 4)
    let af = opaque (flatten a)
    let bf = opaque (flatten b)
    in block_map (num_blocks n ipb)
                 (\blk -> store_quads (add6_quads bits m g af bf (blk * (ipb * m))) :> [ipb*m]u64)
       |> unblock n m
  else map2 (add6_row bits) a b |> row_major

-- | `(a*a + b) * (b*b + b) + a*b mod 2^bits` on one block of instances.
local def poly_quads [k] (bits: i64) (m: i64) (g: i64) (xs: [k]u64) (ys: [k]u64) : [g]quad =
  let seg = m / 4
  let plain _ w _ = w
  let mul_add xs ys (z: i64 -> quad) =
    let pr = mul_lo_quads_with m g plain xs ys
    in add_quads_with g seg carry_none plain (\i -> pr[i]) z
  let s1 = store_quads (mul_add xs xs (quad_at ys)) :> [k]u64
  let s2 = store_quads (mul_add ys ys (quad_at ys)) :> [k]u64
  let ab = mul_lo_quads_with m g plain xs ys
  let p = mul_lo_quads_with m g plain s1 s2
  in add_quads_with g seg carry_none (\i w _ -> mask_quad bits m i w)
                    (\i -> p[i]) (\i -> ab[i])

-- | `(a*a + b) * (b*b + b) + a*b mod 2^bits` in one kernel (widths up to
-- `poly_block_limbs`); wider ones as a sequence of batched `mul_lo` and
-- `add` kernels, each block-level up to `max_block_limbs`.  (A map of
-- per-row code here was slower and, on CUDA with 2^15 or more instances,
-- where Futhark picks a one-thread-per-row version, wrong.)
def poly [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  if m <= poly_block_limbs then
    let ipb = instances_per_block mul_block_threads m
    let g = ipb * (m / 4)
    let af = opaque (flatten a)
    let bf = opaque (flatten b)
    in block_map (num_blocks n ipb)
                 (\blk -> let off = blk * (ipb * m)
                          in store_quads (poly_quads bits m g (load_limbs af off g) (load_limbs bf off g))
                             :> [ipb*m]u64)
       |> unblock n m
  else let add x y = (add cpu bits x y).0
       let mul x y = mul_lo cpu bits x y
       in add (mul (add (mul a a) b) (add (mul b b) b)) (mul a b)
