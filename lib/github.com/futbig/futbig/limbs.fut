-- | Common helpers for batches of big integers stored as little-endian
-- arrays of u64 limbs.
--
-- Block-level (intra-group) kernels (`block_map` of blocks.fut) give each
-- GPU thread Q = 4 consecutive limbs of one instance.  A block holds `ipb`
-- instances of `m` limbs, so it has `g = ipb * (m/4)` threads; thread `i`
-- owns limbs `4*i .. 4*i+3` of the block's flattened `ipb*m` limbs.

import "thresholds"

-- | The four limbs owned by one thread, least significant first.
type quad = (u64, u64, u64, u64)

-- | The quad of zeros.
def zero_quad : quad = (0, 0, 0, 0)

-- | Mask for limb `i` of a number reduced modulo `2^bits`.
def limb_mask (bits: i64) (i: i64) : u64 =
  let t = bits / 64
  in if i < t then u64.highest
     else if i == t then (1 << u64.i64 (bits % 64)) - 1
     else 0

-- | Reduce `x` (limb `i`) modulo `2^bits`.
def mask_limb (bits: i64) (i: i64) (x: u64) : u64 =
  x & limb_mask bits i

-- | Reduce every limb of one instance modulo `2^bits`.
def mask_row [m] (bits: i64) (xs: [m]u64) : [m]u64 =
  map2 (mask_limb bits) (iota m) xs

-- | `x + y + c` for `c <= 1`, and the carry out.
def adc (x: u64) (y: u64) (c: u64) : (u64, u64) =
  let t = x + y
  let s = t + c
  in (s, u64.bool (t < x) + u64.bool (s < t))

-- | `t + x*y + c` as its (low, high) limbs: at most `2^128 - 1`, so it
-- never overflows (the step of schoolbook and Montgomery products).
def mul_add (x: u64) (y: u64) (t: u64) (c: u64) : (u64, u64) =
  let lo = x * y
  let s = lo + t
  let hi = u64.mul_hi x y + u64.bool (s < lo)
  let s2 = s + c
  in (s2, hi + u64.bool (s2 < c))

-- | `i / d` for block-local indices (`0 <= i < 2^31`, `d > 0`): 32-bit
-- division is several times cheaper than 64-bit division on GPUs.
def quot32 (i: i64) (d: i64) : i64 = i64.i32 (i32.i64 i / i32.i64 d)

-- | `i % d` for block-local indices, as `quot32`.
def rem32 (i: i64) (d: i64) : i64 = i64.i32 (i32.i64 i % i32.i64 d)

