-- | Modular arithmetic on batches of big integers: Montgomery
-- multiplication (CIOS), modular addition and subtraction, powers by a
-- fixed window, the gcd and the inverse (by division steps, gcd.fut).
-- One instance per thread: every operation on an instance is a
-- sequential loop over its limbs (docs/modular.md).
--
-- The moduli come as `[k][m]u64` with `k = 1` (one modulus for the whole
-- batch: its constants are computed once) or `k = n` (one per instance).
-- A zero modulus is replaced by 1 (so that its results are 0) and flagged.
-- Odd moduli multiply by Montgomery's method; even ones by full products
-- and long division (div.fut).

import "limbs"
import "div"
import "thresholds"
import "gcd"
import "blocks"

-- ---------------------------------------------------------------------
-- Sequential helpers on one instance's limbs.

-- Whether x >= y.
local def geq [m] (x: [m]u64) (y: [m]u64) : bool =
  let (_, r) = loop (i, r) = (m - 1, 0i8) while r == 0 && i >= 0 do
                 (i - 1, if x[i] > y[i] then 1 else if x[i] < y[i] then -1 else 0)
  in r >= 0

-- Whether every limb of x is zero.
local def zero_row [m] (x: [m]u64) : bool =
  (loop (z, i) = (true, 0) while z && i < m do (x[i] == 0, i + 1)).0

-- Whether x == 1.
local def one_row [m] (x: [m]u64) : bool =
  x[0] == 1 && (loop (z, i) = (true, 1) while z && i < m do (x[i] == 0, i + 1)).0

-- The number 1 in m limbs.
local def one (m: i64) : *[m]u64 = tabulate m (\i -> u64.bool (i == 0))

-- (x + y, carry).
local def add_row [m] (x: [m]u64) (y: [m]u64) : ([m]u64, u64) =
  loop (r, c) = (replicate m 0, 0u64) for i < m do
    let (s, c) = adc x[i] y[i] c in (r with [i] = s, c)

-- (x - y mod 2^(64m), borrow).
local def sub_row [m] (x: [m]u64) (y: [m]u64) : ([m]u64, u64) =
  loop (r, b) = (replicate m 0, 0u64) for i < m do
    let d = x[i] - y[i]
    let d2 = d - b
    in (r with [i] = d2, u64.bool (y[i] > x[i]) + u64.bool (b > d))

-- The bit length of x (0 for zero).
local def bit_length_row [m] (x: [m]u64) : i64 =
  loop len = 0i64 for i < m do
    if x[i] != 0 then 64 * i + 64 - i64.i32 (u64.clz x[i]) else len

-- x zero-extended (or cut) to w limbs.
local def extend [m] (w: i64) (x: [m]u64) : *[w]u64 =
  tabulate w (\i -> if i < m then x[i] else 0)

-- The exact product x*y, schoolbook.
local def product [m] (x: [m]u64) (y: [m]u64) : [m*2]u64 =
  loop ws = replicate (m*2) 0 for i < m do
    let (ws, c) =
      loop (ws, c) = (ws, 0u64) for j < m do
        let (s, c) = mul_add x[i] y[j] ws[i+j] c in (ws with [i+j] = s, c)
    in ws with [i+m] = c

-- x mod p for any x, p /= 0 (long division only where x >= p).
local def reduce_row [m] (p: [m]u64) (x: [m]u64) : [m]u64 =
  if geq x p then (long_division x p).1 else x

-- x*y mod p for x, y < p, p /= 0, by a full product and long division.
local def mul_div [m] (p: [m]u64) (x: [m]u64) (y: [m]u64) : *[m]u64 =
  let (_, r) = long_division (product x y) (extend (m*2) p)
  in extend m r

-- ---------------------------------------------------------------------
-- Montgomery multiplication.

-- | `-x^-1 mod 2^64` for odd `x`, by Newton's iteration `y <- y(2 - xy)`:
-- `y = x` is right modulo 2^3 (an odd square is 1 mod 8), and each step
-- doubles the correct low bits (3, 6, 12, 24, 48, 96).
def neg_inv64 (x: u64) : u64 =
  let y = loop y = x for _i < 5 do y * (2 - x * y)
  in 0 - y

-- | `a*b/2^(64m) mod p` for `a, b < p`, `p` odd and `pinv = neg_inv64
-- p[0]`, into the scratch row `t` (its contents are ignored): Montgomery
-- multiplication by the coarsely integrated operand scanning method (CIOS,
-- Koç, Acar and Kaliski 1996), `m + 2` limbs of scratch (the top two as
-- scalars).  Loops that pass their old rows back as scratch allocate
-- nothing per product (an allocation per product made 256-bit powers 7x
-- slower on the `c` backend).
def mont_mul_into [m] (t: *[m]u64) (p: [m]u64) (pinv: u64) (a: [m]u64) (b: [m]u64) : *[m]u64 =
  let t = loop t for j < m do t with [j] = 0
  let (t, top) =
    loop (t, top) = (t, 0u64) for i < m do
      -- t += a*b[i]
      let (t, c) =
        loop (t, c) = (t, 0u64) for j < m do
          let (s, c) = mul_add a[j] b[i] t[j] c in (t with [j] = s, c)
      let s = top + c
      let top2 = u64.bool (s < c)
      -- t = (t + u*p) / 2^64, u chosen so that the low limb cancels.
      let u = t[0] * pinv
      let c = (mul_add u p[0] t[0] 0).1
      let (t, c) =
        loop (t, c) = (t, c) for j in 1..<m do
          let (s, c) = mul_add u p[j] t[j] c in (t with [j - 1] = s, c)
      let s2 = s + c
      in (t with [m - 1] = s2, top2 + u64.bool (s2 < c))
  -- t < 2p: one subtraction at most, in place.
  in if top == 0 && !(geq t p) then t
     else (loop (t, b) = (t, 0u64) for j < m do
             let x = t[j]
             let d = x - p[j]
             in (t with [j] = d - b, u64.bool (p[j] > x) + u64.bool (b > d))).0

