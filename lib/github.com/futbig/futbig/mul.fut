-- | Multiplication of batches of big integers: the work-balanced classical
-- *convmul* of thesis sec. 8.1-8.3 with Q = 4 (each thread computes two
-- pairs of consecutive convolutions, one from each end, then one
-- carry-propagating addition), one instance per thread for small widths,
-- multiplication by one limb (sec. 8.4), and the ladder that picks between
-- them and the NTT (ntt.fut) by width and backend (thresholds.fut).

import "limbs"
import "blocks"
import "thresholds"
import "add"
import "ntt"

-- Products of a convolution accumulate in four 64-bit columns of weights
-- 2^0, 2^32, 2^64 and 2^96: each 64x64-bit product is split into its four
-- 32x32-bit partial products (one `IMAD.WIDE.U32` each on CUDA), whose 32-bit
-- halves are added into the columns.  A column gains at most three 32-bit
-- values per product, so it cannot overflow for fewer than 2^30 products,
-- and no carries need detecting in the inner loop.  In the sm_90 SASS the
-- loop takes about 21 instructions per product, against about 25 for the
-- earlier `x*y` and `mul_hi` added into two 64-bit sums with overflow
-- counters (nvcc does not fuse those comparisons with the additions, and its
-- `mul_hi` recomputes partial products of `x*y`).  H200, us per 2^32-bit
-- batch of `mul_lo`, before -> after: 512 bits 1265 -> 1119, 4096 bits
-- 4615 -> 3733, 65536 bits 45419 -> 34528, 262144 bits 177343 -> 130398.
-- Halves as `u32` with `*` and `u32.mul_hi` compile to 78 rather than 83
-- instructions per 4 products (IMAD + IMAD.HI instead of IMAD.WIDE), not
-- measured.
local type acc = (u64, u64, u64, u64)

local def acc_zero : acc = (0, 0, 0, 0)

local def lo32 (x: u64) : u64 = u64.u32 (u32.u64 x)
local def hi32 (x: u64) : u64 = x >> 32

-- The 32-bit halves of a limb, zero-extended (so that products of halves
-- compile to 32x32->64-bit multiplications).
local def halves (x: u64) : (u64, u64) = (lo32 x, hi32 x)

local def acc_mul ((c0, c1, c2, c3): acc) ((xl, xh): (u64, u64)) ((yl, yh): (u64, u64)) : acc =
  let p0 = xl * yl
  let p1 = xl * yh
  let p2 = xh * yl
  let p3 = xh * yh
  in ( c0 + lo32 p0
     , c1 + hi32 p0 + lo32 p1 + lo32 p2
     , c2 + hi32 p1 + hi32 p2 + lo32 p3
     , c3 + hi32 p3 )

-- The value of an accumulator as low, high and carry parts.
local def acc_parts ((c0, c1, c2, c3): acc) : (u64, u64, u64) =
  let u1 = c1 + hi32 c0
  let u2 = c2 + hi32 u1
  let u3 = c3 + hi32 u2
  in (lo32 c0 | (u1 << 32), lo32 u2 | (u3 << 32), hi32 u3)

-- Combines convolutions k and k+1, given as (low, high, carry) parts, into
-- the four limbs of their sum at position k (thesis Listing 10).
local def combine ((l0, h0, c0): (u64, u64, u64)) ((l1, h1, c1): (u64, u64, u64)) : quad =
  let h0l1 = h0 + l1
  let h1c0 = h1 + c0 + u64.bool (h0l1 < h0)
  in (l0, h0l1, h1c0, c1 + u64.bool (h1c0 < h1))

-- | Pair `p` of the product of two `m`-limb numbers whose limbs are `x i`
-- and `y j`: convolutions `k = 2p` and `k+1` combined into four limbs at
-- position `k`.  The product is the sum of all pairs, pair `p` shifted by
-- `2p` limbs; `p` ranges over `[0, m)` for the full product.  Both
-- convolutions share the reads of `x` in one loop; since `m` is even,
-- exactly one of them has one more term.
def conv_pair (m: i64) (x: i64 -> u64) (y: i64 -> u64) (p: i64) : quad =
  let k = 2 * p
  let lower = k + 1 < m
  let lo = i64.max 0 (k + 2 - m)
  -- Limb `y (k - i)` of one iteration is `y (k + 1 - i)` of the next, so
  -- it is carried over rather than read again.
  let (a0, a1, _) =
    loop (a0, a1, y1) = (acc_zero, acc_zero, y (k + 1 - lo))
    for t < i64.min k (m - 1) + 1 - lo do
      let i = lo + t
      let xi = halves (x i)
      let y0 = y (k - i)
      in (acc_mul a0 xi (halves y0), acc_mul a1 xi (halves y1), y0)
  let (a0, a1) = if lower then (a0, acc_mul a1 (halves (x (k + 1))) (halves (y 0)))
                 else (acc_mul a0 (halves (x (k + 1 - m))) (halves (y (m - 1))), a1)
  in combine (acc_parts a0) (acc_parts a1)