-- | Instances per block for width `m` so that a block has at least `threads`
-- threads (rounded up, as in the thesis' Listing 1), never above
-- `max_block_threads`.
def instances_per_block (threads: i64) (m: i64) : i64 =
  let per = i64.max 1 (m / 4)
  in i64.max 1 (i64.min ((threads + per - 1) / per) (max_block_threads / per))

-- | Coalesced copy of `4*g` limbs starting at limb `off` of the flat global
-- array `xs` (limbs past its end read as 0) into a block-local array, from
-- which thread `i` then reads its quad with `quad_at`.  Each of the four maps
-- reads consecutive limbs with consecutive threads; the concatenation is
-- short-circuited by the compiler, so the maps write straight into one
-- shared-memory buffer (thesis Listing 4).
def load_limbs [k] (xs: [k]u64) (off: i64) (g: i64) : [4*g]u64 =
  -- Indices are in bounds by the explicit test; #[unsafe] drops the check.
  let get (i: i64) = #[unsafe] if off + i < k then xs[off + i] else 0
  let x0 = tabulate g (\i -> get i)
  let x1 = tabulate g (\i -> get (g + i))
  let x2 = tabulate g (\i -> get (2*g + i))
  let x3 = tabulate g (\i -> get (3*g + i))
  -- `opaque` keeps the simplifier from turning reads of the concatenation
  -- into branches over its four parts, and keeps consumers from fusing the
  -- reads (which would materialise each quad again in shared memory).
  in opaque (x0 ++ x1 ++ x2 ++ x3 :> [4*g]u64)

-- | `ipb` rows of `m` limbs starting at limb `off` of the flat global array
-- `xs` (limbs past its end read as 0), staged in a block-local array with
-- the rows `stride` limbs apart (`m <= stride <= m + m/4`, zeros between
-- them).  With `stride = m + 1` the rows of consecutive instances start in
-- consecutive banks of shared memory, so threads reading the same limb of
-- several instances do not conflict.  As in `load_limbs`, each of the maps
-- has at most `g = ipb*m/4` elements (a block-level kernel gets as many
-- threads as its widest map: one map over all `ipb*stride` limbs made the
-- blocks four times as large and convmul twice as slow on an H100) and
-- reads consecutive limbs with consecutive threads.
def load_rows [k] (xs: [k]u64) (off: i64) (ipb: i64) (m: i64) (stride: i64) : [ipb*stride]u64 =
  let g = ipb * (m / 4)
  -- Element `e` is limb `j` of row `s`.
  let get (e: i64) =
    let s = quot32 e stride
    let j = e - s * stride
    let i = off + s * m + j
    -- Indices are in bounds by the explicit test; #[unsafe] drops the check.
    in #[unsafe] if j < m && i < k then xs[i] else 0
  let x0 = tabulate g (\e -> get e)
  let x1 = tabulate g (\e -> get (g + e))
  let x2 = tabulate g (\e -> get (2*g + e))
  let x3 = tabulate g (\e -> get (3*g + e))
  let x4 = tabulate (ipb * (stride - m)) (\e -> get (4*g + e))
  -- `opaque` as in `load_limbs`.
  in opaque (x0 ++ x1 ++ x2 ++ x3 ++ x4 :> [ipb*stride]u64)

-- | The quad of limbs `j .. j+3` of the flat global array `xs`, zeros past
-- its end (`j` and `k` are multiples of 4).  A thread reading its quad
-- straight from global memory reads one whole 32-byte sector, so nothing is
-- wasted; for `add` this measured 594 us per 2^32-bit batch on the H200
-- against 642 us when staging through shared memory with `load_limbs`.
def quad_from [k] (xs: [k]u64) (j: i64) : quad =
  #[unsafe] if j < k then (xs[j], xs[j+1], xs[j+2], xs[j+3]) else zero_quad

-- | `xs` in row-major layout, for the result of a map over rows (the wide
-- path of an operation).  A GPU version of such a map may lay its result out
-- transposed, and the `if` choosing between the block and the row path then
-- had to copy every result into row-major order, whichever path ran: 250 us
-- per 2^32-bit batch on the H200 for `mul_lo`, `add6` and `poly`.  With
-- this, only the row path copies.
def row_major [n][m] (xs: [n][m]u64) : [n][m]u64 =
  flatten xs |> opaque |> unflatten

-- | Limb `lo + j` of every row of `x` as limb `j` of `w` limbs, for
-- `j < len` (zero elsewhere and outside the row); `lo < 0` shifts the
-- rows up by `-lo` limbs.
def window [n][k] (w: i64) (lo: i64) (len: i64) (x: [n][k]u64) : [n][w]u64 =
  map (\r -> tabulate w (\j -> let i = lo + j
                               in if j < len && i >= 0 && i < k then #[unsafe] r[i] else 0))
      x

-- | Flat, naturally ordered limbs of `g` quads.
def store_quads [g] (ws: [g]quad) : [g*4]u64 =
  flatten (map (\(w0, w1, w2, w3) -> [w0, w1, w2, w3]) ws)

-- | The quad of thread `i` in a flat array of limbs.
def quad_at [k] (xs: [k]u64) (i: i64) : quad =
  -- Callers pass i < k/4.
  #[unsafe] (xs[4*i], xs[4*i+1], xs[4*i+2], xs[4*i+3])
