-- | The gcd and the modular inverse of one instance by Bernstein and
-- Yang's division steps ("Fast constant-time gcd computation and modular
-- inversion", 2019), in their variable-time form: the loop stops when `g`
-- reaches zero.  The next `N` division steps depend only on the low `N`
-- bits of `f` and `g` (and on `delta`), so they run on one word each and
-- give a 2x2 matrix, which is then applied to the whole rows once: one
-- pass over the limbs per 62 steps, where the binary gcd takes a pass (a
-- subtraction or a shift of the whole row) per bit.
--
-- Signed values are rows of `m + 1` limbs in two's complement: `f` and
-- `g` never exceed their starting magnitudes (each step keeps `max(|f|,
-- |g|)`), so an `m`-limb input needs one sign limb.  One instance per
-- thread (docs/modular.md).  Tested through modular.fut's `gcd` and
-- `modinv` (modular_tests.fut).

import "limbs"

-- | Division steps done on one word per matrix: the low 64 bits of `g`
-- lose one correct bit per step, and every step reads bit 0, so at most
-- 63; 62 keeps the matrix's rows (whose absolute values sum to at most
-- `2^steps`) inside an i64.
def divsteps_per_matrix : i64 = 62

-- The transition matrix `(u, v, q, r)` of `divsteps_per_matrix` division
-- steps from `delta` and the low words of `f` (odd) and `g`:
-- `2^62 (f', g') = (u f + v g, q f + r g)`, and the new `delta`.  Each step
-- (in `delta` form): if `delta > 0` and `g` is odd, `(delta, f, g) <- (1 -
-- delta, g, (g - f)/2)`; else if `g` is odd, `(1 + delta, f, (g + f)/2)`;
-- else `(1 + delta, f, g/2)`.  A run of even `g` is one shift (its steps
-- only halve `g`).  An odd `g` swaps with negation where `delta > 0`; then,
-- while `delta` stays at most 0, no step swaps, and the next `L` steps
-- together add `W f` to `g` (`W < 2^L`, one bit per step, the parities
-- that the steps would see) and divide by `2^L`: `W = -g/f mod 2^L`, with
-- `L` at most 6 so that `1/f mod 2^6` is one Newton step from `f` (right
-- modulo 8 for odd `f`).  No branches around the arithmetic: the threads
-- of a warp take different steps.
local def divsteps (delta: i64) (f: u64) (g: u64) : (i64, (i64, i64, i64, i64)) =
  let (_, delta, _, _, u, v, q, r) =
    loop (i, delta, f, g, u, v, q, r) = (divsteps_per_matrix, delta, f, g, 1i64, 0i64, 0i64, 1i64)
    while i > 0 do
      let z = i64.min i (i64.i32 (u64.ctz g))
      let (i, delta, g, u, v) = (i - z, delta + z, g >> u64.i64 z, u << z, v << z)
      in if i == 0 then (i, delta, f, g, u, v, q, r) else
      let swap = delta > 0
      let (delta, f, g, u, v, q, r) =
        if swap then (-delta, g, 0 - f, q, r, -u, -v) else (delta, f, g, u, v, q, r)
      let steps = i64.min (i64.min i (1 - delta)) 6
      let w = (0 - g * f * (2 - f * f)) & ((1 << u64.i64 steps) - 1)
      let ws = i64.u64 w
      in (i - steps, delta + steps, f, (g + w * f) >> u64.i64 steps,
          u << steps, v << steps, q + ws * u, r + ws * v)
  in (delta, (u, v, q, r))

-- The signed 128-bit product of `s` and the limb `x`, as (low, high)
-- words; `top` says whether `x` is a row's sign limb (then signed too).
local def signed_mul (s: i64) (x: u64) (top: bool) : (u64, u64) =
  let su = u64.i64 s
  let hi = u64.mul_hi su x - (if s < 0 then x else 0)
                           - (if top && i64.u64 x < 0 then su else 0)
  in (su * x, hi)

-- 128-bit addition.
local def add128 ((al, ah): (u64, u64)) ((bl, bh): (u64, u64)) : (u64, u64) =
  let l = al + bl in (l, ah + bh + u64.bool (l < al))

-- A signed 128-bit accumulator moved down one word (sign-extended).
local def down ((_, hi): (u64, u64)) : (u64, u64) =
  (hi, if i64.u64 hi < 0 then u64.highest else 0)

-- Limb `j` of a sum divided by `2^62`, from limbs `j` and `j+1` of the sum.
local def shifted (lo: u64) (hi: u64) : u64 = (lo >> 62) | (hi << 2)