-- | Pair `p` of the square of the `m`-limb number whose limbs are `x i`,
-- as `conv_pair m x x p` with about half the products: convolution `k`
-- of a square is twice its products `x_i x_(k-i)` with `i < k - i`, plus
-- `x_(k/2)^2` for even `k`.  Both convolutions share the products of
-- `i` in `[max 0 (k+2-m), p)`; the odd one has one more at `i = p`, the
-- even one at `i = k+1-m` when the row's top limb takes part.  Doubling
-- the accumulators' columns cannot overflow them (at most `3(m+2)`
-- 32-bit values each).
def conv_sqr_pair (m: i64) (x: i64 -> u64) (p: i64) : quad =
  let k = 2 * p
  let lo = i64.max 0 (k + 2 - m)
  let (a0, a1, _) =
    loop (a0, a1, x1) = (acc_zero, acc_zero, x (k + 1 - lo))
    for t < p - lo do
      let i = lo + t
      let xi = halves (x i)
      let x0 = x (k - i)
      in (acc_mul a0 xi (halves x0), acc_mul a1 xi (halves x1), x0)
  let a1 = if p + 1 < m then acc_mul a1 (halves (x p)) (halves (x (p + 1))) else a1
  let a0 = if k + 1 >= m && k + 1 - m < p then acc_mul a0 (halves (x (k + 1 - m))) (halves (x (m - 1))) else a0
  let twice ((c0, c1, c2, c3): acc) : acc = (c0 << 1, c1 << 1, c2 << 1, c3 << 1)
  let xp = halves (x p)
  in combine (acc_parts (acc_mul (twice a0) xp xp)) (acc_parts (twice a1))

-- Adds the pairs `pair p` (p in [0, np)) into quads of the product: the even
-- pairs do not overlap, nor do the odd ones, so thread `tl` adds
-- `pair (2 tl)` to the halves of `pair (2 tl - 1)` and `pair (2 tl + 1)`
-- that overlap its limbs.
local def pair_operands (np: i64) (pair: i64 -> quad) (tl: i64) : (quad, quad) =
  let (_, _, q2, q3) = if tl > 0 then pair (2 * tl - 1) else zero_quad
  let (q0, q1, _, _) = if 2 * tl + 1 < np then pair (2 * tl + 1) else zero_quad
  in (pair (2 * tl), (q2, q3, q0, q1))

-- The order of a block's threads in the convolution phase, where `v` is 1
-- or all of the block's instances: element `e` is thread `tl` of instance
-- `s` (`conv_thread`), and thread `tl` of instance `s` is element
-- `conv_element` (the inverse).  With `v = 1` the threads of an instance
-- are consecutive, so a warp holds pairs of very different lengths (pair
-- `tl` has `2tl+1` terms) and waits for its longest; with the instances
-- interleaved, the lanes of a warp hold the same pair of several
-- instances, but read them at the same offset of shared memory, where rows
-- of a multiple of 16 limbs fall in one bank unless staged `m + 1` limbs
-- apart (`conv_interleave`).
local def conv_thread (seg: i64) (v: i64) (e: i64) : (i64, i64) =
  if v == 1 then (rem32 e seg, quot32 e seg) else (quot32 e v, rem32 e v)

local def conv_element (seg: i64) (v: i64) (tl: i64) (s: i64) : i64 =
  if v == 1 then s * seg + tl else tl * v + s

-- Instances interleaved in the convolution phase of a block of `ipb`, whose
-- rows are `padded` (staged `m + 1` limbs apart) or not.
local def conv_interleave (padded: bool) (ipb: i64) : i64 =
  if ipb <= (if padded then conv_interleave_padded_instances else conv_interleave_instances)
  then ipb else 1

-- Whether `lo_convmul` stages the rows of a block of `ipb` instances `m +
-- 1` limbs apart: where only padded rows are interleaved.
local def conv_pad_rows (ipb: i64) : bool =
  ipb > conv_interleave_instances && ipb <= conv_interleave_padded_instances

-- The pairs of a product, `pair x y p` (`conv_pair m`, or for squares
-- `conv_sqr_pair m`, which ignores `y`).
local type^ pairs = (i64 -> u64) -> (i64 -> u64) -> i64 -> quad