-- | `mont_mul_into` a new row.
def mont_mul [m] (p: [m]u64) (pinv: u64) (a: [m]u64) (b: [m]u64) : [m]u64 =
  mont_mul_into (replicate m 0) p pinv a b

-- `t - p` for `t < 2p` given as `w` limbs and a top limb (0 or 1): `t`
-- unless the subtraction borrows and `top` is 0.  Unrolled.
local #[inline] def sub_if_above (w: i64) (p: [w]u64) (t: *[w]u64) (top: u64) : *[w]u64 =
  let (d, borrow) =
    #[unroll] loop (d, b) = (replicate w 0u64, 0u64) for j < w do
      let x = t[j]
      let y = x - p[j]
      in (d with [j] = y - b, u64.bool (p[j] > x) + u64.bool (b > y))
  in if top == 0 && borrow != 0 then t else d

-- | `mont_mul` with the width `w` a constant (inlined so that it is): the
-- loops over the limbs are unrolled and `b` is rotated down one limb per
-- step instead of indexed, so every index is a constant and the rows stay
-- in registers on a GPU (with `m` only known at run time they live in
-- memory).  The result is a new row.
#[inline]
def mont_mul_fixed (w: i64) (p: [w]u64) (pinv: u64) (a: [w]u64) (b: [w]u64) : *[w]u64 =
  let (t, top, _) =
    loop (t, top, bs) = (replicate w 0u64, 0u64, copy b) for _i < w do
      let bi = bs[0]
      let bs = #[unroll] loop bs for j < w - 1 do bs with [j] = bs[j + 1]
      let (t, c) =
        #[unroll] loop (t, c) = (t, 0u64) for j < w do
          let (s, c) = mul_add a[j] bi t[j] c in (t with [j] = s, c)
      let s = top + c
      let top2 = u64.bool (s < c)
      let u = t[0] * pinv
      let c = (mul_add u p[0] t[0] 0).1
      let (t, c) =
        #[unroll] loop (t, c) = (t, c) for j' < w - 1 do
          let (s, c) = mul_add u p[j' + 1] t[j' + 1] c in (t with [j'] = s, c)
      let s2 = s + c
      in (t with [w - 1] = s2, top2 + u64.bool (s2 < c), bs)
  in sub_if_above w p t top

-- | `mont_mul_fixed w p pinv a a` with about 3/4 of its products: the
-- square's cross products `a[i]*a[j]`, `i < j`, once, doubled, the squares
-- `a[i]^2` added, then Montgomery's reduction of the `2w` limbs.  Every
-- loop is unrolled (indices constant, rows in registers), so the code
-- grows with `w^2`.
#[inline]
def mont_sqr_fixed (w: i64) (p: [w]u64) (pinv: u64) (a: [w]u64) : *[w]u64 =
  let t =
    #[unroll] loop t = replicate (w*2) 0u64 for i < w do
      let (t, c) =
        #[unroll] loop (t, c) = (t, 0u64) for j < w do
          if j <= i then (t, c)
          else let (s, c) = mul_add a[i] a[j] t[i + j] c in (t with [i + j] = s, c)
      in t with [i + w] = c
  -- 2t + the squares, two limbs per step: `b` the bit shifted out, `c`
  -- the carry of the addition.
  let (t, _, _) =
    #[unroll] loop (t, b, c) = (t, 0u64, 0u64) for k < w do
      let (x0, x1) = (t[2*k], t[2*k + 1])
      let (s0, c0) = adc ((x0 << 1) | b) (a[k] * a[k]) c
      let (s1, c1) = adc ((x1 << 1) | (x0 >> 63)) (u64.mul_hi a[k] a[k]) c0
      in (t with [2*k] = s0 with [2*k + 1] = s1, x1 >> 63, c1)
  -- t = (t + u*p*2^(64i)) for the u that cancels limb i; the carries out of
  -- limb i + w gather in `top`.
  let (t, top) =
    #[unroll] loop (t, top) = (t, 0u64) for i < w do
      let u = t[i] * pinv
      let (t, c) =
        #[unroll] loop (t, c) = (t, 0u64) for j < w do
          let (s, c) = mul_add u p[j] t[i + j] c in (t with [i + j] = s, c)
      let (s, top) = adc t[i + w] c top
      in (t with [i + w] = s, top)
  -- The high half by an unrolled loop: a `tabulate` is a loop with a
  -- run-time index, which puts `t` in local memory on a GPU (H100, chains of
  -- 16 squares: 4479 us against 1245 at 4 limbs, 5189 against 2116 at 8;
  -- docs/modular.md).
  let hi = #[unroll] loop hi = replicate w 0u64 for j < w do hi with [j] = t[j + w]
  in sub_if_above w p hi top

-- | The constants of one modulus `p /= 0`: whether it is odd, `pinv`
-- (`neg_inv64`), `R mod p` and `R^2 mod p` for `R = 2^(64m)` (odd `p`
-- only; for even `p` both are `1 mod p`).
type mod_consts [m] = {odd: bool, pinv: u64, r1: [m]u64, r2: [m]u64}

-- | The constants of `p /= 0`: `R mod p` as `(R - p) mod p` (an m-limb
-- division), `R^2 mod p` by dividing its square.
def mod_consts [m] (p: [m]u64) : mod_consts [m] =
  let odd = p[0] & 1 == 1
  in if !odd then let r = reduce_row p (one m) in {odd, pinv = 0, r1 = r, r2 = r}
     else let r1 = (long_division (sub_row (replicate m 0) p).0 p).1
          in {odd, pinv = neg_inv64 p[0], r1, r2 = mul_div p r1 r1}

-- | Montgomery form `x*R mod p` of `x < p`.
def to_mont [m] (p: [m]u64) (c: mod_consts [m]) (x: [m]u64) : [m]u64 =
  mont_mul p c.pinv x c.r2

-- | `x/R mod p`, the value of the Montgomery form `x < p`.
def from_mont [m] (p: [m]u64) (c: mod_consts [m]) (x: [m]u64) : [m]u64 =
  mont_mul p c.pinv x (one m)

-- | `x*y mod p` for `x, y < p`: two Montgomery products for odd `p`
-- (the second by `R^2`), a full product and long division for even `p`.
def mod_mul_row [m] (p: [m]u64) (c: mod_consts [m]) (x: [m]u64) (y: [m]u64) : [m]u64 =
  if c.odd then mont_mul p c.pinv (mont_mul p c.pinv x y) c.r2 else mul_div p x y

-- | `x + y mod p` for `x, y < p`.
def mod_add_row [m] (p: [m]u64) (x: [m]u64) (y: [m]u64) : [m]u64 =
  let (s, c) = add_row x y
  in if c != 0 || geq s p then (sub_row s p).0 else s

-- | `x - y mod p` for `x, y < p`.
def mod_sub_row [m] (p: [m]u64) (x: [m]u64) (y: [m]u64) : [m]u64 =
  let (d, b) = sub_row x y
  in if b != 0 then (add_row d p).0 else d

-- ---------------------------------------------------------------------
-- Powers.

-- The window (bits) that minimises `len/w` multiplications and `2^w`
-- table entries for exponents of `len` bits.
local def best_window (len: i64) : i64 =
  if len <= 8 then 1 else if len <= 24 then 2 else if len <= 80 then 3
  else if len <= 240 then 4 else if len <= 672 then 5 else if len <= 1792 then 6 else 7

-- | The window (bits) of a fixed-window power with exponents of `len`
-- bits: the `w` that minimises `len/w` multiplications and `2^w` table
-- entries, at most `max_window_bits`.
def window_bits (len: i64) : i64 = i64.min (best_window len) max_window_bits

-- Bits pos .. pos+w-1 of e (w <= 63).
local def bits_at [me] (e: [me]u64) (pos: i64) (w: i64) : u64 =
  let j = pos / 64
  let s = pos % 64
  let lo = if j < me then e[j] >> u64.i64 s else 0
  let hi = if s + w > 64 && j + 1 < me then e[j + 1] << u64.i64 (64 - s) else 0
  in (lo | hi) & ((1 << u64.i64 w) - 1)

-- x^e with the product `mul` (into a scratch row, as `mont_mul_into`) and
-- its unit `unit`, by a fixed window of w bits: a table of x^0 .. x^(2^w -
-- 1), then per window w squarings and one product.  With `apart` (a
-- literal) the squarings take `sqr`, else `mul`: one call of `mul` in the
-- loop keeps one copy of its code (two copies of the unrolled 32-limb
-- product made 2048-bit powers 19% slower on an H100).
local #[inline] def pow_window [m][me] (mul: *[m]u64 -> [m]u64 -> [m]u64 -> *[m]u64)
                                      (apart: bool) (sqr: *[m]u64 -> [m]u64 -> *[m]u64) (unit: [m]u64)
                                      (w: i64) (x: [m]u64) (e: [me]u64) : [m]u64 =
  -- The table has room for the widest window: of constant size it is
  -- thread-private memory of the kernel (a size known only at run time
  -- failed to compile for the GPU with `m` a constant).
  let table = loop tbl = replicate (1 << max_window_bits) unit for k in 1..<(1 << w) do
                tbl with [k] = if k == 1 then copy x else mul (replicate m 0) tbl[k - 1] x
  let windows = (bit_length_row e + w - 1) / w
  in if windows == 0 then unit else
  let top = i64.u64 (bits_at e ((windows - 1) * w) w)
  -- Each window is w squarings and a product by its table entry (by
  -- table[0], the unit, for a zero digit: no branch around a product);
  -- the old accumulator becomes the next product's scratch row.
  let (acc, _) =
    loop (acc: *[m]u64, s: *[m]u64) = (copy table[top], replicate m 0) for step < (windows - 1) * (w + 1) do
      let square = step % (w + 1) < w
      in if apart && square then (sqr s acc, acc)
         else let y = if square then acc
                      else table[i64.u64 (bits_at e ((windows - 2 - step / (w + 1)) * w) w)]
              in (mul s acc y, acc)
  in acc

-- | `x^e mod p` for `x < p` with window `w`: in Montgomery form for odd
-- `p`, by products and long division for even `p`.
def powmod_row [m][me] (p: [m]u64) (c: mod_consts [m]) (w: i64) (x: [m]u64) (e: [me]u64) : [m]u64 =
  if c.odd
  then let mul (s: *[m]u64) = mont_mul_into s p c.pinv
       in from_mont p c (pow_window mul false (\(s: *[m]u64) a : *[m]u64 -> mul s a a) c.r1 w (to_mont p c x) e)
  else pow_window (\_ -> mul_div p) false (\_ a : *[m]u64 -> mul_div p a a) c.r1 w x e

-- ---------------------------------------------------------------------
-- The inverse (division steps of gcd.fut).

-- `(a^-1 mod p, whether it exists)` for an even `p` and `a < p` (never
-- assumed prime): `a` must be odd; `y = p^-1 mod a`, an odd modulus,
-- gives `p*y = 1 + a*t`, so `a*(p - t) = 1 mod p`.
local def inv_even_row [m] (p: [m]u64) (a: [m]u64) : ([m]u64, bool) =
  if a[0] & 1 == 0 then (replicate m 0, false)
  else if one_row a then (one m, true)
  else let (y, ok) = inv_odd_row a (neg_inv64 a[0]) (reduce_row a p)
       in if !ok then (replicate m 0, false) else
       let (py1, _) = sub_row (product p y) (one (m*2))
       let (t, _) = long_division py1 (extend (m*2) a)
       in ((sub_row p (extend m t)).0, true)

-- ---------------------------------------------------------------------
-- Batch-level Montgomery products: for wide odd moduli on the GPU, where
-- one instance per thread spills its rows to local memory, each product
-- is three products of whole batches by the multiplication ladder
-- (mul.fut: per-thread kernels, convmul or the NTT by width) and a few
-- additions, with `R = 2^(64m)` and the full-width `p^-1 mod R`.

local module Mul = import "mul"
local module Add = import "add"

-- | The routes of `mod_mul`, `powmod`, `to_mont`, `from_mont` and
-- `mont_mul`: the library's choice (`mont_auto`: batch-level products of
-- odd moduli from `mont_batch_limbs cpu` limbs, powers from
-- `pow_batch_limbs cpu`), one instance per thread
-- (`mont_thread`), batch-level products (`mont_batch`; one instance per
-- thread for a shared even modulus and widths not a multiple of 4).
-- Tests and benchmarks force one.
def mont_auto : i64 = 0
-- | See `mont_auto`.
def mont_thread : i64 = 1
-- | See `mont_auto`.
def mont_batch : i64 = 2

-- Whether `method` takes batch-level products at width m, where the
-- library's choice switches `from` limbs (the block kernels of mul.fut
-- take widths that are multiples of 4).
local def by_batch (method: i64) (from: i64) (m: i64) : bool =
  m % 4 == 0 && (method == mont_batch || (method == mont_auto && m >= from))