-- The matrix applied to two signed rows of `len` limbs (limbs past `len`
-- are neither read nor written): `x' = (u X + v Y + kx z)/2^62` into `x2`
-- and `y' = (q X + r Y + ky z)/2^62` into `y2`, for `X = x + z` where
-- `xneg` is all ones (else `x`), `Y` likewise, and sums that are multiples
-- of `2^62`.  One pass over the limbs reads each row once, with a signed
-- 128-bit accumulator per output; each limb of a quotient is written as
-- soon as the next limb of its sum is known.  Also returns whether `y' =
-- 0`.
local def combine [w] (len: i64) ((u, v, q, r): (i64, i64, i64, i64)) (kx: i64) (ky: i64)
                      (xneg: u64) (yneg: u64) (z: [w]u64) (x: [w]u64) (y: [w]u64)
                      (x2: *[w]u64) (y2: *[w]u64) : (*[w]u64, *[w]u64, bool) =
  let zero = (0u64, 0u64)
  let (x2, y2, (px, py), (ax, ay), _, nz) =
    loop (x2, y2, (px, py), (ax, ay), (cx, cy), nz) =
         (x2, y2, (0u64, 0u64), (zero, zero), (0u64, 0u64), 0u64)
    for j < len do
      let top = j == len - 1
      let (xj, cx) = adc x[j] (z[j] & xneg) cx
      let (yj, cy) = adc y[j] (z[j] & yneg) cy
      let ax = ax |> add128 (signed_mul u xj top) |> add128 (signed_mul v yj top)
      let ay = ay |> add128 (signed_mul q xj top) |> add128 (signed_mul r yj top)
      -- kx = ky = 0 for f and g: no products by z.
      let (ax, ay) = if kx == 0 && ky == 0 then (ax, ay)
                     else (add128 ax (signed_mul kx z[j] top), add128 ay (signed_mul ky z[j] top))
      let (x2, y2, nz) =
        if j == 0 then (x2, y2, nz)
        else let yl = shifted py ay.0
             in (x2 with [j - 1] = shifted px ax.0, y2 with [j - 1] = yl, nz | yl)
      in (x2, y2, (ax.0, ay.0), (down ax, down ay), (cx, cy), nz)
  let yl = shifted py ay.0
  in (x2 with [len - 1] = shifted px ax.0, y2 with [len - 1] = yl, (nz | yl) == 0)

-- The limbs that a pair of signed rows of `len` limbs needs: one fewer
-- while both top limbs only extend the sign of the limb below.
local def shrink [w] (len: i64) (f: [w]u64) (g: [w]u64) : i64 =
  let extends (x: [w]u64) (i: i64) = x[i] == (if i64.u64 x[i - 1] < 0 then u64.highest else 0)
  in loop len while len > 1 && extends f (len - 1) && extends g (len - 1) do len - 1

-- Whether a row is zero.
local def is_zero [w] (x: [w]u64) : bool =
  (loop (z, i) = (true, 0) while z && i < w do (x[i] == 0, i + 1)).0

-- Whether a signed row is negative.
local def negative [w] (x: [w]u64) : bool = i64.u64 x[w - 1] < 0

-- Whether a signed row is `s` (1 or -1).
local def equals_small [w] (x: [w]u64) (s: i64) : bool =
  let high = if s < 0 then u64.highest else 0
  in x[0] == u64.i64 s
     && (loop (z, i) = (true, 1) while z && i < w do (x[i] == high, i + 1)).0

-- `x + y` (or `x - y` when `sub`) in place, modulo `2^(64w)`.
local def add_sub_in [w] (sub: bool) (x: *[w]u64) (y: [w]u64) : *[w]u64 =
  let (x, _) =
    loop (x, c) = (x, u64.bool sub) for i < w do
      let (s, c) = adc x[i] (if sub then !y[i] else y[i]) c in (x with [i] = s, c)
  in x

-- `x` in `(-2p, p)` brought into `[0, p)`, in place.
local def normalize [w] (p: [w]u64) (x: *[w]u64) : *[w]u64 =
  loop x while negative x do add_sub_in false x p

-- `x` in `w` limbs, zero-extended.
local def widen [m] (w: i64) (x: [m]u64) : *[w]u64 = tabulate w (\i -> if i < m then x[i] else 0)

-- `x >> s` (logical) for `0 <= s < 64*m`.
local def shr [m] (s: i64) (x: [m]u64) : [m]u64 =
  let q = s / 64
  let b = u64.i64 (s % 64)
  in tabulate m (\i -> let lo = if i + q < m then x[i + q] >> b else 0
                       let hi = if b == 0 || i + q + 1 >= m then 0 else x[i + q + 1] << (64 - b)
                       in lo | hi)

-- `x << s`, bits past `m` limbs dropped.
local def shl [m] (s: i64) (x: [m]u64) : [m]u64 =
  let q = s / 64
  let b = u64.i64 (s % 64)
  in tabulate m (\i -> let lo = if i - q >= 0 then x[i - q] << b else 0
                       let hi = if b == 0 || i - q - 1 < 0 then 0 else x[i - q - 1] >> (64 - b)
                       in lo | hi)