-- Low halves for the `ipb` instances of a block by `pair` (see
-- `mul_lo_quads_with`), whose rows are `stride` limbs apart in `xs` and
-- `ys`.
local def lo_quads_by 'a [k] (pair_of: pairs) (m: i64) (stride: i64) (g: i64) (finish: i64 -> quad -> bool -> a)
                             (xs: [k]u64) (ys: [k]u64) : [g]a =
  let seg = m / 4
  let v = conv_interleave (stride > m) (g / seg)
  let (lows, highs) =
    tabulate g (\e -> let (tl, s) = conv_thread seg v e
                      let off = s * stride
                      -- Reads are within the instance at `off`.
                      let x j = #[unsafe] xs[off + j]
                      let y j = #[unsafe] ys[off + j]
                      in (pair_of x y tl, pair_of x y (m/2 - 1 - tl)))
    |> unzip
  let operands i =
    let s = quot32 i seg
    let at tl = conv_element seg v tl s
    let pair p = #[unsafe] if p < seg then lows[at p] else highs[at (m/2 - 1 - p)]
    in pair_operands (m/2) pair (rem32 i seg)
  in add_quads_with g seg carry_none finish (\i -> (operands i).0) (\i -> (operands i).1)

-- | Low halves `x*y mod 2^(64m)` for the `ipb` instances of a block, as `g =
-- ipb*m/4` quads, where the operands are block-local flat arrays of limbs.
-- Thread `tl` of an instance computes pairs `tl` and `m/2-1-tl` (equal work
-- in total), then all threads add the pairs.  `finish` is as in
-- `add_quads_with`.
def mul_lo_quads_with 'a [k] (m: i64) (g: i64) (finish: i64 -> quad -> bool -> a)
                             (xs: [k]u64) (ys: [k]u64) : [g]a =
  lo_quads_by (conv_pair m) m m g finish xs ys

-- Full products for the `ipb` instances of a block by `pair` (see
-- `mul_full_quads`).
local def full_quads_by [k] (pair_of: pairs) (m: i64) (g: i64) (xs: [k]u64) (ys: [k]u64) : [g*2]quad =
  let seg = m / 2
  let q = m / 4
  let v = conv_interleave false ((g * 2) / seg)
  let (lows, highs) =
    tabulate (g*2) (\e -> let (tl, s) = conv_thread seg v e
                          let off = s * m
                          let x j = #[unsafe] xs[off + j]
                          let y j = #[unsafe] ys[off + j]
                          let (pa, pb) = if tl < q then (tl, m/2 - 1 - tl)
                                         else (m/2 + tl - q, m - 1 - (tl - q))
                          in (pair_of x y pa, pair_of x y pb))
    |> unzip
  let operands i =
    let s = quot32 i seg
    let at tl = conv_element seg v tl s
    let pair p = #[unsafe]
                 if p < q then lows[at p]
                 else if p < m/2 then highs[at (m/2 - 1 - p)]
                 else if p < 3*q then lows[at (q + p - m/2)]
                 else highs[at (q + m - 1 - p)]
    in pair_operands m pair (rem32 i seg)
  in add_quads_with (g*2) seg carry_none (\_ w _ -> w)
                    (\i -> (operands i).0) (\i -> (operands i).1)

-- | Full products (`2m` limbs, as `2g` quads) for the `ipb` instances of a
-- block.  Thread `tl < m/4` of an instance computes pairs `tl` and
-- `m/2-1-tl`, thread `m/4 + s` computes pairs `m/2+s` and `m-1-s`.
def mul_full_quads [k] (m: i64) (g: i64) (xs: [k]u64) (ys: [k]u64) : [g*2]quad =
  full_quads_by (conv_pair m) m g xs ys

-- | Full squares (`2m` limbs), as `mul_full_quads`.
def sqr_full_quads [k] (m: i64) (g: i64) (xs: [k]u64) : [g*2]quad =
  full_quads_by (\x _ -> conv_sqr_pair m x) m g xs xs

-- | Convolution `k` of two numbers as (low, high, carry) parts.
local def conv_row [m] (xs: [m]u64) (ys: [m]u64) (k: i64) : (u64, u64, u64) =
  let lo = i64.max 0 (k - m + 1)
  in acc_parts (loop a = acc_zero for t < i64.min k (m - 1) + 1 - lo do
                  acc_mul a (halves xs[lo + t]) (halves ys[k - lo - t]))

-- | Low `mo` limbs of `x*y` for one instance with flat parallelism (any
-- width): convolutions, then two additions (thesis Fig. 7).
def mul_row [m] (mo: i64) (xs: [m]u64) (ys: [m]u64) : [mo]u64 =
  let (ls, hs, cs) = tabulate mo (conv_row xs ys) |> unzip3
  let shift d (zs: [mo]u64) = tabulate mo (\i -> if i >= d then zs[i - d] else 0)
  let (s, _) = add_row carry_none ls (shift 1 hs)
  in (add_row carry_none s (shift 2 cs)).0

