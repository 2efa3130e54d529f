-- | Exact division of big integers: quotient and remainder.
--
-- A big integer is a `[m]u64` array of limbs, limb 0 the least
-- significant (base B = 2^64).  `divmod` divides a batch as a sequence of
-- batched operations over the whole batch (the block-level kernels
-- `mul_lo`, `mul_full`, `add`, `sub`, and `cmp`, shifts and maps), with
-- the same control flow for every instance: normalisation, Newton iteration for
-- the reciprocal of the divisor with precision doubling, the quotient
-- estimate, and a batched correction loop that makes the result exact.
-- `div_limb` divides by a single limb with a parallel scan over partial
-- remainders.  See docs/division.md for the algorithm and the error bounds.

import "limbs"
import "blocks"
import "thresholds"
import "add"
import "mul"
import "ntt"
import "shift"
import "compare"

-- | Single-limb division: (floor((u1*B + u0) / d), (u1*B + u0) mod d)
-- for u1 < d (Hacker's Delight divlu on 32-bit half limbs).
local def divlu (u1: u64) (u0: u64) (d: u64) : (u64, u64) =
  let b = 1u64 << 32
  let mask = b - 1
  let s = u64.i32 (u64.clz d)
  let v = d << s
  let vn1 = v >> 32
  let vn0 = v & mask
  let un32 = if s == 0 then u1 else (u1 << s) | (u0 >> (64 - s))
  let un10 = u0 << s
  let un1 = un10 >> 32
  let un0 = un10 & mask
  let digit (top: u64) (next: u64) =
    -- Estimate from the two leading half limbs, then correct (at most twice).
    let (q, _, _) =
      loop (q, rhat, go) = (top / vn1, top % vn1, true)
      while go && (q >= b || q * vn0 > (rhat << 32) + next) do
        (q - 1, rhat + vn1, rhat + vn1 < b)
    in (q, (top << 32) + next - q * v)
  let (q1, un21) = digit un32 un1
  let (q0, r) = digit un21 un0
  in ((q1 << 32) | q0, r >> s)

-- | floor((B^2 - 1) / d) - B for a normalised limb d (top bit set), the
-- reciprocal of Möller and Granlund, without integer division (a GPU
-- emulates each 64-bit division in software; `divlu` needs four).  An f64
-- quotient 2^128/d is within 2^14 of the exact one; the remainder R of
-- B^2 - 1 by the estimate's B + v0, an exact 128-bit product, then gives
-- the missing floor(R/d) (|R| < 2^78) by a second f64 quotient, within one,
-- and one exact comparison settles the last unit.
def reciprocal_word (d: u64) : u64 =
  let two63 = f64.from_bits 0x43E0000000000000
  let two64 = f64.from_bits 0x43F0000000000000
  let two128 = f64.from_bits 0x47F0000000000000
  let df = f64.u64 d
  -- 2^128/d - 2^64 in [0, 2^64], a multiple of 2^12 (exact in f64).
  let e = two128 / df - two64
  -- Futhark's f64-to-u64 conversion goes through i64, so below 2^63 only.
  let v0 = if e >= two64 then u64.highest
           else if e >= two63 then u64.f64 (e - two63) | (1 << 63)
           else u64.f64 e
  -- R = B^2 - 1 - (B + v)*d modulo B^2 = the complement of (B + v)*d, a
  -- signed 128-bit (hi, lo) pair.
  let remainder (v: u64) = (!(u64.mul_hi v d + d), !(v * d))
  let (r1, r0) = remainder v0
  let t = (f64.i64 (i64.u64 r1) * two64 + f64.u64 r0) / df
  let corr = i64.f64 (f64.floor t)
  let v1 = v0 + u64.i64 corr
  -- Only v = B-1 (d = B/2) can be overshot to B.
  let v1 = if corr > 0 && v1 < v0 then u64.highest else v1
  let (r1, r0) = remainder v1
  in if i64.u64 r1 < 0 then v1 - 1
     else if r1 != 0 || r0 >= d then v1 + 1
     else v1

-- | (a * b) mod d for a, b < d.
local def mulmod (a: u64) (b: u64) (d: u64) : u64 =
  (divlu (u64.mul_hi a b) (a * b) d).1

-- | (a + b) mod d for a, b < d.
local def addmod (a: u64) (b: u64) (d: u64) : u64 =
  let s = a + b
  in if s < a || s >= d then s - d else s

-- | Division of one instance by one limb d > 0: (quotient, remainder).
--
-- The partial remainder below limb i, r_i = (sum_{j>=i} u_j B^(j-i)) mod d,
-- is a scan from the most significant end with the associative
-- operator on (value mod d, B^length mod d) of digit runs; each quotient
-- limb is then an independent two-by-one division.
local def div_limb_one [m] (u: [m]u64) (d: u64) : ([m]u64, u64) =
  let B_mod_d = addmod (u64.highest % d) (1 % d) d
  -- The runs carry d, and the neutral element is (0, 1, 0): an operator
  -- and neutral element that do not depend on the instance let the
  -- compiler flatten a batch of these scans into one segmented scan.
  let runs = map (\x -> (x % d, B_mod_d, d)) (reverse u)
  let join (hv, hp, hd) (lv, lp, ld) =
    if hd == 0 then (lv, lp, ld)
    else if ld == 0 then (hv, hp, hd)
    else (addmod (mulmod hv lp hd) lv hd, mulmod hp lp hd, hd)
  let rems = reverse (map (.0) (scan join (0, 1, 0) runs)) -- rems[i] = r_i
  let q = map (\i -> (divlu (if i + 1 < m then rems[i + 1] else 0) u[i] d).0) (iota m)
  in (q, if m == 0 then 0 else rems[0])

-- | floor((u1*B + u0) / d) and the remainder, for a normalised d (top bit
-- set), u1 < d and `v = reciprocal_word d` (Möller and Granlund, "Improved
-- division by invariant integers", 2011, Algorithm 4): two products and
-- no division.
def div2by1 (v: u64) (d: u64) (u1: u64) (u0: u64) : (u64, u64) =
  -- (q1, q0) = v*u1 + (u1 + 1, u0)
  let p0 = v * u1
  let q0 = p0 + u0
  let q1 = u64.mul_hi v u1 + u1 + 1 + u64.bool (q0 < p0)
  let r = u0 - q1 * d
  let (q1, r) = if r > q0 then (q1 - 1, r + d) else (q1, r)
  in if r >= d then (q1 + 1, r - d) else (q1, r)

-- | Division of one instance by one limb d > 0, a limb at a time from the
-- top (the dividend shifted as the divisor is normalised, on the fly).
local def div_limb_loop [m] (u: [m]u64) (d: u64) : ([m]u64, u64) =
  let s = u64.i32 (u64.clz d)
  let dn = d << s
  let v = reciprocal_word dn
  -- Limb j of u << s (limb m is the bits shifted out at the top).
  let shifted (j: i64) : u64 =
    let hi = if j < m then u[j] << s else 0
    let lo = if s == 0 || j == 0 then 0 else u[j - 1] >> (64 - s)
    in hi | lo
  let (q, r) = loop (q, r) = (replicate m 0u64, shifted m) for i < m do
                 let j = m - 1 - i
                 let (qj, r) = div2by1 v dn r (shifted j)
                 in (q with [j] = qj, r)
  in (q, r >> s)

-- | The least multiple of 4 (the kernels' limbs per thread) >= `l`.
local def width (l: i64) : i64 = (l + 3) / 4 * 4

-- | Whether a `w`-limb two's complement number is negative.
local def negative [w] (x: [w]u64) : bool = x[w - 1] >> 63 == 1

-- | Precision (limbs) of the Newton iterate below one of precision `p`:
-- h = floor(p/2) + 1 makes 2h >= p+1, so the quadratic error term of the
-- step stays below one unit (docs/division.md); from p = 2 the step goes
-- to 1 limb, the base case.
local def lower (p: i64) : i64 = if p <= 2 then 1 else p / 2 + 1

-- | Number of Newton steps from precision 1 to `m`.
local def depth (m: i64) : i64 =
  (loop (d, p) = (0, m) while p > 1 do (d + 1, lower p)).0

-- | Precision after `t` of the `depth m` steps.
local def precision (m: i64) (t: i64) : i64 =
  loop p = m for _i < depth m - t do lower p

-- DIFFERENCES FROM CYCLIC PRODUCTS.  A Newton step's B^(p+h) - A_p*y and
-- the remainder a - q*b are known to be small, so they need x*y only
-- modulo a number a little above twice their bound.  Modulo B^L - 1 a
-- product is one cyclic convolution of 2L digits (`mul_cyclic_ntt`), half
-- the transform of a low half of the same width; with the product's low
-- `cyc_low` limbs beside it (a 4-by-4-limb product per instance), the
-- difference D follows from its residues e1 = D mod (B^L - 1) and e2 =
-- D mod B^4: D = e1 + k (B^L - 1), where k = (e1 - e2) mod B^4 read as a
-- signed number, for every |D| < B^(L+3) (then |k| < B^3 + 2 < B^4/2).

-- | Limbs kept modulo B^4 beside a cyclic product.
local def cyc_low : i64 = 4

-- | L for a difference below B^(k+1) in magnitude: the least power of
-- two (at least 8) with k + 1 <= L + 3.
local def cyc_limbs (k: i64) : i64 =
  loop L = 8 while L < k - 2 do 2 * L

-- | Whether the cyclic product of L limbs replaces a low half of w limbs:
-- the ladder multiplies w limbs by NTT and the cyclic transform is shorter.
local def cyclic_pays (cpu: bool) (w: i64) (L: i64) : bool =
  w >= ntt_lo_limbs cpu && L <= ntt_cyclic_max_limbs && 2 * L < 1 << ntt_product_log w

-- (x*y) mod B^4 of one instance (x, y of at least one limb).
local def low_product [k][l] (x: [k]u64) (y: [l]u64) : [cyc_low]u64 =
  loop r = replicate cyc_low 0 for i < i64.min k cyc_low do
    (loop (r, c) = (r, 0u64) for j < i64.min l (cyc_low - i) do
       let (s, c) = mul_add x[i] y[j] r[i + j] c in (r with [i + j] = s, c)).0

-- (x - y) mod B^4 of one instance, as x + ~y + 1.
local def sub_low (x: [cyc_low]u64) (y: [cyc_low]u64) : [cyc_low]u64 =
  (loop (r, c) = (replicate cyc_low 0, 1u64) for i < cyc_low do
     let (s, c) = adc x[i] (!y[i]) c in (r with [i] = s, c)).0

-- | (x + y) mod (B^L - 1) for x, y <= B^L - 1, in [0, B^L - 1]: the carry
-- out re-enters at the bottom (and then carries nothing out, as x + y <=
-- 2 B^L - 2).
local def add_cyclic [n][L] (cpu: bool) (x: [n][L]u64) (y: [n][L]u64) : [n][L]u64 =
  let (s, c) = add cpu (64 * L) x y
  in (add cpu (64 * L) s (map (\c -> tabulate L (\j -> if j == 0 then u64.u8 c else 0)) c)).0

-- | The signed difference T - x*y as w limbs (two's complement), for
-- |T - x*y| < B^(L+3) and below B^w / 2, from T's residues `tc` = T mod
-- (B^L - 1) and `tl` = T mod B^4 (see above).  The operands have at most
-- 2L limbs.
local def diff_by_cyclic [n][L][k] (cpu: bool) (w: i64) (tc: [n][L]u64) (tl: [n][cyc_low]u64)
                                   (x: [n][k]u64) (y: [n][k]u64) : [n][w]u64 =
  let xy = mul_cyclic_ntt L x y
  -- e1 = s + c for tc + (B^L - 1 - xy) = s + c B^L: the end-around carry
  -- c is not added to s (a pass over the rows) but kept beside it.
  let (e1s, e1c) = add cpu (64 * L) tc (map (map (\x -> !x)) xy)
  let carry (c: u8) = tabulate cyc_low (\j -> if j == 0 then u64.u8 c else 0)
  let e2 = map3 (\t u v -> sub_low t (low_product u v)) tl x y
  -- k = (s + c - e2) mod B^4, and k - c.
  let ks = map3 (\u c v -> sub_low (take cyc_low u :> [cyc_low]u64) (sub_low v (carry c))) e1s e1c e2
  let kcs = map2 (\kk c -> sub_low kk (carry c)) ks e1c
  let wc = i64.max w (L + cyc_low)
  let ext (kk: [cyc_low]u64) (j: i64) = if j < cyc_low then kk[j] else if kk[cyc_low - 1] >> 63 == 1 then u64.highest else 0
  -- D = s + c + k (B^L - 1) = s + k B^L (s < B^L: the limbs side by
  -- side), less k - c.
  let up = map2 (\u kk -> tabulate wc (\j -> if j < L then u[j] else ext kk (j - L))) e1s ks
  let d = (sub cpu (64 * wc) up (map (\kk -> tabulate wc (ext kk)) kcs)).0
  in window w 0 w d

-- | One Newton step for the reciprocal of the normalised divisors `v`
-- (B^m/2 <= v < B^m).  From `y` ~ B^(2h) / A_h (h+1 limbs), A_h the
-- leading h limbs of v, to ~ B^(2p) / A_p (p+1 limbs):
-- y*B^l + y*D / B^(2h), l = p-h, D = B^(p+h) - A_p*y.  D is small, so it
-- comes from the low product A_p*y mod B^w; only its limbs from h-1 up
-- enter the correction, which is truncated (towards -infinity for D < 0).
local def newton [n][m][k] (cpu: bool) (v: [n][m]u64) (p: i64) (h: i64) (y: [n][k]u64) : [n][]u64 =
  let l = p - h
  let w = width (p + 2)
  let L = cyc_limbs p
  let (ap, yh) = (window w (m - p) p v, window w 0 (h + 1) y)
  -- D = B^(p+h) - A_p*y, |D| < B^(p+1) <= B^(w-1): from the low product
  -- mod B^w, or from the cyclic product mod B^L - 1 (B^(p+h) is B^((p+h)
  -- mod L) there and 0 mod B^4).
  let D = if cyclic_pays cpu w L
          then diff_by_cyclic cpu w (replicate n (tabulate L (\j -> u64.bool (j == (p + h) % L))))
                              (replicate n (replicate cyc_low 0)) ap yh
          else (sub cpu (64 * w) (replicate n (tabulate w (\j -> u64.bool (j == p + h)))) (mul_lo cpu (64 * w) ap yh)).0
  let dpos = map (\x -> !(negative x)) D
  -- Selections are flat maps over all limbs (only_inner): a map choosing whole
  -- rows, or reading a row's sign and then its limbs, is otherwise also
  -- compiled to one thread per row, with transposes around it on the GPU.
  let mag = #[incremental_flattening(only_inner)]
            map3 (\pos x z -> map2 (\u v -> if pos then u else v) x z) dpos D (neg cpu (64 * w) D)
  let w2 = width (h + 2)
  -- floor(|D| / B^(h-1)) < B^(l+2), and y < B^(h+1).
  let c = mul_full cpu (window w2 (h - 1) (l + 2) mag) (window w2 0 (h + 1) y)
  -- The correction's magnitude, floor(y*|D| / B^(2h)) < B^(l+1).
  let corr = window w (h + 1) (l + 1) c
  let signed = #[incremental_flattening(only_inner)]
               map2 (\pos r -> map (\x -> if pos then x else !x) r) dpos corr
  in (add cpu (64 * w) (window w (-l) (p + 1) y) signed).0

-- | Approximate reciprocals of normalised divisors (B^m/2 <= v < B^m):
-- Y ~ B^(2m) / v within a few units, as m+1 limbs in `width (m+2)`.
local def reciprocal [n][m] (cpu: bool) (v: [n][m]u64) : [n][]u64 =
  -- Base case, one limb: floor((B^2-1) / v1) = B + `reciprocal_word` v1.
  let y1 = map (\r -> [reciprocal_word r[m - 1], 1, 0, 0]) v
  in (loop (y: [n][]u64, h) = (y1, 1) for t < depth m do
        let p = precision m (t + 1)
        in (newton cpu v p h y, p)).0

-- Long division of one instance (Knuth's Algorithm D), b /= 0: the divisor
-- has k limbs and is normalised by a shift s to v (top bit set), the
-- dividend to u (m+1 limbs); the quotient is found limb by limb from the
-- top, each from an estimate that is never too small and at most one too
-- large, a multiply-subtract and, rarely, an add-back.

-- (k, s, v, u): the divisor's length, the shift, and the shifted operands.
local def normalise [m] (a: [m]u64) (b: [m]u64) : (i64, u64, [m]u64, *[m+1]u64) =
  let top = loop i = m - 1 while i > 0 && b[i] == 0 do i - 1
  let s = u64.i32 (u64.clz b[top])
  -- Limb i of x * 2^s.
  let shifted (x: [m]u64) (i: i64) =
    (if i < m then x[i] << s else 0) | (if s == 0 || i == 0 then 0 else x[i - 1] >> (64 - s))
  in (top + 1, s, tabulate m (\i -> if i <= top then shifted b i else 0), tabulate (m + 1) (shifted a))

-- | The reciprocal of a normalised two-limb divisor d1*B + d0 (d1's top
-- bit set) for `div3by2`: floor((B^3 - 1) / (d1*B + d0)) - B (Möller and
-- Granlund, "Improved division by invariant integers", 2011, Algorithm 6).
-- One per divisor; every quotient digit then costs two products instead of
-- two 64-bit divisions.
def reciprocal_3by2 (d1: u64) (d0: u64) : u64 =
  let v = reciprocal_word d1
  let p = d1 * v + d0
  let (v, p) = if p >= d0 then (v, p)
               else let (v, p) = if p >= d1 then (v - 2, p - d1) else (v - 1, p)
                    in (v, p - d1)
  let t1 = u64.mul_hi v d0
  let t0 = v * d0
  let p' = p + t1
  in if p' >= t1 then v
     else if p' > d1 || (p' == d1 && t0 >= d0) then v - 2
     else v - 1

-- | floor((u2*B^2 + u1*B + u0) / (d1*B + d0)) for (u2, u1) < (d1, d0), d1
-- normalised, `dinv = reciprocal_3by2 d1 d0` (Möller and Granlund,
-- Algorithm 5).
def div3by2 (dinv: u64) (u2: u64) (u1: u64) (u0: u64) (d1: u64) (d0: u64) : u64 =
  -- (q1, q0) = dinv*u2 + (u2, u1)
  let p0 = dinv * u2
  let q0 = p0 + u1
  let q1 = u64.mul_hi dinv u2 + u2 + u64.bool (q0 < p0)
  -- (r1, r0) = ((u1 - q1*d1) B + u0) - q1*d0 - d mod B^2
  let r1 = u1 - q1 * d1
  let t1 = u64.mul_hi d0 q1
  let t0 = d0 * q1
  let (r1, r0) = let s0 = u0 - t0
                 let s1 = r1 - t1 - u64.bool (u0 < t0)
                 in (s1 - d1 - u64.bool (s0 < d0), s0 - d0)
  let q1 = q1 + 1
  let (q1, r1, r0) = if r1 >= q0
                     then let s0 = r0 + d0 in (q1 - 1, r1 + d1 + u64.bool (s0 < d0), s0)
                     else (q1, r1, r0)
  in if r1 > d1 || (r1 == d1 && r0 >= d0) then q1 + 1 else q1

-- Knuth's estimate of floor((u2*B^2 + u1*B + u0) / (v1*B + v0)) for u2 <= v1
-- (v1's top bit set), `dinv = reciprocal_3by2 v1 v0`: never too small, at
-- most two too large.  Knuth's refinement (qhat*v0 > rhat*B + u0) yields
-- exactly min(B-1, this quotient), which is what `div3by2` gives below B-1.
local def estimate (dinv: u64) (u2: u64) (u1: u64) (u0: u64) (v1: u64) (v0: u64) : u64 =
  if u2 > v1 || (u2 == v1 && u1 >= v0) then u64.highest else div3by2 dinv u2 u1 u0 v1 v0

-- u[j .. top] += v (k limbs at j, the carry through limbs j+k .. top); the
-- carry out of limb `top` is dropped (it cancels the borrow of a
-- multiply-subtract that went negative).
local def add_back [m][m1] (k: i64) (v: [m]u64) (u: *[m1]u64) (j: i64) (top: i64) : *[m1]u64 =
  let (u, carry) =
    loop (u, carry) = (u, 0u64) for i < k do
      let s1 = u[j + i] + v[i]
      let s2 = s1 + carry
      in (u with [j + i] = s2, u64.bool (s1 < v[i]) + u64.bool (s2 < carry))
  let (u, _) =
    loop (u, carry) = (u, carry) for i in (j + k)...top do
      let x = u[i] + carry in (u with [i] = x, u64.bool (x < carry))
  in u

-- `reciprocal_3by2` of the top two limbs of the normalised k-limb divisor v.
local def divisor_reciprocal [m] (k: i64) (v: [m]u64) : u64 =
  reciprocal_3by2 v[k - 1] (if k >= 2 then v[k - 2] else 0)

-- One limb of a multiply-subtract: x - (qh*y + c) - borrow, and the next
-- (c, borrow).
local def msub_limb (qh: u64) ((c, borrow): (u64, u64)) (x: u64) (y: u64) : (u64, (u64, u64)) =
  let lo = qh * y + c
  let hi = u64.mul_hi qh y + u64.bool (lo < c)
  let d = x - lo
  in (d - borrow, (hi, u64.bool (x < lo) + u64.bool (d < borrow)))

-- One quotient limb, at position j: u[j .. j+k] becomes its remainder by v.
local def step1 [m][m1] (k: i64) (dinv: u64) (v: [m]u64) (u: *[m1]u64) (j: i64) : (*[m1]u64, u64) =
  let qh = estimate dinv u[j + k] u[j + k - 1] (if k >= 2 then u[j + k - 2] else 0)
                    v[k - 1] (if k >= 2 then v[k - 2] else 0)
  -- Four limbs per iteration, all loaded before any is stored, so that
  -- their loads (from global memory in the map over rows) overlap.
  let (u, cb) =
    loop (u, cb) = (u, (0u64, 0u64)) for t < k / 4 do
      let i = 4 * t
      let (x0, x1, x2, x3) = (u[j + i], u[j + i + 1], u[j + i + 2], u[j + i + 3])
      let (y0, y1, y2, y3) = (v[i], v[i + 1], v[i + 2], v[i + 3])
      let (z0, cb) = msub_limb qh cb x0 y0
      let (z1, cb) = msub_limb qh cb x1 y1
      let (z2, cb) = msub_limb qh cb x2 y2
      let (z3, cb) = msub_limb qh cb x3 y3
      let u = u with [j + i] = z0
      let u = u with [j + i + 1] = z1
      let u = u with [j + i + 2] = z2
      in (u with [j + i + 3] = z3, cb)
  let (u, (c, borrow)) =
    loop (u, cb) for i in k / 4 * 4..<k do
      let (z, cb) = msub_limb qh cb u[j + i] v[i]
      in (u with [j + i] = z, cb)
  let x = u[j + k]
  let d = x - c
  let u = u with [j + k] = d - borrow
  in if x < c || d < borrow then (add_back k v u j (j + k), qh - 1) else (u, qh)

-- The remainder, u[0 .. k-1] shifted back by s, in m limbs.
local def denormalise [m][m1] (k: i64) (s: u64) (u: [m1]u64) : [m]u64 =
  tabulate m (\i -> if i >= k then 0 else (u[i] >> s) | (if s == 0 then 0 else u[i + 1] << (64 - s)))

-- Long division of one instance, b /= 0, `g` quotient limbs per pass over
-- the partial remainder: `step k dinv v u j` finds the `g` limbs at
-- positions j .. j-g+1 (as `d`, stored into q by `store q j d`); the limbs
-- that do not fill a group of `g` come first, one at a time.
local def long_division_by 'd [m] (g: i64)
                                 (step: i64 -> u64 -> [m]u64 -> *[m+1]u64 -> i64 -> (*[m+1]u64, d))
                                 (store: *[m]u64 -> i64 -> d -> *[m]u64)
                                 (a: [m]u64) (b: [m]u64) : ([m]u64, [m]u64) =
  let (k, s, v, u) = normalise a b
  let dinv = divisor_reciprocal k v
  let digits = m - k + 1
  let (u, q) =
    loop (u, q) = (u, replicate m 0u64) for t < digits % g do
      let (u, qh) = step1 k dinv v u (m - k - t)
      in (u, q with [m - k - t] = qh)
  let (u, q) =
    loop (u, q) for t < digits / g do
      let j = m - k - digits % g - g * t
      let (u, ds) = step k dinv v u j
      in (u, store q j ds)
  in (q, denormalise k s u)

-- Quotient limbs into q at j, j-1, ..., lowest last.
local def store1 [m] (q: *[m]u64) (j: i64) (q0: u64) : *[m]u64 = q with [j] = q0

local def store4 [m] (q: *[m]u64) (j: i64) ((q0, q1, q2, q3): (u64, u64, u64, u64)) : *[m]u64 =
  let q = q with [j] = q3
  let q = q with [j - 1] = q2
  let q = q with [j - 2] = q1
  in q with [j - 3] = q0

local def store8 [m] (q: *[m]u64) (j: i64) ((lo, hi): ((u64, u64, u64, u64), (u64, u64, u64, u64))) : *[m]u64 =
  store4 (store4 q j hi) (j - 4) lo

-- | Long division of one instance, b /= 0, one quotient limb per pass over
-- the partial remainder: (quotient, remainder).
def long_division [m] (a: [m]u64) (b: [m]u64) : ([m]u64, [m]u64) =
  long_division_by 1 step1 store1 a b

-- An array of `n` elements `f i` built by an unrolled loop: with `n` a
-- constant every index is one, and the array stays in registers.
local #[inline] def unrolled 't (n: i64) (f: i64 -> t) (x0: t) : *[n]t =
  #[unroll] loop y = replicate n x0 for i < n do y with [i] = f i

-- `x` moved up by `d` limbs (0 <= d < n), or down for `down`, with every
-- index a constant: one conditional one-limb move per possible distance.
local #[inline] def move_limbs [n] (down: bool) (d: i64) (x: [n]u64) : [n]u64 =
  #[unroll]
  loop (x: [n]u64) for t < n - 1 do
    if t < d then unrolled n (\i -> if down then (if i + 1 < n then x[i + 1] else 0)
                                  else (if i > 0 then x[i - 1] else 0)) 0
    else x

-- | Long division of one instance, b /= 0, with every index a constant
-- (`w` must be one: loops are unrolled), so that everything stays in
-- registers: (quotient, remainder).  Both operands are moved up by d = w -
-- k limbs (k the divisor's length), so that the divisor's top limb is
-- always limb w-1 and the window over the partial remainder never moves.
-- The passes for quotient limbs above w-k and the divisor's d zero limbs
-- are skipped by branches (the same in every thread of a uniform batch),
-- so the work is long division's.
def long_division_registers [w] (a: [w]u64) (b: [w]u64) : ([w]u64, [w]u64) =
  let k = #[unroll] loop k = 0 for i < w do if b[i] != 0 then i + 1 else k
  let s = u64.i32 (u64.clz (#[unroll] loop t = 0 for i < w do if b[i] != 0 then b[i] else t))
  -- Limb i of x * 2^s, for i <= n (limb n is the bits shifted out).
  let shifted [n] (x: [n]u64) (i: i64) =
    (if i < n then x[i] << s else 0) | (if s == 0 || i == 0 then 0 else x[i - 1] >> (64 - s))
  let d = w - k
  let v = move_limbs false d (unrolled w (shifted b) 0)
  -- a * 2^s * B^d in 2w+1 limbs.
  let u = move_limbs false d (unrolled (2*w + 1) (\i -> if i <= w then shifted a i else 0) 0)
  let dinv = reciprocal_3by2 v[w - 1] (if w >= 2 then v[w - 2] else 0)
  -- Quotient limb j = w - t comes from the window x over limbs j .. j+w
  -- of u; limbs above w - k are 0 (a < B^w, b >= B^(k-1)).
  let (window, q) =
    #[unroll]
    loop (x, q) = (unrolled (w + 1) (\i -> u[w + i]) 0, replicate w 0u64) for t < w + 1 do
      let x = unrolled (w + 1) (\i -> if t == 0 then x[i] else if i == 0 then u[w - t] else x[i - 1]) 0
      let j = w - t
      in if j > w - k then (x, q) else
      let qh = estimate dinv x[w] x[w - 1] (if w >= 2 then x[w - 2] else 0) v[w - 1] (if w >= 2 then v[w - 2] else 0)
      -- x -= qh * v over v's limbs d .. w-1 (below them v is 0), then if
      -- negative x += v and qh -= 1 (at most once).
      let (x, c, borrow) =
        #[unroll]
        loop (x, c, borrow) = (x, 0u64, 0u64) for i < w do
          if i < d then (x, c, borrow) else
          let lo = qh * v[i] + c
          let hi = u64.mul_hi qh v[i] + u64.bool (lo < c)
          let y = x[i]
          let dd = y - lo
          in (x with [i] = dd - borrow, hi, u64.bool (y < lo) + u64.bool (dd < borrow))
      let y = x[w]
      let dd = y - c
      let negative = y < c || dd < borrow
      let x = x with [w] = dd - borrow
      let (x, _) =
        if !negative then (x, 0) else
        #[unroll]
        loop (x, carry) = (x, 0u64) for i < w + 1 do
          if i < d then (x, carry) else
          let vi = if i == w then 0 else v[i]
          let s1 = x[i] + vi
          let s2 = s1 + carry
          in (x with [i] = s2, u64.bool (s1 < vi) + u64.bool (s2 < carry))
      in (x, if j < w then q with [j] = (if negative then qh - 1 else qh) else q)
  -- The remainder is the window's low w limbs moved down by d limbs, then
  -- shifted right by s bits.
  let r = move_limbs true d (unrolled w (\i -> window[i]) 0)
  let r = unrolled w (\i -> (r[i] >> s) | (if s == 0 || i + 1 == w then 0 else r[i + 1] << (64 - s))) 0
  in (q, r)

-- q*x added to a three-limb accumulator (s, h, h2).
local def add_product ((s, h, h2): (u64, u64, u64)) (q: u64) (x: u64) : (u64, u64, u64) =
  let pl = q * x
  let ph = u64.mul_hi q x
  let s' = s + pl
  let h' = h + ph
  let h'' = h' + u64.bool (s' < pl)
  in (s', h'', h2 + u64.bool (h' < ph) + u64.bool (h'' < h'))

-- The limbs u[base .. base+len-1] replaced one by one by `limb` (a state,
-- the limb of u, limb i of v from `vl i`; the new limb and state), two per
-- iteration, both loaded before either is stored.  With `ahead`, the next
-- two limbs of u and v are also loaded before this iteration's stores, so
-- that their loads (from global memory in the map over rows) overlap its
-- arithmetic: the compiler does not move a load above a store to the same
-- array.  H200, eight quotient limbs per pass: 16384 bits 12149 to 11468
-- us, 65536 bits 38234 to 36112; four, whose kernel also serves one limb
-- per pass, got slower from the registers (4096 bits: 5689 against 5363).
local def msub_pairs 's [m1] (ahead: bool) (limb: s -> u64 -> u64 -> (u64, s)) (vl: i64 -> u64)
                            (u: *[m1]u64) (base: i64) (len: i64) (st: s) : (*[m1]u64, s) =
  -- Loads past the window (of the last iteration) read limb m1-1 and are unused.
  let at (x: [m1]u64) (i: i64) = x[i64.min (base + i) (m1 - 1)]
  let (u, st) =
    if ahead then
      let first = (at u 0, at u 1, vl 0, vl 1)
      let (u, st, _) =
        loop (u, st, (xa, xb, ya, yb)) = (u, st, first) for t < len / 2 do
          let i = 2 * t
          let next = (at u (i + 2), at u (i + 3), vl (i + 2), vl (i + 3))
          let (za, st) = limb st xa ya
          let (zb, st) = limb st xb yb
          let u = u with [base + i] = za
          in (u with [base + i + 1] = zb, st, next)
      in (u, st)
    else
      loop (u, st) for t < len / 2 do
        let i = 2 * t
        let (xa, xb, ya, yb) = (u[base + i], u[base + i + 1], vl i, vl (i + 1))
        let (za, st) = limb st xa ya
        let (zb, st) = limb st xb yb
        let u = u with [base + i] = za
        in (u with [base + i + 1] = zb, st)
  in loop (u, st) for i in len / 2 * 2..<len do
       let (z, st) = limb st u[base + i] (vl i)
       in (u with [base + i] = z, st)

-- Four quotient limbs, at positions j .. j-3, in one multiply-subtract pass
-- over the window u[j-3 .. j+k]: a quarter of the memory traffic of four
-- `step1`.  The estimate floor(U'/V') from the top nine limbs U' of the
-- window and the top five limbs V' of v is never too small (U < (U'+1)
-- B^(k-5), so the quotient is below (U'+1)/V') and at most one too large
-- (the error is below U'/(V'(V'+1)) + 1 < B^4/V' + 1 <= 2/B + 1); it is
-- capped at B^4 - 1, which the quotient never exceeds.  The digits and v's
-- limbs stay in registers (tuples): the same code with arrays, for any
-- number of limbs per pass, was up to 2.8x slower on the H200.
local def step4 [m][m1] (k: i64) (dinv: u64) (v: [m]u64) (u: *[m1]u64) (j: i64) : (*[m1]u64, (u64, u64, u64, u64)) =
  -- Limbs of the window and of v, zero outside them (for k < 5).
  let ul i = if i >= j - 3 then u[i] else 0
  let vl i = if i >= 0 then v[i] else 0
  let U = tabulate 9 (\t -> ul (j + k - 8 + t))
  let V = tabulate 9 (\t -> if t < 5 then vl (k - 5 + t) else 0)
  -- U' >= B^4 V' (its top five limbs >= V'): the estimate is capped.
  let capped = (loop (c, t) = (0i8, 4) while c == 0 && t >= 0 do
                  (if U[4 + t] > V[t] then 1 else if U[4 + t] < V[t] then -1 else 0, t - 1)).0 >= 0
  let (q0, q1, q2, q3) =
    if capped then (u64.highest, u64.highest, u64.highest, u64.highest)
    -- floor(U'/V') by four `step1` on the nine limbs (its digit at B^4 is
    -- 0 when not capped); V' has v's top limbs, and so the same `dinv`.
    else let (_, qq) = loop (U, qq) = (U, replicate 4 0u64) for t < 4 do
                         let (U, qh) = step1 5 dinv V U (3 - t)
                         in (U, qq with [3 - t] = qh)
         in (qq[0], qq[1], qq[2], qq[3])
  -- u[j-3 .. j+k] -= (q3 B^3 + q2 B^2 + q1 B + q0) * v, v's limbs slid
  -- through (x0 .. x3) = (v[i], v[i-1], v[i-2], v[i-3]).  The carry into
  -- the next limb (the product limb's high part plus the borrow) is below
  -- 5B, as (c, c_hi).
  let limb (c, c_hi, x1, x2, x3) (x: u64) (x0: u64) =
    let (s, h, h2) = (c, c_hi, 0u64)
                     |> \acc -> add_product acc q0 x0
                     |> \acc -> add_product acc q1 x1
                     |> \acc -> add_product acc q2 x2
                     |> \acc -> add_product acc q3 x3
    let b = u64.bool (x < s)
    let nc = h + b
    in (x - s, (nc, h2 + u64.bool (nc < b), x0, x1, x2))
  let (u, (c, c_hi, _, _, _)) =
    msub_pairs false limb (\i -> if i < k then v[i] else 0) u (j - 3) (k + 4) (0, 0, 0, 0, 0)
  in if c != 0 || c_hi != 0
     then let (q0, b0) = (q0 - 1, q0 == 0)
          let (q1, b1) = if b0 then (q1 - 1, q1 == 0) else (q1, false)
          let (q2, b2) = if b1 then (q2 - 1, q2 == 0) else (q2, false)
          let q3 = if b2 then q3 - 1 else q3
          in (add_back k v u (j - 3) (j + k), (q0, q1, q2, q3))
     else (u, (q0, q1, q2, q3))

-- | Long division of one instance, b /= 0, four quotient limbs per pass
-- over the partial remainder: (quotient, remainder).
def long_division4 [m] (a: [m]u64) (b: [m]u64) : ([m]u64, [m]u64) =
  long_division_by 4 step4 store4 a b

-- Eight quotient limbs, at positions j .. j-7, in one multiply-subtract
-- pass over the window u[j-7 .. j+k]: `step4` with an eight-limb digit,
-- estimated from the top 17 limbs U' of the window and the top nine limbs
-- V' of v (the same bounds: never too small, at most one too large, capped
-- at B^8 - 1).  The digits are returned as two quads, low one first.
local def step8 [m][m1] (k: i64) (dinv: u64) (v: [m]u64) (u: *[m1]u64) (j: i64)
    : (*[m1]u64, ((u64, u64, u64, u64), (u64, u64, u64, u64))) =
  let ul i = if i >= j - 7 then u[i] else 0
  let vl i = if i >= 0 then v[i] else 0
  let U = tabulate 17 (\t -> ul (j + k - 16 + t))
  let V = tabulate 17 (\t -> if t < 9 then vl (k - 9 + t) else 0)
  let capped = (loop (c, t) = (0i8, 8) while c == 0 && t >= 0 do
                  (if U[8 + t] > V[t] then 1 else if U[8 + t] < V[t] then -1 else 0, t - 1)).0 >= 0
  let qs =
    if capped then replicate 8 u64.highest
    else (loop (U, qq) = (U, replicate 8 0u64) for t < 8 do
            let (U, qh) = step1 9 dinv V U (7 - t)
            in (U, qq with [7 - t] = qh)).1
  let (q0, q1, q2, q3, q4, q5, q6, q7) = (qs[0], qs[1], qs[2], qs[3], qs[4], qs[5], qs[6], qs[7])
  -- v's limbs slide through (x0 .. x7) = (v[i] .. v[i-7]); the carry into
  -- the next limb is below 9B, as (c, c_hi).
  let limb (c, c_hi, x1, x2, x3, x4, x5, x6, x7) (x: u64) (x0: u64) =
    let (s, h, h2) = (c, c_hi, 0u64)
                     |> \acc -> add_product acc q0 x0
                     |> \acc -> add_product acc q1 x1
                     |> \acc -> add_product acc q2 x2
                     |> \acc -> add_product acc q3 x3
                     |> \acc -> add_product acc q4 x4
                     |> \acc -> add_product acc q5 x5
                     |> \acc -> add_product acc q6 x6
                     |> \acc -> add_product acc q7 x7
    let b = u64.bool (x < s)
    let nc = h + b
    in (x - s, (nc, h2 + u64.bool (nc < b), x0, x1, x2, x3, x4, x5, x6))
  let (u, (c, c_hi, _, _, _, _, _, _, _)) =
    msub_pairs true limb (\i -> if i < k then v[i] else 0) u (j - 7) (k + 8) (0, 0, 0, 0, 0, 0, 0, 0, 0)
  in if c != 0 || c_hi != 0
     then let (qs, _) = loop (qs, b) = (copy qs, true) for t < 8 do
                          let x = qs[t] in if b then (qs with [t] = x - 1, x == 0) else (qs, false)
          in (add_back k v u (j - 7) (j + k), ((qs[0], qs[1], qs[2], qs[3]), (qs[4], qs[5], qs[6], qs[7])))
     else (u, ((q0, q1, q2, q3), (q4, q5, q6, q7)))

-- | Long division of one instance, b /= 0, eight quotient limbs per pass
-- over the partial remainder: (quotient, remainder).
def long_division8 [m] (a: [m]u64) (b: [m]u64) : ([m]u64, [m]u64) =
  long_division_by 8 step8 store8 a b

-- Whether every limb of `y` is zero, sequentially (inside a thread).
local def is_zero [w] (y: [w]u64) : bool =
  (loop (z, i) = (true, 0) while z && i < w do (y[i] == 0, i + 1)).0

-- Batched division with one instance per thread (Knuth's Algorithm D) as
-- a map over the rows, for any width, each instance divided by `divide`.
-- Each thread reads its rows straight from the flat operands: indexing rows
-- of `a` and `b` instead makes the compiler transpose both first, for
-- coalesced reads (two passes over the operands, 550 us per 2^32-bit batch
-- on the H200).  Everything inside an instance is sequential, so that the
-- GPU version is one kernel with one thread per instance.
local def divmod_rows_with [n][m] (divide: [m]u64 -> [m]u64 -> ([m]u64, [m]u64))
                                  (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  let (q, r, z) =
    #[sequential_inner]
    map (\i -> -- Slices, not copies: the rows are read where they are.
               let x = #[unsafe] af[i*m:i*m + m] :> [m]u64
               let y = #[unsafe] bf[i*m:i*m + m] :> [m]u64
               let z = is_zero y
               let (q, r) = if z then (replicate m 0, replicate m 0) else divide x y
               in (q, r, u8.bool z))
        (iota n)
    |> unzip3
  -- Row-major results (the kernel writes them transposed): so the `if`
  -- choosing a kernel in `divmod_thread` need not copy every result.
  in (row_major q, row_major r, z)

-- `divmod_rows_with` the long division that suits the width
-- (`div_limbs_per_pass`).  One and four limbs per pass share a kernel: a
-- kernel each was slower (H200, us per 2^32-bit batch, 2048 bits: 4688
-- against 4526, 4096: 6663 against 6036).  Eight, with the most registers,
-- have their own: in the shared kernel they slowed the others (2048 bits:
-- 5067 against 4526).  That kernel has no bounds checks (`#[unsafe]`; the
-- `check_long_division8` test runs the same code with them): 16384 bits
-- 11431 to 11243 us.  Without them the shared kernel was faster at 2048
-- bits (3797 against 4005 us) but much slower wider (8192 bits: 10783
-- against 7970 us).
local def divmod_thread_rows [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  let per_pass = div_limbs_per_pass m
  in if per_pass < 8
     then divmod_rows_with (\x y -> if per_pass == 1 then long_division x y else long_division4 x y) a b
     else divmod_rows_with (\x y -> #[unsafe] long_division8 x y) a b

-- `divmod_thread_rows` at a constant width `w` (= m) as a per-thread
-- kernel (`thread_map`): each thread reads its rows straight from global
-- memory, its scratch is of constant size (thread-private arrays), and its
-- quotient and remainder go to shared memory, from where the block writes
-- its instances' rows with coalesced stores, so that no transposes
-- surround the kernel.  With `registers` (`w <= register_div_limbs`)
-- everything stays in registers.  Inlined so that `w` is a constant.  The
-- results are cut to rows of m limbs, not w: rows of w limbs coerced to m
-- afterwards, behind the `if` on `registers`, kept a row stride the
-- compiler could not prove to be m, and every division result was copied
-- once more (H200: 500 us per 2^32-bit batch at every width).
local #[inline] def divmod_thread_fixed [n][m] (registers: bool) (w: i64) (a: [n][m]u64) (b: [n][m]u64)
    : ([n][m]u64, [n][m]u64, [n]u8) =
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  let instance row =
    -- Loops, not maps: a map here becomes a parallel copy of all rows
    -- through shared memory.
    let load (xs: []u64) = loop r = replicate w 0 for i < w do r with [i] = #[unsafe] xs[row () * w + i]
    let x = load af
    let y = load bf
    let z = is_zero y
    let (q, r) = if z then (replicate w 0, replicate w 0)
                 else if registers then long_division_registers x y
                 else long_division x y
    in (q, r, u8.bool z)
  let pack results = let (q, r, z) = unzip3 results in (flatten q, flatten r, z)
  let (qs, rs, zs) = thread_map n thread_div_instances instance pack |> unzip3
  in (unblock n m qs, unblock n m rs, unblock_values n zs)

-- `divmod_thread_fixed` at the width `w` of instances of width `m = w`,
-- in registers where the backend wants it (separate kernels, so that the
-- GPU's register kernel holds nothing else).
local #[inline] def divmod_thread_at [n][m] (cpu: bool) (w: i64) (a: [n][m]u64) (b: [n][m]u64)
    : ([n][m]u64, [n][m]u64, [n]u8) =
  if w <= register_div_limbs && div_in_registers cpu
  then divmod_thread_fixed true w a b
  else divmod_thread_fixed false w a b

-- | Batched division with one instance per thread (Knuth's Algorithm D):
-- (quotients, remainders, flags b == 0).  Quadratic work per instance,
-- no passes over the batch: the choice for narrow numbers.  Widths up to
-- `fixed_div_limbs` have a fixed-width kernel each.  Not inlined: a
-- program that calls it several times (the tests) compiles those kernels
-- once.
#[noinline]
def divmod_thread [n][m] (cpu: bool) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  if m == 4 then divmod_thread_at cpu 4 a b
  else if m == 8 then divmod_thread_at cpu 8 a b
  else if fixed_div_limbs >= 12 && m == 12 then divmod_thread_at cpu 12 a b
  else if fixed_div_limbs >= 16 && m == 16 then divmod_thread_at cpu 16 a b
  else divmod_thread_rows a b

-- | Batched division through the reciprocal (Newton's iteration), with the
-- number of correction passes (the tests check its bound): (quotients,
-- remainders, flags b == 0, passes).  For b == 0 the quotient and
-- remainder are 0.
--
-- The precision P (limbs) is the least that serves every instance of the
-- batch: P >= every divisor's length k (so that the divisor normalised to P
-- limbs keeps all its bits) and P >= m - k + 1 (so that the dividend's part
-- above the divisor's bit length, a1 below, is below B^P/2).  A batch of m
-- limbs by divisors of about m/2 limbs thus works at about half the width.
def divmod_passes [n][m] (cpu: bool) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8, i64) =
  -- Bit lengths by segmented reductions (as in `cmp`), 0 for b == 0.
  let bitlen (r: [m]u64) =
    reduce i64.max 0 (map2 (\j x -> if x == 0 then 0 else 64 * (j + 1) - i64.i32 (u64.clz x)) (iota m) r)
  let lens = opaque (#[incremental_flattening(only_inner)] map bitlen b)
  let zero = map (== 0) lens
  let b = map2 (\z r -> map2 (\j x -> if z then u64.bool (j == 0) else x) (iota m) r) zero b
  let lens = map (i64.max 1) lens
  let limbs = map (\e -> (e + 63) / 64) lens
  let P = i64.max (reduce i64.max 1 limbs) (m - reduce i64.min m limbs + 1)
  -- Normalise: v = b * 2^s with the top bit of limb P-1 set, s = 64P - bits(b).
  let v = shl_each (64 * P) (map (\e -> 64 * P - e) lens) (window P 0 m b)
  -- Y ~ B^(2P)/v, clamped into [B^P, 2B^P) (the exact value lies in
  -- (B^P, 2B^P]), as z = Y - B^P in P limbs.
  let y = reciprocal cpu v
  let wp = width P
  let z = map (\r -> let top = r[P]
                     in tabulate wp (\j -> if top == 0 || j >= P then 0
                                           else if top >= 2 then u64.highest else r[j]))
              y
  -- q ~ a*2^s*Y / B^(2P) = a1 + floor(a1*z / B^P) for a1 = floor(a*2^s / B^P)
  -- = a >> bits(b) < B^P/2.
  let a1 = window wp 0 P (shr_each lens a)
  let W = width (P + 2)
  let q = (add cpu (64 * W) (window W 0 P a1) (window W P P (mul_full cpu a1 z))).0
  -- r = a - q*b, within [-b, 4b) (docs/division.md), signed in Wr limbs,
  -- then +-1 steps until 0 <= r < b.
  let kmax = reduce i64.max 1 limbs
  let Wr = width (kmax + 1)
  let bw = window Wr 0 m b
  -- r is below 4b < B^(kmax+1) in magnitude: from the low product mod
  -- B^Wr, or from the cyclic product (q of W <= 2L limbs; a folded into L
  -- limbs modulo B^L - 1).
  let L = cyc_limbs kmax
  let wq = i64.max W Wr
  let r = if cyclic_pays cpu Wr L && wq <= 2 * L
          then let ac = loop ac = window L 0 L a for c in 1..<(m + L - 1) / L do
                          add_cyclic cpu ac (window L (c * L) L a)
               in diff_by_cyclic cpu Wr ac (window cyc_low 0 cyc_low a) (window wq 0 W q) (window wq 0 Wr bw)
          else (sub cpu (64 * Wr) (window Wr 0 m a) (mul_lo cpu (64 * Wr) (window Wr 0 W q) bw)).0
  let nb = neg cpu (64 * Wr) bw
  let dirs r = map2 (\x c -> if negative x then -1 else if c >= 0 then 1 else 0i8) r (cmp r bw)
  let (q, r, _, passes) =
    loop (q, r, d, passes) = (q, r, dirs r, 0) while any (!= 0) d do
      -- q += d, r -= d*b.
      let q = (add cpu (64 * W) q (map (\s -> tabulate W (\j -> if s < 0 then u64.highest
                                                           else u64.bool (s > 0 && j == 0))) d)).0
      let step = #[incremental_flattening(only_inner)]
                 map3 (\s x y -> map2 (\u v -> if s > 0 then u else if s < 0 then v else 0) x y) d bw nb
      let r = (sub cpu (64 * Wr) r step).0
      in (q, r, dirs r, passes + 1)
  let clear [w] z (x: [w]u64) = tabulate m (\j -> if z || j >= w then 0 else x[j])
  in (map2 clear zero q, map2 clear zero r, map u8.bool zero, passes)

-- | Batched division through the reciprocal: (quotients, remainders,
-- flags b == 0).
def divmod_newton [n][m] (cpu: bool) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  let (q, r, zero, _) = divmod_passes cpu a b in (row_major q, row_major r, zero)

-- | Batched division: (quotients, remainders, flags b == 0).  By `method`
-- 0 (the library's choice), with one instance per thread for widths up to
-- `thread_div_limbs`, through the reciprocal above, and for mixed divisor
-- lengths on the GPU (`mixed_div_limbs`); `cpu` picks the CPU backends'
-- switch points.  Method 1 is always long division with one instance per
-- thread, 2 always the reciprocal (for tests and benchmarks).  For b == 0
-- the quotient and remainder are 0.
def divmod [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  -- Whether the divisors' lengths spread over more than a quarter of the
  -- longest, from `mixed_div_samples` rows spread over the batch, each
  -- length found by one thread reading down from the row's top limb.
  let spread_wide () =
    let bf = opaque (flatten b)
    let samples = i64.min n mixed_div_samples
    let lens = map (\i -> let r = i * n / samples
                          in loop l = m while l > 0 && #[unsafe] bf[r*m + l - 1] == 0 do l - 1)
                   (iota samples)
    let (kmax, kmin) = (reduce i64.max 0 lens, reduce i64.min m (map (\l -> if l == 0 then m else l) lens))
    in 4 * (kmax - kmin) > kmax
  -- The lengths are reduced only where they decide something.
  let per_thread = method == 1 || (method == 0 && m <= thread_div_limbs cpu
                                   && !(m > mixed_div_limbs cpu && spread_wide ()))
  in if per_thread then divmod_thread cpu a b else divmod_newton cpu a b

-- | `method` of `div_limb`: the library's choice by backend and batch
-- (`div_limb_loops`), a loop over the limbs per instance, or the scan.
def div_limb_auto : i64 = 0
-- | See `div_limb_auto`.
def div_limb_by_loop : i64 = 1
-- | See `div_limb_auto`.
def div_limb_by_scan : i64 = 2

-- | Batched division by one limb: (quotients, remainders, flags d == 0).
-- For d == 0 the quotient and remainder are 0.  Each instance is divided
-- by a loop over its limbs (one thread each) or, where the batch is too
-- small to fill the device, by a scan (`div_limb_one`), by `method`.
def div_limb [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) (d: [n]u64) : ([n][m]u64, [n]u64, [n]u8) =
  let zero = map (== 0) d
  let d = map (\y -> if y == 0 then 1 else y) d
  let loops = method == div_limb_by_loop || (method == div_limb_auto && div_limb_loops cpu n)
  -- No branch around `div_limb_one` inside the map: the compiler can then
  -- also flatten the batch into one segmented scan.
  let (q, r) = if loops then unzip (map2 div_limb_loop a d)
               else unzip (map2 div_limb_one a d)
  in (map2 (\z row -> map (\x -> if z then 0 else x) row) zero q,
      map2 (\z x -> if z then 0 else x) zero r,
      map u8.bool zero)