-- An [n][m] array from its elements, as one flat map (a map choosing
-- whole rows compiles to one thread per row, with transposes, on the GPU).
local def rows_of (n: i64) (m: i64) (f: i64 -> i64 -> u64) : [n][m]u64 =
  unflatten (tabulate (n*m) (\x -> f (x / m) (x % m)))

-- Row i of the k rows of xs (row 0 for k = 1: one shared row).
local def pick [k] 't (xs: [k]t) (i: i64) : t = if k == 1 then xs[0] else xs[i]

-- The k = 1 or k = n rows `xs` as n rows.
local def spread [k][m] (n: i64) (xs: [k][m]u64) : [n][m]u64 =
  if k == 1 then replicate n xs[0] else xs :> [n][m]u64

-- | Odd moduli `p` and `p^-1 mod R` as rows of the batch.
type mont_rows [n][m] = {p: [n][m]u64, pinv: [n][m]u64}

-- `p^-1 mod 2^(64m)` of odd rows by Newton's iteration on whole rows,
-- `y <- y(2 - py)`, from `p[0]^-1 mod 2^64`: each step doubles the correct
-- low limbs, ceil(log2 m) steps.
local def inv_rows [k][m] (cpu: bool) (ps: [k][m]u64) : [k][m]u64 =
  let bits = 64 * m
  let two = replicate k (tabulate m (\j -> if j == 0 then 2 else 0))
  let steps = (loop (s, c) = (0, 1) while c < m do (s + 1, c * 2)).0
  let y0 = map (\p -> tabulate m (\j -> if j == 0 then 0 - neg_inv64 p[0] else 0)) ps
  in loop y = y0 for _i < steps do
       Mul.mul_lo cpu bits y (Add.sub cpu bits two (Mul.mul_lo cpu bits ps y)).0