-- The low `mo` limbs (`mo <= 2m`) of the sum of the products `x_i y_j
-- B^(i+j)` with `j >= i + 1` if `upper`, else of all of them (`x*y`),
-- one instance, sequentially: a row `x_i * y` added into the result per
-- limb of `x` (operand scanning).
local def row_products [m] (upper: bool) (mo: i64) (x: [m]u64) (y: [m]u64) : *[mo]u64 =
  loop r = replicate mo 0 for i < i64.min m mo do
    let xi = x[i]
    let j0 = if upper then i + 1 else 0
    -- Row i ends at limb i + m, whose carry lands on a zero limb.
    let (r, c) =
      loop (r, c) = (r, 0u64) for t < i64.min m (mo - i) - j0 do
        let j = j0 + t
        -- i + j < mo and j < m by the bounds of the loops.
        in #[unsafe] let (s, c) = mul_add xi y[j] r[i + j] c in (r with [i + j] = s, c)
    in if i + m < mo then r with [i + m] = c else r

-- | Low `mo` limbs (`mo <= 2m`) of `x*y` for one instance, sequentially,
-- a 64x64->128-bit product and two carries a limb product: the CPU
-- backends' classical multiplication (`mul_by_rows`), about three times
-- as fast there as the GPU's per-thread and convmul kernels.
def mul_seq [m] (mo: i64) (x: [m]u64) (y: [m]u64) : [mo]u64 =
  row_products false mo x y

-- | Low `mo` limbs (`mo <= 2m`) of `x*x` for one instance, sequentially:
-- the products `x_i x_j` with `i < j` once, then all of them doubled and
-- the squares `x_i^2` added (about half the limb products of `mul_seq`).
def sqr_seq [m] (mo: i64) (x: [m]u64) : [mo]u64 =
  let cross = row_products true mo x x
  -- Limb k of 2*cross + sum x_i^2 B^(2i): the doubled limb takes the top
  -- bit of the limb below; the carry is at most 2.
  let square k = let xi = x[k / 2] in if k % 2 == 0 then xi * xi else u64.mul_hi xi xi
  let (r, _, _) =
    loop (r, below, c) = (cross, 0u64, 0u64) for k < mo do
      let v = r[k]
      let d = (v << 1) | (below >> 63)
      let q = if k / 2 < m then square k else 0
      let t = d + q
      let s = t + c
      in (r with [k] = s, v, u64.bool (t < d) + u64.bool (s < t))
  in r

