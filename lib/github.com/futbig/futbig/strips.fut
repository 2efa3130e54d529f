-- | Classical multiplication over 28-bit digits with several threads per
-- instance: each thread computes *strips* of 16 consecutive digit columns
-- of the product, then one addition joins the strips.  For the widths
-- between the per-thread kernels (mul.fut, up to 2048 bits) and the NTT.
--
-- Why digits: a product of two 28-bit digits is below 2^56, so it adds
-- into a 64-bit column sum with one multiply-add (`IMAD.WIDE.U32` on
-- CUDA) and no carry detection, where a product of 64-bit limbs takes
-- about 21 instructions in convmul's accumulators; a limb product is
-- (64/28)^2 = 5.2 digit products.
--
-- Why strips of 16: 16 digits are 448 bits, exactly 7 limbs, so strip `g`
-- of the product starts at limb `7g`, and each block of 16 digits of an
-- operand is cut from 7 limbs with constant shifts.  Strip `g` (columns
-- `16g .. 16g+15`) is the sum over blocks `j` of the products of the
-- operands' digit blocks: x block `j` times y blocks `g-j` and `g-j-1`
-- (a *chunk*: 16 x 16 digit products into 16 columns, every index a
-- constant, so the digits and the columns stay in registers).  After each
-- chunk the columns are normalised (each keeps 28 bits, the carry moves
-- up, the top column's carry into `over`), so no column exceeds `2^28 +
-- 2^36 + 16 (2^28-1)^2 < 2^61` at any width.  The strip's value is its
-- 16 digits (7 limbs) plus `over` times `2^448`; `over` is below `16 nd
-- 2^28 < 2^64` for `nd < 2^32` digits.
--
-- Work balance: strip `g` of a low half takes `g+1` chunks, so a thread
-- computes strips `p` and `G-1-p` (`G+1` chunks); of a full product, the
-- upper strips `G+s` take `G-s`, and a thread computes `G+s` and
-- `2G-1-s`.  The strips' limbs and the `over` limbs shifted by 7 limbs
-- are then added by `add` (add.fut).

import "limbs"
import "add"

-- | Bits per digit of the digit products (here and in mul.fut's
-- per-thread kernels).
def digit_bits : i64 = 28

-- | `2^digit_bits - 1`.
def digit_mask : u64 = (1 << u64.i64 digit_bits) - 1

-- | The digit mask as a value the compiler cannot fold: as a constant, the
-- CUDA compiler folds each digit's truncation to u32 and zero-extension
-- into a 64-bit mask and multiplies with 64-bit multiplications, two
-- instructions per digit product instead of one (docs/multiplication.md).
-- `bits` is any width; it is never `i64.lowest`.
def runtime_digit_mask (bits: i64) : u32 = u32.u64 digit_mask + u32.bool (bits == i64.lowest)

-- Digits per strip and limbs per strip.
local def sd : i64 = 16
local def sl : i64 = 7

-- The 16 digits of limbs `7j .. 7j+6` of an `m`-limb number with limbs
-- `x q` (zero outside `[0, m)`).
local #[inline] def digit_block (dmask: u32) (m: i64) (x: i64 -> u64) (j: i64) : [sd]u32 =
  let base = sl * j
  let limb q = let i = base + q in if i >= 0 && i < m then x i else 0
  let (_, ds) =
    #[unroll]
    loop (ls, ds) = (replicate sl 0u64, replicate sd 0u32) for s < sl + sd do
      if s < sl then (ls with [s] = limb s, ds)
      else let t = s - sl
           let b = t * digit_bits
           let (q, r) = (b / 64, b % 64)
           let lo = ls[q] >> u64.i64 r
           let hi = if r + digit_bits > 64 then ls[q + 1] << u64.i64 (64 - r) else 0
           in (ls, ds with [t] = u32.u64 (lo | hi) & dmask)
  in ds

-- Strip `g` of the product of `m`-limb numbers with limbs `x i`, `y j`:
-- chunks `j` from `j0` to `j1` (inclusive), as 7 limbs and `over`.
local #[inline] def strip (dmask: u32) (m: i64) (x: i64 -> u64) (y: i64 -> u64)
                         (g: i64) (j0: i64) (j1: i64) : ([sl]u64, u64) =
  let (cs, over, _) =
    loop (cs, over, yhi) = (replicate sd 0u64, 0u64, digit_block dmask m y (g - j0))
    for i < i64.max 0 (j1 - j0 + 1) do
      let j = j0 + i
      let xd = digit_block dmask m x j
      let ylo = digit_block dmask m y (g - j - 1)
      -- Digit `16(g-j-1) + u` of y, for u in [1, 31].
      let yw u = if u < sd then ylo[u] else yhi[u - sd]
      let cs = #[unroll]
               loop cs for t < sd do
                 cs with [t] = #[unroll] loop c = cs[t] for s < sd do
                                 c + u64.u32 xd[s] * u64.u32 (yw (sd + t - s))
      let (cs, carry) = #[unroll]
                        loop (cs, carry) = (cs, 0u64) for t < sd do
                          let v = cs[t] + carry
                          in (cs with [t] = v & digit_mask, v >> u64.i64 digit_bits)
      in (cs, over + carry, ylo)
  let limbs = #[unroll]
              tabulate sl (\q -> #[unroll] loop w = 0u64 for t < sd do
                                   let b = t * digit_bits - 64 * q
                                   in if b >= 64 || b + digit_bits <= 0 then w
                                      else if b >= 0 then w | (cs[t] << u64.i64 b)
                                      else w | (cs[t] >> u64.i64 (-b)))
  in (limbs, over)

-- The strips of thread `p` of an instance with `G` strips per operand:
-- `(g1, g2)`, where `g2 = -1` if the thread has one strip (the middle one
-- when `G` is odd).
local def strip_pair (G: i64) (full: bool) (p: i64) : (i64, i64) =
  let h = (G + 1) / 2
  let (g1, g2) = if !full || p < h then (p, G - 1 - p) else (G + p - h, 2 * G - 1 - (p - h))
  in (g1, if g2 == g1 then -1 else g2)

-- Chunks of strip `g` (G strips per operand): blocks `j` with `j <= g`,
-- `j < G` and `g - j - 1 < G`.
local def chunks (G: i64) (g: i64) : (i64, i64) = (i64.max 0 (g - G), i64.min g (G - 1))

-- | The strips of the products of `m`-limb instances with `G = ceil(m/7)`
-- strips per operand (`2G` for full products), `P` strip pairs per
-- instance; thread `t = r*P + p` computes strip pair `p` of instance `r`.
-- Yields each thread's strips: limbs and `over`, first and second strip.
def strip_parts [n][m] (P: i64) (full: bool) (dmask: u32) (a: [n][m]u64) (b: [n][m]u64)
                : ([n*P][sl]u64, [n*P]u64, [n*P][sl]u64, [n*P]u64) =
  let G = (m + sl - 1) / sl
  let af = flatten a
  let bf = flatten b
  in tabulate (n * P) (\t ->
       let (r, p) = (t / P, t % P)
       let x i = #[unsafe] af[r * m + i]
       let y j = #[unsafe] bf[r * m + j]
       let (g1, g2) = strip_pair G full p
       let (c0, c1) = chunks G g1
       let (s1, v1) = strip dmask m x y g1 c0 c1
       let (d0, d1) = if g2 < 0 then (0, -1) else chunks G g2
       let (s2, v2) = strip dmask m x y (i64.max g2 0) d0 d1
       in (s1, v1, s2, v2))
     |> unzip4

-- | The low `mo` limbs (`mo = m` or `2m`) of the products of `m`-limb
-- instances, reduced modulo `2^bits`, by strips.
def mul_strips [n][m] (cpu: bool) (mo: i64) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][mo]u64 =
  let G = (m + sl - 1) / sl
  let full = mo > m
  let h = (G + 1) / 2
  let P = if full then 2 * h else h
  let (l1, o1, l2, o2) = strip_parts P full (runtime_digit_mask bits) a b
  -- Thread and half holding strip `g`.
  let holder g = if g < h then (g, true)
                 else if g < G then (G - 1 - g, false)
                 else if g < G + h then (g - G + h, true)
                 else (2 * G - 1 - g + h, false)
  let own = tabulate n (\r -> tabulate mo (\j ->
              let (p, first) = holder (j / sl)
              let t = r * P + p
              in #[unsafe] if first then l1[t][j % sl] else l2[t][j % sl]))
  let overs = tabulate n (\r -> tabulate mo (\j ->
                if j % sl != 0 || j == 0 then 0
                else let (p, first) = holder (j / sl - 1)
                     let t = r * P + p
                     in #[unsafe] if first then o1[t] else o2[t]))
  in (add cpu bits own overs).0
