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

import "add"
import "mul"
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

-- | Limbs `lo .. lo+len-1` of every row of `x` as `w` limbs (zero outside
-- the row); `lo < 0` shifts the row up by `-lo` limbs.
local def window [n][k] (w: i64) (lo: i64) (len: i64) (x: [n][k]u64) : [n][w]u64 =
  map (\r -> tabulate w (\j -> let i = lo + j
                               in if j < len && i >= 0 && i < k then #[unsafe] r[i] else 0))
      x

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

-- | One Newton step for the reciprocal of the normalised divisors `v`
-- (B^m/2 <= v < B^m).  From `y` ~ B^(2h) / A_h (h+1 limbs), A_h the
-- leading h limbs of v, to ~ B^(2p) / A_p (p+1 limbs):
-- y*B^l + y*D / B^(2h), l = p-h, D = B^(p+h) - A_p*y.  D is small, so it
-- comes from the low product A_p*y mod B^w; only its limbs from h-1 up
-- enter the correction, which is truncated (towards -infinity for D < 0).
local def newton [n][m][k] (v: [n][m]u64) (p: i64) (h: i64) (y: [n][k]u64) : [n][]u64 =
  let l = p - h
  let w = width (p + 2)
  let P = mul_lo (64 * w) (window w (m - p) p v) (window w 0 (h + 1) y)
  -- D = B^(p+h) - P mod B^w, as |D| < B^(p+1) <= B^(w-1).
  let D = (sub (64 * w) (replicate n (tabulate w (\j -> u64.bool (j == p + h)))) P).0
  let dpos = map (\x -> !(negative x)) D
  let mag = map3 (\pos x z -> if pos then x else z) dpos D (neg (64 * w) D)
  let w2 = width (h + 2)
  -- floor(|D| / B^(h-1)) < B^(l+2), and y < B^(h+1).
  let c = mul_full (window w2 (h - 1) (l + 2) mag) (window w2 0 (h + 1) y)
  -- The correction's magnitude, floor(y*|D| / B^(2h)) < B^(l+1).
  let corr = window w (h + 1) (l + 1) c
  let signed = map2 (\pos r -> if pos then r else map (\x -> !x) r) dpos corr
  in (add (64 * w) (window w (-l) (p + 1) y) signed).0

-- | Approximate reciprocals of normalised divisors (B^m/2 <= v < B^m):
-- Y ~ B^(2m) / v within a few units, as m+1 limbs in `width (m+2)`.
local def reciprocal [n][m] (v: [n][m]u64) : [n][]u64 =
  -- Base case, one limb: floor((B^2-1) / v1) = B + floor((B^2-1 - B*v1) / v1),
  -- a two-by-one division with B-1-v1 < v1.
  let y1 = map (\r -> let t = r[m - 1]
                      in [(divlu (u64.highest - t) u64.highest t).0, 1, 0, 0])
               v
  in (loop (y: [n][]u64, h) = (y1, 1) for t in 1...depth m do
        let p = precision m t
        in (newton v p h y, p)).0

-- | Batched division with the number of correction passes (the tests
-- check its bound): (quotients, remainders, flags b == 0, passes).
-- For b == 0 the quotient and remainder are 0.
def divmod_passes [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8, i64) =
  let zero = map (all (== 0)) b
  let b = map2 (\z r -> if z then map (\j -> u64.bool (j == 0)) (iota m) else r) zero b
  -- Normalise: v = b * 2^s with the top bit of limb m-1 set, s = 64m - bits(b).
  let bitlen (r: [m]u64) =
    reduce i64.max 0 (map2 (\j x -> if x == 0 then 0 else 64 * (j + 1) - i64.i32 (u64.clz x)) (iota m) r)
  let lens = map bitlen b
  let v = shl_each (64 * m) (map (\e -> 64 * m - e) lens) b
  -- Y ~ B^(2m)/v, clamped into [B^m, 2B^m) (the exact value lies in
  -- (B^m, 2B^m]), as z = Y - B^m in m limbs.
  let y = reciprocal v
  let z = map (\r -> let top = r[m]
                     in tabulate m (\j -> if top == 0 then 0 else if top >= 2 then u64.highest else r[j]))
              y
  -- q ~ a*2^s*Y / B^(2m) = a1 + floor(a1*z / B^m) for a1 = floor(a*2^s / B^m).
  let a1 = shr_each lens a
  let W = width (m + 2)
  let q = (add (64 * W) (window W 0 m a1) (window W m m (mul_full a1 z))).0
  -- r = a - q*b, signed in W limbs, then +-1 steps until 0 <= r < b.
  let bw = window W 0 m b
  let r = (sub (64 * W) (window W 0 m a) (mul_lo (64 * W) q bw)).0
  let nb = neg (64 * W) bw
  let dirs r = map2 (\x c -> if negative x then -1 else if c >= 0 then 1 else 0i8) r (cmp r bw)
  let (q, r, _, passes) =
    loop (q, r, d, passes) = (q, r, dirs r, 0) while any (!= 0) d do
      -- q += d, r -= d*b.
      let q = (add (64 * W) q (map (\s -> tabulate W (\j -> if s < 0 then u64.highest
                                                           else u64.bool (s > 0 && j == 0))) d)).0
      let r = (sub (64 * W) r (map3 (\s x y -> if s > 0 then x else if s < 0 then y else replicate W 0) d bw nb)).0
      in (q, r, dirs r, passes + 1)
  let clear z (x: [W]u64) = tabulate m (\j -> if z then 0 else x[j])
  in (map2 clear zero q, map2 clear zero r, map u8.bool zero, passes)

-- | Batched division: (quotients, remainders, flags b == 0).
-- For b == 0 the quotient and remainder are 0.
def divmod [n][m] (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n][m]u64, [n]u8) =
  let (q, r, zero, _) = divmod_passes a b in (q, r, zero)

-- | Batched division by one limb: (quotients, remainders, flags d == 0).
-- For d == 0 the quotient and remainder are 0.
def div_limb [n][m] (a: [n][m]u64) (d: [n]u64) : ([n][m]u64, [n]u64, [n]u8) =
  -- No branch around `div_limb_one`: the compiler can then also flatten
  -- the batch into one segmented scan (for widths too large for a block).
  let zero = map (== 0) d
  let (q, r) = unzip (map2 (\x y -> div_limb_one x (if y == 0 then 1 else y)) a d)
  in (map2 (\z row -> map (\x -> if z then 0 else x) row) zero q,
      map2 (\z x -> if z then 0 else x) zero r,
      map u8.bool zero)