-- One instance per thread, for small widths: each thread computes its
-- product column by column (product scanning) with the operands and the
-- result in registers, without convmul's carry scan across threads.  The
-- widths are compile-time constants (one kernel for each multiple of 4 up
-- to `thread_mul_limbs`): only arrays of constant size stay in registers
-- (Futhark's private memory), and the loops are `#[unroll]`ed so that
-- every index into them is a constant.  Each thread reads its operands
-- straight from global memory (its limbs are one or more whole 32-byte
-- sectors); its result row goes to shared memory, from where the block
-- writes the rows of its instances with coalesced stores.  A flat `map`
-- over the instances instead returns each row in a column-major buffer
-- (Futhark lays out the per-thread results of a thread-level kernel so that
-- their writes are coalesced) that then needs a transposing copy into the
-- row-major result: two more passes over it.

-- The columns are those of digits of 28 bits, not of 64-bit limbs: a
-- product of two digits is below 2^56, so it adds into a 64-bit column sum
-- with one multiply-add (`IMAD.WIDE.U32` on CUDA) and no carry detection,
-- where a product of limbs takes about 21 instructions (`acc_mul`).  Column
-- `k` holds at most `nd` products plus the carry out of column `k-1`
-- (below 2^36), at most `nd*(2^28-1)^2 + 2^36`, which stays below 2^64 for
-- `nd <= 255` digits (`w <= 111` limbs; the per-thread widths are at most
-- 32).  H100, us per 2^32-bit batch, the kernels alone, 64-bit limbs /
-- digits: `mul_lo` 1024 bits 1322 / 790, 1280 bits 1732 / 792; `mul_full`
-- 1024 bits 5075 / 1355 (docs/multiplication.md).

-- Bits per digit of the per-thread products.
local def digit_bits : i64 = 28

-- `2^digit_bits - 1`.
local def digit_mask : u64 = (1 << u64.i64 digit_bits) - 1

-- Digit `i` (bits `28i .. 28i+27`) of a `w`-limb number with limbs `x q`;
-- `dmask` is `2^28 - 1` (see `mul_thread_fixed`).
local #[inline] def digit (dmask: u32) (w: i64) (x: i64 -> u64) (i: i64) : u32 =
  let b = i * digit_bits
  let (q, r) = (b / 64, b % 64)
  let lo = if q < w then x q >> u64.i64 r else 0
  let hi = if r + digit_bits > 64 && q + 1 < w then x (q + 1) << u64.i64 (64 - r) else 0
  in u32.u64 (lo | hi) & dmask

-- Digit column `k` of the product of the numbers with digits `xd` and `yd`,
-- added to `carry`; the digits are zero-extended so that their products
-- compile to 32x32->64-bit multiplications.
local #[inline] def digit_column [nd] (xd: [nd]u32) (yd: [nd]u32) (carry: u64) (k: i64) : u64 =
  let lo = i64.max 0 (k - nd + 1)
  in #[unroll]
     loop c = carry for t < i64.min k (nd - 1) + 1 - lo do
       c + u64.u32 xd[lo + t] * u64.u32 yd[k - lo - t]

-- The low `mo` limbs of the product of two `w`-limb numbers with limbs `x i`
-- and `y j`, reduced modulo `2^bits`, by one thread.  The first `nd` steps
-- cut the digits, the others compute the columns: column `k` plus the
-- carry of column `k-1` yields digit `k` of the product, and the digits are
-- packed into limbs as they come (`buf` holds the `nb` bits not yet
-- written to limb `j`).  The digits are arrays in the state of the one
-- unrolled loop, indexed by constants, so they stay in registers: cut by a
-- loop of their own, each array becomes a kernel pass that leaves it in
-- shared memory (1003 us instead of 784 at 1024 bits), and cut from the
-- limbs at every use (no arrays) the kernels take 4x the compiler's memory.
local #[inline] def product_digits (dmask: u32) (w: i64) (mo: i64) (bits: i64) (x: i64 -> u64) (y: i64 -> u64) : [mo]u64 =
  let nd = (64 * w + digit_bits - 1) / digit_bits
  let (_, _, ws, _, _, _, _) =
    #[unroll]
    loop (xd, yd, ws, carry, buf, nb, j) = (replicate nd 0, replicate nd 0, replicate mo 0, 0, 0, 0, 0)
    for s < nd + (64 * mo + digit_bits - 1) / digit_bits do
      if s < nd
      then (xd with [s] = digit dmask w x s, yd with [s] = digit dmask w y s, ws, carry, buf, nb, j)
      else let col = digit_column xd yd carry (s - nd)
           let d = col & digit_mask
           let buf = buf | (d << u64.i64 nb)
           let nb = nb + digit_bits
           in if nb >= 64 && j < mo
              then let nb = nb - 64
                   in ( xd, yd, ws with [j] = mask_limb bits j buf, col >> u64.i64 digit_bits
                      , if nb == 0 then 0 else d >> u64.i64 (digit_bits - nb), nb, j + 1 )
              else (xd, yd, ws, col >> u64.i64 digit_bits, buf, nb, j)
  in ws

-- The low `mo` limbs (reduced modulo `2^bits`) of the products of `w`-limb
-- instances, one instance per thread; `w` and `mo` must be constants.
-- Inlined so that they are.
local #[inline] def mul_thread_fixed [n] (w: i64) (mo: i64) (bits: i64) (a: [n][w]u64) (b: [n][w]u64) : [n][mo]u64 =
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  -- The digit mask as a run-time value, computed on the host and passed
  -- to the kernel: as a constant, the CUDA compiler folds each digit's
  -- truncation to u32 and zero-extension into a 64-bit mask and multiplies
  -- the digits with 64-bit multiplications, two instructions per digit
  -- product instead of one (H200, kernels alone: 777 / 724 us at 1024
  -- bits, 1354 / 1076 at 2048; docs/multiplication.md).  `bits` is never
  -- `i64.lowest`; Futhark folds a test on a size (`n < 0`).
  let dmask = u32.u64 digit_mask + u32.bool (bits == i64.lowest)
  let product row = product_digits dmask w mo bits (\i -> #[unsafe] af[row () * w + i])
                                             (\j -> #[unsafe] bf[row () * w + j])
  in thread_map n thread_mul_instances product flatten |> unblock n mo

-- `mul_thread_fixed` at width `w` (a constant) on instances of width
-- `m = w`, as the low `mo = f*m` limbs.  Inlined so that `w` stays constant
-- (a local function taking `w` is not).
local #[inline] def mul_thread_at [n][m] (w: i64) (f: i64) (mo: i64) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][mo]u64 =
  mul_thread_fixed w (f*w) bits (a :> [n][w]u64) (b :> [n][w]u64) :> [n][mo]u64

-- The low `mo = f*m` limbs (`f` = 1 or 2, a constant) of the products,
-- reduced modulo `2^bits`, one instance per thread for widths `m <= limit`
-- that have a per-thread kernel (multiples of 4 up to 32), else by
-- `otherwise`.  Branches above a constant `limit` fold away, and with them
-- their kernels.
local def mul_thread_upto [n][m] (limit: i64) (f: i64) (mo: i64) (bits: i64) (a: [n][m]u64) (b: [n][m]u64)
                                 (otherwise: () -> [n][mo]u64) : [n][mo]u64 =
  if limit >= 4 && m == 4 then mul_thread_at 4 f mo bits a b
  else if limit >= 8 && m == 8 then mul_thread_at 8 f mo bits a b
  else if limit >= 12 && m == 12 then mul_thread_at 12 f mo bits a b
  else if limit >= 16 && m == 16 then mul_thread_at 16 f mo bits a b
  else if limit >= 20 && m == 20 then mul_thread_at 20 f mo bits a b
  else if limit >= 24 && m == 24 then mul_thread_at 24 f mo bits a b
  else if limit >= 28 && m == 28 then mul_thread_at 28 f mo bits a b
  else if limit >= 32 && m == 32 then mul_thread_at 32 f mo bits a b
  else otherwise ()

-- `a*b mod 2^bits`, or with `square` (a constant) `a*a`, by the
-- block-level convmul, several instances per block, their rows staged `m +
-- 1` limbs apart where `conv_pad_rows` says so.  Inlined, so that
-- `square` is a constant in each kernel: kept as a function of two calls
-- (as when the attribute was written before `local`, where the compiler
-- ignores it), its one kernel held both branches, and the 4096-limb low
-- half asked for 258048 bytes of shared memory (H200: 231424 allowed).
local #[inline] def lo_convmul [n][m] (square: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  let ipb = instances_per_block mul_block_threads m
  let g = ipb * (m / 4)
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  let mask i (w0, w1, w2, w3) _ =
    let l = rem32 (4 * i) m
    in (mask_limb bits l w0, mask_limb bits (l+1) w1, mask_limb bits (l+2) w2, mask_limb bits (l+3) w3)
  let stride = if conv_pad_rows ipb then m + 1 else m
  -- Unpadded rows by `load_limbs`, which needs no division per limb.
  let load xf off = if stride > m then load_rows xf off ipb m stride
                    else load_limbs xf off g :> [ipb*stride]u64
  in block_map (num_blocks n ipb)
               (\blk -> let off = blk * (ipb * m)
                        let xs = load af off
                        in store_quads (if square then lo_quads_by (\x _ -> conv_sqr_pair m x) m stride g mask xs xs
                                        else lo_quads_by (conv_pair m) m stride g mask xs (load bf off))
                           :> [ipb*m]u64)
     |> unblock n m

-- | `a*b mod 2^bits` by the block-level convmul, several instances per
-- block (widths up to `max_block_limbs`).
def mul_lo_convmul [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  lo_convmul false bits a b

-- | `a*a mod 2^bits` by the block-level convmul's squares
-- (`conv_sqr_pair`, about half the products of `mul_lo_convmul`).
def sqr_lo_convmul [n][m] (bits: i64) (a: [n][m]u64) : [n][m]u64 =
  lo_convmul true bits a a

-- The exact products (`2m` limbs), or with `square` (a constant) the
-- squares of `a`, by the block-level convmul; inlined as `lo_convmul`.
local #[inline] def full_convmul [n][m] (square: bool) (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  let ipb = instances_per_block mul_block_threads (m*2)
  let g = ipb * (m / 4)
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  in block_map (num_blocks n ipb)
               (\blk -> let off = blk * (ipb * m)
                        let xs = load_limbs af off g
                        in store_quads (if square then sqr_full_quads m g xs
                                        else mul_full_quads m g xs (load_limbs bf off g))
                           :> [ipb*(m*2)]u64)
     |> unblock n (m*2)

-- | The exact products (`2m` limbs) by the block-level convmul (widths up
-- to `max_block_limbs/2`).  Not inlined: `mul_full_blocks` and the four
-- products of `mul_full_halves` share one copy of its kernel.
#[noinline]
def mul_full_convmul [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  full_convmul false a b

-- | The exact squares (`2m` limbs) by the block-level convmul's squares
-- (`sqr_full_quads`), widths up to `max_block_limbs/2`.
def sqr_full_convmul [n][m] (a: [n][m]u64) : [n][m*2]u64 =
  full_convmul true a a

-- `a*b mod 2^bits` by block-level kernels (widths up to `max_block_limbs`):
-- one instance per thread up to `thread_mul_limbs`, convmul above.
local def mul_lo_blocks [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_thread_upto thread_mul_limbs 1 m bits a b (\() -> mul_lo_convmul bits a b)

-- The exact products by block-level kernels: one instance per thread up
-- to `thread_mul_full_limbs`, convmul above.
local def mul_full_blocks [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_thread_upto thread_mul_full_limbs 2 (m*2) (64 * (m*2)) a b (\() -> mul_full_convmul a b)

-- `a*b mod 2^bits` by classical multiplication: on a CPU row loops
-- (`mul_by_rows`), else block-level kernels up to `max_block_limbs`,
-- per-row code above.
local def mul_lo_classical [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  if mul_by_rows cpu then map2 (\x y -> mask_row bits (mul_seq m x y)) a b
  else if m <= max_block_limbs then mul_lo_blocks bits a b
  else map2 (\x y -> mask_row bits (mul_row m x y)) a b |> row_major

-- Full products of operands too wide for one block product but within
-- `max_block_limbs`: from the four convmul products of their halves (h
-- limbs each, far above the per-thread widths), x*y = xl*yl + (xl*yh +
-- xh*yl)*B^h + xh*yh*B^(2h).  The row path it replaces takes per-instance
-- flat parallelism over the whole product.
local def mul_full_halves [n][m] (cpu: bool) (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  let h = (m / 2 + 3) / 4 * 4
  let (al, ah) = (window h 0 h a, window h h (m - h) a)
  let (bl, bh) = (window h 0 h b, window h h (m - h) b)
  let (ll, hh) = (mul_full_convmul al bl, mul_full_convmul ah bh)
  let outer = map2 (\x y -> tabulate (m*2) (\j -> if j < 2*h then x[j] else y[j - 2*h])) ll hh
  let with_mid mid acc = (add cpu (64 * (m*2)) acc (window (m*2) (-h) (m*2) mid)).0
  in outer |> with_mid (mul_full_convmul al bh) |> with_mid (mul_full_convmul ah bl)

-- The exact products by classical multiplication (as `mul_lo_classical`).
local def mul_full_classical [n][m] (cpu: bool) (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  if mul_by_rows cpu then map2 (mul_seq (m*2)) a b
  else if m*2 <= max_block_limbs then mul_full_blocks a b
  else if m <= max_block_limbs then mul_full_halves cpu a b
  else map2 (mul_row (m*2)) a b |> row_major

-- | The multiplication algorithms that `mul_lo_by`, `mul_full_by`,
-- `sqr_lo_by` and `sqr_full_by` take: the ladder's choice by width and
-- backend (`mul_auto`), classical (one instance per thread, convmul, or
-- per-row code, by width: `mul_classical`), or the NTT (`mul_by_ntt`).
-- Tests and benchmarks force one; the library uses `mul_auto`.
def mul_auto : i64 = 0
-- | See `mul_auto`.
def mul_classical : i64 = 1
-- | See `mul_auto`.
def mul_by_ntt : i64 = 2

-- Whether `method` picks the NTT for width m when the ladder switches at
-- `from` limbs; the NTT serves up to `ntt_max_limbs`.
local def picks_ntt (method: i64) (from: i64) (m: i64) : bool =
  m <= ntt_max_limbs && (method == mul_by_ntt || (method == mul_auto && m >= from))

-- | `a*b mod 2^bits` by `method` (`mul_auto`: classical below
-- `ntt_lo_limbs cpu`, the NTT from it); `cpu` is true on the `c` and
-- `multicore` backends.
--
-- Not inlined, so that the entries, `poly` and the division share one copy
-- of its kernels: with the per-thread kernels in it, the compiler otherwise
-- inlines it into every caller (`poly` has four calls), 1.4 MB more CUDA
-- source.
#[noinline]
def mul_lo_by [n][m] (cpu: bool) (method: i64) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  if picks_ntt method (ntt_lo_limbs cpu) m then mul_lo_ntt bits a b
  else mul_lo_classical cpu bits a b

-- | The exact products (`2m` limbs) by `method`, switching at
-- `ntt_full_limbs cpu`.
#[noinline]
def mul_full_by [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  if picks_ntt method (ntt_full_limbs cpu) m then mul_full_ntt a b
  else mul_full_classical cpu a b

-- Whether `mul_thread_upto limit` has a per-thread kernel for width `m`:
-- the condition of its chain of literal widths, restated (a change to one
-- must change the other).  The squares test it instead of calling through
-- that chain, which would generate the per-thread kernels a second time.
local def thread_width (limit: i64) (m: i64) : bool = m % 4 == 0 && m >= 4 && m <= i64.min limit 32

-- | `a*a mod 2^bits` by `method`: the NTT transforms `a` once (a third
-- fewer transforms than a product), so it takes over at
-- `ntt_sqr_lo_limbs cpu`.  Classically, on a CPU `sqr_seq`; on the GPU
-- the square's own convolutions (`sqr_lo_convmul`) where convmul runs, and
-- at the widths of the per-thread kernels and past the block kernels the
-- product, by `mul_lo_by`'s copy of the classical kernels (an inlined copy
-- here would double the code generated for the per-thread kernels).
#[noinline]
def sqr_lo_by [n][m] (cpu: bool) (method: i64) (bits: i64) (a: [n][m]u64) : [n][m]u64 =
  if picks_ntt method (ntt_sqr_lo_limbs cpu) m then sqr_lo_ntt bits a
  else if mul_by_rows cpu then map (\x -> mask_row bits (sqr_seq m x)) a
  else if m <= max_block_limbs && !(thread_width thread_mul_limbs m) then sqr_lo_convmul bits a
  else mul_lo_by cpu mul_classical bits a a

-- | The exact squares (`2m` limbs) by `method`, switching at
-- `ntt_sqr_full_limbs cpu`; classically as `sqr_lo_by`.
#[noinline]
def sqr_full_by [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) : [n][m*2]u64 =
  if picks_ntt method (ntt_sqr_full_limbs cpu) m then sqr_full_ntt a
  else if mul_by_rows cpu then map (sqr_seq (m*2)) a
  else if m*2 <= max_block_limbs && !(thread_width thread_mul_full_limbs m) then sqr_full_convmul a
  else mul_full_by cpu mul_classical a a

-- | `a*b mod 2^bits` by the ladder's choice.
def mul_lo [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_lo_by cpu mul_auto bits a b

-- | The exact products, `2m` limbs, by the ladder's choice.
def mul_full [n][m] (cpu: bool) (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_full_by cpu mul_auto a b

-- | Product by one limb of thread `i`'s quad of a block-local `xs` (`seg`
-- threads per instance): the low parts plus the high parts shifted up one
-- limb (thesis Fig. 9).
local def mul_limb_operands [k] (seg: i64) (xs: [k]u64) (d: i64 -> u64) (i: i64) : (quad, quad) =
  let di = d (quot32 i seg)
  let (x0, x1, x2, x3) = quad_at xs i
  let prev = if rem32 i seg == 0 then 0 else #[unsafe] u64.mul_hi xs[4*i - 1] di
  in ( (x0 * di, x1 * di, x2 * di, x3 * di)
     , (prev, u64.mul_hi x0 di, u64.mul_hi x1 di, u64.mul_hi x2 di) )

-- | `floor(w / 2^bits)` where `w` has limbs `limb j`, `j <= m`, and is
-- below `2^(bits+64)`.
local def high_limb (bits: i64) (limb: i64 -> u64) : u64 =
  let t = bits / 64
  let r = u64.i64 (bits % 64)
  in if r == 0 then limb t else (limb t >> r) | (limb (t + 1) << (64 - r))

-- The share of limb `j` (value `v`) in `high_limb bits`.
local def high_part (bits: i64) (j: i64) (v: u64) : u64 =
  let t = bits / 64
  let r = u64.i64 (bits % 64)
  in if j == t then v >> r
     else if j == t + 1 && r != 0 then v << (64 - r)
     else 0

local def mul_limb_blocks [n][m] (bits: i64) (a: [n][m]u64) (d: [n]u64) : ([n][m]u64, [n]u64) =
  let ipb = instances_per_block add_block_threads m
  let seg = m / 4
  let g = ipb * seg
  let af = opaque (flatten a)
  -- Threads (within an instance) holding limbs bits/64 and bits/64+1.
  let owner j = i64.min j (m - 1) / 4
  let (t0, t1) = (owner (bits / 64), owner (bits / 64 + 1))
  let (ws, hs) =
    unzip (block_map (num_blocks n ipb)
             (\blk ->
                let off = blk * (ipb * m)
                let xs = load_limbs af off g
                let dq s = let inst = blk * ipb + s in if inst < n then #[unsafe] d[inst] else 0
                let ops i = mul_limb_operands seg xs dq i
                -- Masks the quad and yields its share of the high limb; the
                -- instance's last thread also holds the top limb (index m).
                let finish i w cout =
                  let l = rem32 (4 * i) m
                  let top () = #[unsafe] u64.mul_hi xs[4*i + 3] (dq (quot32 i seg)) + u64.bool cout
                  let share = high_part bits l w.0 | high_part bits (l+1) w.1
                              | high_part bits (l+2) w.2 | high_part bits (l+3) w.3
                              | (if l + 4 == m then high_part bits m (top ()) else 0)
                  in (( mask_limb bits l w.0, mask_limb bits (l+1) w.1
                      , mask_limb bits (l+2) w.2, mask_limb bits (l+3) w.3 ), share)
                let (rs, shares) = add_quads_with g seg carry_none finish (\i -> (ops i).0) (\i -> (ops i).1)
                                   |> unzip
                in (store_quads rs :> [ipb*m]u64,
                    tabulate ipb (\s -> #[unsafe] shares[s*seg + t0] | shares[s*seg + t1]))))
  in (unblock n m ws, unblock_values n hs)

local def mul_limb_row [m] (bits: i64) (xs: [m]u64) (d: u64) : ([m]u64, u64) =
  let los = map (* d) xs
  let his = map (u64.mul_hi d) xs
  let (ws, cout) = add_row carry_none los (tabulate m (\i -> if i == 0 then 0 else his[i-1]))
  let top = last his + u64.bool cout
  in (mask_row bits ws, high_limb bits (\j -> if j < m then ws[j] else top))

-- | `(a*d mod 2^bits, floor(a*d / 2^bits))`.
def mul_limb [n][m] (bits: i64) (a: [n][m]u64) (d: [n]u64) : ([n][m]u64, [n]u64) =
  if m <= max_block_limbs then mul_limb_blocks bits a d
  else unzip (map2 (mul_limb_row bits) a d)