-- The trailing zero bits of a nonzero row.
local def trailing_zeros [m] (x: [m]u64) : i64 =
  let i = loop i = 0 while i < m - 1 && x[i] == 0 do i + 1
  in 64 * i + i64.i32 (u64.ctz x[i])

-- Division steps from `(f, g)` (`f` odd, signed rows of `w` limbs) until
-- `g = 0`; with `track`, also `(d, e)` such that `d x = f` and `e x = g`
-- modulo the odd `p` (rows in `(-2p, p)`, `pinv = p^-1 mod 2^64`), from
-- `(d, e)` as given.  Returns the final `f` and `d` (`d` in `(-2p, p)`).
--
-- Per matrix: `f` and `g` over the limbs they still need (they shrink by
-- about 30 bits per matrix: the gcd reads and writes about half the limbs
-- it would at full width); `d` and `e` with `D = d + p` where `d < 0`
-- (else `d`), `E` likewise, and `k < 2^62` that makes `u D + v E - k p` a
-- multiple of `2^62`: `d, e` in `(-2p, p)` give `D, E` in `(-p, p)`, `u D
-- + v E` in `(-2^62 p, 2^62 p)` (the rows of the matrix sum to at most
-- `2^62` in absolute value) and `d'` in `(-2p, p)` again, so no reduction
-- per matrix.  No limb's sum of products reaches `2^127` in absolute value:
-- one signed 128-bit accumulator per row suffices.  Rows pass back as
-- scratch: no allocation per matrix.
local def run_divsteps [w] (track: bool) (p: [w]u64) (pinv: u64)
                           (f: [w]u64) (g: [w]u64) (d: [w]u64) (e: [w]u64) : ([w]u64, [w]u64) =
  let mask = (1u64 << 62) - 1
  let (_, len, f, _, d, _, _, _, _, _, _) =
    loop (delta, len, f, g, d, e, f2, g2, d2, e2, done) =
         (1i64, w, copy f, copy g, copy d, copy e, copy f, copy g, copy d, copy e, is_zero g)
    while !done do
      let (delta, m) = divsteps delta f[0] g[0]
      let (f2, g2, done) = combine len m 0 0 0 0 f f g f2 g2
      let (d2, e2) =
        if !track then (d2, e2) else
        let sign (x: [w]u64) = if negative x then u64.highest else 0
        let (dneg, eneg) = (sign d, sign e)
        let (d0, e0) = (d[0] + (p[0] & dneg), e[0] + (p[0] & eneg))
        let k (s: i64) (t: i64) = -(i64.u64 (((u64.i64 s * d0 + u64.i64 t * e0) * pinv) & mask))
        let (d2, e2, _) = combine w m (k m.0 m.1) (k m.2 m.3) dneg eneg p d e d2 e2
        in (d2, e2)
      in (delta, shrink len f2 g2, f2, g2, d2, e2, f, g, d, e, done)
  -- f past its last `len` limbs: its sign.
  let sign = if i64.u64 f[len - 1] < 0 then u64.highest else 0
  in (tabulate w (\j -> if j < len then f[j] else sign), d)

-- | `gcd(a, b)` (`gcd(0, 0) = 0`): the common twos apart, division steps
-- from the odd one of the two.
def gcd_row [m] (a: [m]u64) (b: [m]u64) : [m]u64 =
  if is_zero a then b else if is_zero b then a else
  let twos = i64.min (trailing_zeros a) (trailing_zeros b)
  let a = shr twos a
  let b = shr twos b
  let (f, g) = if a[0] & 1 == 1 then (a, b) else (b, a)
  let w = m + 1
  let zero = replicate w 0
  let (f, _) = run_divsteps false zero 0 (widen w f) (widen w g) zero zero
  let f = if negative f then add_sub_in true (replicate w 0) f else f
  in shl twos (take m f)

-- | `(x^-1 mod p, whether it exists)` for odd `p > 1`, `x < p`, and
-- `pneg = -p^-1 mod 2^64`: division steps from `(f, g) = (p, x)` with `d =
-- 0`, `e = 1`; at the end `f = +-gcd(p, x)` and `d x = f mod p`.
def inv_odd_row [m] (p: [m]u64) (pneg: u64) (x: [m]u64) : ([m]u64, bool) =
  let w = m + 1
  let pw = widen w p
  let (f, d) = run_divsteps true pw (0 - pneg) pw (widen w x) (replicate w 0) (widen w [1u64])
  let d = normalize pw (copy d)
  in if equals_small f 1 then (take m d, true)
     else if equals_small f (-1) then (take m (normalize pw (add_sub_in true (replicate w 0) d)), true)
     else (replicate m 0, false)