-- `t/R mod p` for `t < pR` (Montgomery's REDC on whole batches): with
-- `u = (t mod R) p^-1 mod R`, `up` has the low half of `t`, so `(t - up)/R
-- = floor(t/R) - floor(up/R)`, in `(-p, p)`: one subtraction of the high
-- halves, and `p` added where it borrows.
local def redc [n][m] (cpu: bool) (r: mont_rows [n][m]) (t: [n][m*2]u64) : [n][m]u64 =
  let bits = 64 * m
  let u = Mul.mul_lo cpu bits (window m 0 m t) r.pinv
  let up = Mul.mul_full cpu u r.p
  let (d, borrow) = Add.sub cpu bits (window m m m t) (window m m m up)
  in (Add.add cpu bits d (rows_of n m (\i j -> if borrow[i] == 0 then 0 else #[unsafe] r.p[i, j]))).0

-- `a*b/R mod p` for `a*b < pR` (such as `a < p`, or `a < R` and `b < p`).
local def mont_mul_rows [n][m] (cpu: bool) (r: mont_rows [n][m]) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  redc cpu r (Mul.mul_full cpu a b)

-- `a*a/R mod p` for `a < p`: the ladder's squares (the NTT transforms `a`
-- once).
local def mont_sqr_rows [n][m] (cpu: bool) (r: mont_rows [n][m]) (a: [n][m]u64) : [n][m]u64 =
  redc cpu r (Mul.sqr_full_by cpu Mul.mul_auto a)

-- `a/R mod p` for any `a < R`: REDC of `a` itself, no product.
local def from_mont_rows [n][m] (cpu: bool) (r: mont_rows [n][m]) (a: [n][m]u64) : [n][m]u64 =
  redc cpu r (window (m*2) 0 m a)

-- The window (bits) of the batch-level power over `limbs` limbs (n*m):
-- `best_window`, at most what keeps its `2^w` rows of the batch within
-- `batch_table_limbs` (at least 1).
local def batch_window (limbs: i64) (len: i64) : i64 =
  let fit = loop w = 1 while w < 7 && (2 << w) * limbs <= batch_table_limbs do w + 1
  in i64.min (best_window len) fit

-- `x^e mod p` for any `x < R` on whole batches, `ke = 1` or `n` exponents:
-- a table of `2^w` Montgomery forms `x^j R mod p` (rows of the batch),
-- then per window `w` squarings and one product by each instance's table
-- entry.  Every instance runs the windows of the longest exponent (the
-- shorter ones left-padded with zero digits, whose entry is `R mod p`, the
-- form of 1).  `r1`, `r2`: `R mod p`, `R^2 mod p`.
local def pow_rows [n][m][ke][me] (cpu: bool) (r: mont_rows [n][m]) (r1: [n][m]u64) (r2: [n][m]u64)
                                  (x: [n][m]u64) (e: [ke][me]u64) : [n][m]u64 =
  let len = reduce i64.max 0 (map bit_length_row e)
  let w = batch_window (n*m) len
  let windows = (len + w - 1) / w
  in if windows == 0 then from_mont_rows cpu r r1 else
  let xm = mont_mul_rows cpu r x r2
  let table = loop tbl = (replicate (1 << w) r1 with [1] = xm) for j in 2..<(1 << w) do
                tbl with [j] = copy (mont_mul_rows cpu r tbl[j - 1] xm)
  let entry_rows (pos: i64) =
    let ds = tabulate n (\i -> i64.u64 (bits_at (pick e i) pos w))
    in rows_of n m (\i j -> #[unsafe] table[ds[i], i, j])
  let acc = loop acc = entry_rows ((windows - 1) * w) for t < windows - 1 do
              let acc = loop acc for _i < w do mont_sqr_rows cpu r acc
              in mont_mul_rows cpu r acc (entry_rows ((windows - 2 - t) * w))
  in from_mont_rows cpu r acc

-- ---------------------------------------------------------------------
-- Batches: `n` instances, `k = 1` or `k = n` moduli.

-- `map f (iota n)` with one thread per instance, all of an instance's
-- code in one kernel.  Without an attribute the compiler also builds a
-- version with one block per instance (its row operations in parallel, the
-- loops around them not) and picks it from about 32 limbs.  H200,
-- 2026-11-26, `mod_mul` one instance per thread, 2^26-bit batches, this /
-- no attribute: 1024 bits 585 / 2877 us, 2048 bits 1429 / 29903, 4096
-- bits 5641 / 103621.
local def per_thread 'r (n: i64) (f: i64 -> r) : [n]r = #[sequential_inner] map f (iota n)

-- `map f (iota n)` with one thread per instance, without the version of
-- one block per instance, where the compiler may split an instance's code
-- over several kernels.  For `modinv` compiled alone (the modulus a
-- constant of the program) this is 1.4-19x faster than `per_thread`
-- (H200, 2026-11-26, 2^28-bit batches, this / `per_thread`: 256 bits 2811
-- / 3924 us, 1024 bits 5549 / 33799, 2048 bits 9834 / 132864, 4096 bits
-- 18021 / 361115; `gcd` the same either way; why was not found).  The
-- library's entry reaches the split version from `inverse_split_limbs`
-- (`modinv_rows`).  `powmod` takes it too: without an attribute (no
-- version by block below 31 limbs) 1024-bit powers took 107 ms per
-- 2^26-bit batch, 130 with `per_thread`.
local def per_thread_split 'r (n: i64) (f: i64 -> r) : [n]r =
  #[incremental_flattening(no_intra)] map f (iota n)

-- The moduli with 0 replaced by 1, and flags of those that were 0.
local def nonzero_moduli [k][m] (mods: [k][m]u64) : ([k][m]u64, [k]bool) =
  let zs = map zero_row mods
  in (map2 (\z p -> if z then one m else p) zs mods, zs)

-- Flags (1) of the instances whose modulus is zero.
local def zero_flags [k] (n: i64) (zs: [k]bool) : [n]u8 = tabulate n (\i -> u8.bool (pick zs i))

-- A map over the instances with their modulus (zero replaced by 1) and
-- its constants, by `per_thread_split` or `per_thread`: (results, flags of
-- the zero moduli).
local def with_moduli [n][k][m] 'r (split: bool) (f: [m]u64 -> mod_consts [m] -> i64 -> r) (mods: [k][m]u64)
                                 : ([n]r, [n]u8) =
  let (ps, zs) = nonzero_moduli mods
  let cs = per_thread k (\i -> mod_consts ps[i])
  let each i = f (pick ps i) (pick cs i) i
  in (if split then per_thread_split n each else per_thread n each, zero_flags n zs)

-- | `(a mod p + b mod p) mod p` per instance, and flags of the zero moduli
-- (results 0 there).
def mod_add [n][k][m] (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  let (ps, zs) = nonzero_moduli mods
  in (per_thread n (\i -> let p = pick ps i in mod_add_row p (reduce_row p a[i]) (reduce_row p b[i])),
      zero_flags n zs)

-- | `(a - b) mod p` per instance, as `mod_add`.
def mod_sub [n][k][m] (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  let (ps, zs) = nonzero_moduli mods
  in (per_thread n (\i -> let p = pick ps i in mod_sub_row p (reduce_row p a[i]) (reduce_row p b[i])),
      zero_flags n zs)

-- Whether the moduli are one shared even modulus.
local def shared_even [k][m] (mods: [k][m]u64) : bool =
  k == 1 && mods[0, 0] & 1 == 0 && !(zero_row mods[0])

-- Whether the batch route computes mod_mul and powmod: not for a shared
-- even modulus (all of its instances would be recomputed per thread);
-- with `one_odd` (`with_odd_moduli`) without reading the modulus.
local def batch_fits [k][m] (one_odd: bool) (method: i64) (from: i64) (mods: [k][m]u64) : bool =
  by_batch method from m && (one_odd || !(shared_even mods))

-- `with_moduli` for routes that serve odd moduli only: `f` computes all
-- instances from the odd moduli (even ones replaced by 1) and their
-- constants; the instances with an even modulus are then recomputed one
-- per thread by `g`, as in `with_moduli` (only those, gathered and
-- scattered back; for one shared even modulus, all of them).  `one_odd`:
-- the caller knows that the moduli are one odd modulus, so nothing is
-- checked.  Each check that decides a branch is a read by the host that
-- waits for the device (H100, 256-bit `mod_mul`: four reads, 60 us of
-- kernel time and the gaps they leave between kernels).
local #[inline] def with_odd_moduli [n][k][m] (one_odd: bool) (f: [k][m]u64 -> [k](mod_consts [m]) -> [n][m]u64)
                                    (g: [m]u64 -> mod_consts [m] -> i64 -> [m]u64)
                                    (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  -- The moduli checked once (under `one_odd` not at all).
  let (ps, zs) = if one_odd then (mods, replicate k false) else nonzero_moduli mods
  let odd = map (\p -> one_odd || p[0] & 1 == 1) ps
  let qs = map2 (\o p -> if o then p else one m) odd ps
  let res = f qs (per_thread k (\i -> mod_consts qs[i]))
  in if one_odd then (res, replicate n 0) else
  -- One odd modulus: nothing to recompute, and no filter over the batch
  -- (H100, 2^28-bit batches: 171 us of a 256-bit `mod_mul`'s 1034).
  if k == 1 && !(shared_even mods) then (res, zero_flags n zs) else
  let evens = filter (\i -> !(pick odd i)) (iota n)
  let fixed = map (\i -> let p = pick ps i in g p (mod_consts p) i) evens
  in (scatter (copy res) evens fixed, zero_flags n zs)

-- `with_odd_moduli` on the batch route: `f` gets the odd moduli as rows
-- of the batch with `R mod p` and `R^2 mod p` as rows.
local def with_batch_moduli [n][k][m] (cpu: bool) (one_odd: bool)
                                      (f: mont_rows [n][m] -> [n][m]u64 -> [n][m]u64 -> [n][m]u64)
                                      (g: [m]u64 -> mod_consts [m] -> i64 -> [m]u64)
                                      (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  with_odd_moduli one_odd (\qs cs -> f {p = spread n qs, pinv = spread n (inv_rows cpu qs)}
                               (spread n (map (.r1) cs)) (spread n (map (.r2) cs)))
                  g mods

-- The moduli zero-extended to `w` limbs and their constants there (`R =
-- 2^(64w)`); inlined so that `w` is a constant.
local #[inline] def widened_moduli [k][m] (w: i64) (qs: [k][m]u64) : ([k][w]u64, [k](mod_consts [w])) =
  let qw = map (extend w) qs
  in (qw, per_thread k (\j -> mod_consts qw[j]))

-- Odd moduli's `f p c i` for each instance `i`, one per thread at the
-- constant width `w >= m` (inlined so that it is), rows in registers: the
-- moduli `qs` are zero-extended to `w` limbs, where their Montgomery
-- constants `c` are computed (`R = 2^(64w)`, which must cancel in `f`), and
-- the results cut back to `m` limbs.
local #[inline] def odd_fixed [n][k][m] (w: i64) (f: [w]u64 -> mod_consts [w] -> i64 -> [w]u64)
                                        (qs: [k][m]u64) : [n][m]u64 =
  let (qw, cw) = widened_moduli w qs
  in per_thread_split n (\i -> take m (f (pick qw i) (pick cw i) i))

-- `f row x y` for each instance, `x` and `y` its rows of `a` and `b`
-- zero-extended to the constant width `w >= m` (inlined so that it is),
-- one instance per thread (`row ()` its index), the rows read in place
-- from flat arrays; results cut back to `m` limbs.  Up to
-- `mont_block_limbs` through blocks.fut's `thread_map`, which writes the
-- results out through shared memory; wider, by `per_thread_split`.  A map
-- over the rows `a[i]` transposes them to and from a column layout (H100,
-- 2^28-bit batches, 256-bit `mod_mul`: seven transpositions, 168 us of
-- 847).  In `thread_map`'s block kernel the instance's arrays are kept in
-- shared memory (about 30 rows of `w` limbs a thread for `mod_mul`: from
-- 12 limbs more than a block of 128 instances may have).
local #[inline] def thread_pairs [n][m] (w: i64) (f: (() -> i64) -> [w]u64 -> [w]u64 -> [w]u64)
                                        (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  let row_of (xf: [n*m]u64) (row: () -> i64) : [w]u64 =
    #[unroll] loop y = replicate w 0 for j < w do y with [j] = if j < m then #[unsafe] xf[row () * m + j] else 0
  let each row = f row (row_of af row) (row_of bf row)
  in if w <= mont_block_limbs
     then let rs = thread_map n thread_mul_instances each flatten |> unblock n w
          in if m == w then rs :> [n][m]u64 else map (take m) rs
     else per_thread_split n (\i -> take m (each (\() -> i)))

-- Odd moduli's products `a*b mod p` at the constant width `w >= m`
-- (`thread_pairs`): `(ab/R) R^2/R`, two calls of `mont_mul_fixed` as one
-- loop (its unrolled code once).  The inputs need no reduction: CIOS keeps
-- `t < a + p` for any `a < R`, so for `a, b < R` the first product is `T <
-- R + p` and its one conditional subtraction leaves `x < R` (congruent);
-- the second, `x R^2/R` with `R^2 mod p < p`, is `< 2p` before and `< p`
-- after its subtraction.  The moduli are zero-extended to `w` limbs,
-- where their constants are computed.
local #[inline] def mod_mul_fixed [n][k][m] (w: i64) (a: [n][m]u64) (b: [n][m]u64)
                                            (qs: [k][m]u64) (_: [k](mod_consts [m])) : [n][m]u64 =
  let (qw, cw) = widened_moduli w qs
  in thread_pairs w (\row x y -> let p = pick qw (row ())
                                  let c = pick cw (row ())
                                  in (loop (x, y) = (x, y) for _j < 2 do
                                        (mont_mul_fixed w p c.pinv x y, c.r2)).0) a b

-- | `a*b mod p` per instance, as `mod_add`; `cpu` and `method` choose the
-- route of odd moduli (`mont_auto`); `one_odd` says that the moduli are
-- known to be one odd modulus (`k = 1`), which then is not read on the
-- host.  Up to `fixed_mont_limbs` (unless `method` is `mont_batch`)
-- kernels of constant width, one instance per thread (`mod_mul_fixed`: 4,
-- 8, 12, 16, 24 and 32 limbs, narrower instances zero-extended to the
-- next); above, batch-level from `mont_batch_limbs`: `(aR mod p) b/R`,
-- two Montgomery products, valid for any `a, b < R`.
--
-- Not inlined, nor are the other operations with kernels of constant
-- widths (`powmod`, `modinv`, `to_mont_batch`, `from_mont_batch`,
-- `mont_mul_batch`): each copy holds several unrolled kernels, and a
-- program that calls one several times (the tests) would compile each copy
-- again (minutes apiece).
#[noinline]
def mod_mul [n][k][m] (cpu: bool) (method: i64) (one_odd: bool) (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  let row p c i = mod_mul_row p c (reduce_row p a[i]) (reduce_row p b[i])
  -- The widths as literals at each call (see `powmod`), chosen inside one
  -- `with_odd_moduli`, so that its code for even moduli (`row`, at the
  -- run-time width) is generated once, not once per width.
  in if method != mont_batch && m <= i64.min fixed_mont_limbs 32
     then with_odd_moduli one_odd (\qs cs -> if m <= 4 then mod_mul_fixed 4 a b qs cs
                                           else if m <= 8 then mod_mul_fixed 8 a b qs cs
                                           else if m <= 12 then mod_mul_fixed 12 a b qs cs
                                           else if m <= 16 then mod_mul_fixed 16 a b qs cs
                                           else if m <= 24 then mod_mul_fixed 24 a b qs cs
                                           else mod_mul_fixed 32 a b qs cs) row mods
     else if batch_fits one_odd method (mont_batch_limbs cpu) mods
     then with_batch_moduli cpu one_odd (\r _ r2 -> mont_mul_rows cpu r (mont_mul_rows cpu r a r2) b) row mods
     else with_moduli false row mods : ([n][m]u64, [n]u8)

-- Odd moduli's powers `a^e mod p` by `odd_fixed` (`mont_mul_fixed`;
-- squares by `mont_sqr_fixed` with `sqr`, a literal).  `a` needs no
-- reduction: its Montgomery form `a R^2/R` is `< 2p` before the product's
-- subtraction for any `a < R` (see `mod_mul_fixed`).
local #[inline] def pow_odd_fixed [n][k][m][ke][me] (w: i64) (sqr: bool) (wb: i64) (a: [n][m]u64) (e: [ke][me]u64)
                                                  (qs: [k][m]u64) (_: [k](mod_consts [m])) : [n][m]u64 =
  odd_fixed w (\p c i -> let mul = mont_mul_fixed w p c.pinv
                         let x = mul (extend w a[i]) c.r2
                         let y = pow_window (\_ -> mul) sqr (\_ -> mont_sqr_fixed w p c.pinv) c.r1 wb x (pick e i)
                         in mul y (one w)) qs

-- | `a^e mod p` per instance (`ke = 1`: one exponent for the batch, or
-- `ke = n`), as `mod_add`.  The window comes from the longest exponent;
-- `cpu`, `method` and `one_odd` as for `mod_mul`.  Odd moduli up to
-- `fixed_mont_limbs` take kernels of constant width (`pow_odd_fixed`, one
-- for each of 4, 8, 12, 16, 24 and 32 limbs; narrower instances are
-- zero-extended to the next), unless `method` is `mont_batch`.  Their
-- squares take `mont_sqr_fixed` at 4 and 8 limbs; wider, its unrolled
-- code beside the product's cost more than its fewer products save
-- (docs/modular.md).  A shared even modulus skips those kernels (unlike
-- `mod_mul`, where their cost is small beside the read that decides it):
-- every instance would be recomputed per thread.
#[noinline]
def powmod [n][k][m][ke][me] (cpu: bool) (method: i64) (one_odd: bool) (a: [n][m]u64) (e: [ke][me]u64) (mods: [k][m]u64)
                           : ([n][m]u64, [n]u8) =
  let w = window_bits (reduce i64.max 0 (map bit_length_row e))
  let row p c i = powmod_row p c w (reduce_row p a[i]) (pick e i)
  -- The widths as literals at each call: through a local function they
  -- would not be constants.  The last kernel is 32 limbs wide: wider rows
  -- would be cut.  One `with_odd_moduli` for every width: a call per width
  -- generated its code for even moduli (`row`) once per width, 7 copies of
  -- about 0.5 MB of CUDA source each for `mod_mul` and `powmod`.
  in if method != mont_batch && m <= i64.min fixed_mont_limbs 32 && (one_odd || !(shared_even mods))
     then with_odd_moduli one_odd (\qs cs -> if m <= 4 then pow_odd_fixed 4 true w a e qs cs
                                           else if m <= 8 then pow_odd_fixed 8 true w a e qs cs
                                           else if m <= 12 then pow_odd_fixed 12 false w a e qs cs
                                           else if m <= 16 then pow_odd_fixed 16 false w a e qs cs
                                           else if m <= 24 then pow_odd_fixed 24 false w a e qs cs
                                           else pow_odd_fixed 32 false w a e qs cs) row mods
     else if batch_fits one_odd method (pow_batch_limbs cpu) mods
     then with_batch_moduli cpu one_odd (\r r1 r2 -> pow_rows cpu r r1 r2 a e) row mods
     else with_moduli true row mods : ([n][m]u64, [n]u8)

-- | `gcd(a, b)` per instance.
def gcd [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  per_thread n (\i -> gcd_row a[i] b[i])

-- `modinv` with `m` as it comes.  Odd moduli by division steps (gcd.fut;
-- `p = 1` gives 0), even ones from an inverse modulo `a` (`inv_even_row`).
-- Three maps: the reduction of `a`, the division steps, and the instances
-- with an even modulus, gathered, so that the division steps' kernel
-- carries no long division.  With `always` (a literal), the division
-- steps run for every instance, on 3 where the modulus is even or 1 (those
-- results are replaced after): under a branch on the modulus the compiler
-- keeps an instance's 16 rows in thread-private arrays of one kernel, and
-- without it splits the instance over kernels with the rows in global
-- memory, which is faster from `inverse_split_limbs` and slower below
-- (thresholds.fut).
local #[inline] def modinv_rows [n][k][m] (always: bool) (a: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8, [n]u8) =
  let (ps, zs) = nonzero_moduli mods
  let xs = per_thread_split n (\i -> reduce_row (pick ps i) a[i])
  let odd (p: [m]u64) = p[0] & 1 == 1
  let (r, ok) =
    if always
    then let three = tabulate m (\j -> if j == 0 then 3 else 0)
         let qs = map (\p -> if odd p && !(one_row p) then p else three) ps
         let (r, ok) = per_thread_split n (\i -> let q = pick qs i in inv_odd_row q (neg_inv64 q[0]) xs[i]) |> unzip
         in map3 (\i r ok -> let p = pick ps i
                              in if odd p && !(one_row p) then (r, ok) else (replicate m 0, one_row p))
                 (iota n) r ok
            |> unzip
    else per_thread_split n (\i -> let p = pick ps i
                                   in if odd p && !(one_row p) then inv_odd_row p (neg_inv64 p[0]) xs[i]
                                      else (replicate m 0, one_row p))
         |> unzip
  let evens = filter (\i -> !(odd (pick ps i))) (iota n)
  let (re, oke) = per_thread_split (length evens) (\j -> let i = evens[j] in inv_even_row (pick ps i) xs[i]) |> unzip
  let evens = evens :> [length evens]i64
  let r = scatter (copy r) evens re
  let ok = scatter (copy ok) evens oke
  in (r, zero_flags n zs, map (\x -> u8.bool (!x)) ok)

-- `modinv_rows` at the constant width `w >= m` (inlined so that it is):
-- the rows zero-extended to `w` limbs and the results cut back.
local #[inline] def modinv_fixed [n][k][m] (w: i64) (a: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8, [n]u8) =
  let (r, z, none) = modinv_rows (w >= inverse_split_limbs) (map (extend w) a) (map (extend w) mods)
  in (map (take m) r, z, none)

-- | `(a^-1 mod p, zero, none)` per instance: `zero` flags the zero
-- moduli, `none` the instances without an inverse (gcd(a, p) /= 1);
-- results are 0 at both.  Widths up to 64 limbs run at a constant width
-- (4, 8, 16, 32 or 64 limbs, narrower instances zero-extended): with the
-- width known to the compiler the rows of the division steps are
-- thread-private arrays rather than rows in global memory
-- (`fixed_inverse_limbs`).
#[noinline]
def modinv [n][k][m] (a: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8, [n]u8) =
  if m <= 4 then modinv_fixed 4 a mods else if m <= 8 then modinv_fixed 8 a mods
  else if m <= 16 then modinv_fixed 16 a mods else if m <= 32 then modinv_fixed 32 a mods
  else if m <= i64.min fixed_inverse_limbs 64 then modinv_fixed 64 a mods
  else modinv_rows true a mods

-- The batch route of the Montgomery forms (odd moduli only): `f` on the
-- moduli as rows, their `R^2 mod p` as rows.
local def batch_forms [n][k][m] (cpu: bool) (f: mont_rows [n][m] -> [n][m]u64 -> [n][m]u64)
                                (mods: [k][m]u64) : [n][m]u64 =
  let (ps, _) = nonzero_moduli mods
  in f {p = spread n ps, pinv = spread n (inv_rows cpu ps)} (spread n (map (\p -> (mod_consts p).r2) ps))

-- | Montgomery forms `(a mod p)*R mod p` for odd moduli (`R = 2^(64m)`);
-- `cpu` and `method` as for `mod_mul`.
#[noinline]
def to_mont_batch [n][k][m] (cpu: bool) (method: i64) (a: [n][m]u64) (mods: [k][m]u64) : [n][m]u64 =
  if by_batch method (mont_batch_limbs cpu) m then batch_forms cpu (\r r2 -> mont_mul_rows cpu r a r2) mods
  else (with_moduli false (\p c i -> to_mont p c (reduce_row p a[i])) mods : ([n][m]u64, [n]u8)).0

-- | The values `a/R mod p` of Montgomery forms `a < p`, odd moduli.
#[noinline]
def from_mont_batch [n][k][m] (cpu: bool) (method: i64) (a: [n][m]u64) (mods: [k][m]u64) : [n][m]u64 =
  if by_batch method (mont_batch_limbs cpu) m then batch_forms cpu (\r _ -> from_mont_rows cpu r a) mods
  else (with_moduli false (\p c i -> from_mont p c a[i]) mods : ([n][m]u64, [n]u8)).0

-- Montgomery products one instance per thread at the constant width `w`,
-- which must be `m` (`R = 2^(64m)`; inlined so that `w` is a constant), by
-- `thread_pairs`.
local #[inline] def mont_mul_exact [n][k][m] (w: i64) (a: [n][m]u64) (b: [n][m]u64) (ps: [k][m]u64) (pinvs: [k]u64)
                                             : [n][m]u64 =
  thread_pairs w (\row x y -> mont_mul_fixed w (pick ps (row ()) :> [w]u64) (pick pinvs (row ())) x y) a b

-- | Montgomery products `a*b/R mod p` of Montgomery forms `a, b < p`,
-- odd moduli.  One instance per thread at the widths of 4, 8, 16 and 32
-- limbs by kernels of constant width (`mont_mul_fixed`; `R` rules out
-- zero-extending other widths), unless `method` is `mont_batch`.
#[noinline]
def mont_mul_batch [n][k][m] (cpu: bool) (method: i64) (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : [n][m]u64 =
  let (ps, _) = nonzero_moduli mods
  let pinvs = map (\p -> neg_inv64 p[0]) ps
  let fixed = method != mont_batch && m <= fixed_mont_limbs
  in if fixed && m == 4 then mont_mul_exact 4 a b ps pinvs
     else if fixed && m == 8 then mont_mul_exact 8 a b ps pinvs
     else if fixed && m == 16 then mont_mul_exact 16 a b ps pinvs
     else if fixed && m == 32 then mont_mul_exact 32 a b ps pinvs
     else if by_batch method (mont_batch_limbs cpu) m then batch_forms cpu (\r _ -> mont_mul_rows cpu r a b) mods
     else per_thread n (\i -> mont_mul (pick ps i) (pick pinvs i) a[i] b[i])
