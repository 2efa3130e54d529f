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

-- | Widest storage (limbs) for which `divmod` runs each Newton step and
-- the whole quotient/remainder/correction stage as one block-level kernel
-- (`newton_blocks`, `quotient_blocks`); wider divisions use the sequence of
-- batched kernels above.  At 512 limbs a block holds one instance of
-- W = 516 limbs (129 threads for the additions, 256 for `mul_full`) and
-- about 16 arrays of W limbs in shared memory (~66 KiB).
local def fused_div_limbs : i64 = 512

-- Thread `i`'s quad of a block-local number of `w` limbs per instance
-- (`seg = w/4` threads each), limb `t` of instance `s` given by `f s t`.
local def quad_of (seg: i64) (f: i64 -> i64 -> u64) (i: i64) : quad =
  let s = quot32 i seg
  let t = 4 * rem32 i seg
  in (f s t, f s (t+1), f s (t+2), f s (t+3))

-- Block-local flat limbs, `w` per instance, limb `t` of instance `s` given
-- by `f s t`; `opaque` keeps them materialised in shared memory.
local def block_limbs (ipb: i64) (w: i64) (f: i64 -> i64 -> u64) : [ipb*w]u64 =
  opaque (tabulate (ipb*w) (\j -> f (quot32 j w) (rem32 j w)))

-- Whether instance `s` of a block's quads (`seg` per instance) is negative.
local def quads_negative [g] (seg: i64) (xs: [g]quad) (s: i64) : bool =
  (#[unsafe] xs[s*seg + seg - 1]).3 >> 63 == 1

local def plain (_: i64) (x: quad) (_: bool) : quad = x

-- | `newton` as one block-level kernel: every intermediate stays in the
-- block, and all products are `mul_lo` at w = width(p+3) (the correction
-- product (l+2 limbs by h+1 limbs) is exact there).  Computes the same
-- values as `newton`.
local def newton_blocks [n][m][k] (v: [n][m]u64) (p: i64) (h: i64) (y: [n][k]u64) : [n][]u64 =
  let l = p - h
  let w = width (p + 3)
  let seg = w / 4
  let ipb = instances_per_block 128 w
  let g = ipb * seg
  let vf = opaque (flatten v)
  let yf = opaque (flatten y)
  let ws =
    #[incremental_flattening(only_intra)]
    map (\blk ->
           let inst s = blk * ipb + s
           let vget s j = #[unsafe] if inst s < n then vf[inst s * m + j] else 0
           let yget s j = #[unsafe] if inst s < n && j < k then yf[inst s * k + j] else 0
           -- A_p (the leading p limbs of v) and Y_h (h+1 limbs).
           let As = block_limbs ipb w (\s t -> if t < p then vget s (m - p + t) else 0)
           let Ys = block_limbs ipb w (\s t -> if t < h + 1 then yget s t else 0)
           let P = mul_lo_quads_with w g plain As Ys
           -- D = B^(p+h) - P mod B^w, |D| < B^(p+1).
           let D = add_quads_with g seg carry_one plain
                                  (quad_of seg (\_ t -> u64.bool (t == p + h)))
                                  (\i -> not_quad (#[unsafe] P[i]))
           let negs = tabulate ipb (quads_negative seg D)
           let isneg i = #[unsafe] negs[quot32 i seg]
           -- The magnitude |D| = ~D + 1 for D < 0.
           let mag = add_quads_with g seg carry_none plain
                                    (\i -> let x = #[unsafe] D[i] in if isneg i then not_quad x else x)
                                    (\i -> if isneg i && rem32 i seg == 0 then (1, 0, 0, 0) else zero_quad)
           let magf = store_quads mag :> [ipb*w]u64
           -- floor(|D| / B^(h-1)) < B^(l+2); the product with y is below B^(p+3).
           let Ms = block_limbs ipb w (\s t -> if t < l + 2 then #[unsafe] magf[s*w + h - 1 + t] else 0)
           let c = store_quads (mul_lo_quads_with w g plain Ms Ys) :> [ipb*w]u64
           -- y*B^l + floor(y*|D| / B^(2h)), or its one's complement for D < 0.
           let shifted s t = if t >= l && t < l + h + 1 then #[unsafe] Ys[s*w + t - l] else 0
           let corr s t = let x = if t < l + 1 then #[unsafe] c[s*w + h + 1 + t] else 0
                          in if #[unsafe] negs[s] then !x else x
           in store_quads (add_quads_with g seg carry_none plain (quad_of seg shifted) (quad_of seg corr))
              :> [ipb*w]u64)
        (iota (num_blocks n ipb))
  in flatten ws |> take (n*w) |> unflatten

-- | Correction steps run inside `quotient_blocks`: the bound of
-- docs/division.md allows at most 3 moves, so the fourth step only
-- confirms (an instance that still moved there is finished by the host
-- loop of `divmod_passes`).
local def fused_steps : i64 = 4

-- | The quotient stage as one block-level kernel, for m <= fused_div_limbs
-- (m a multiple of 4): a1 = a >> lens, q = a1 + floor(a1*z / B^m),
-- r = a - q*b in W = m+4 limbs, then `fused_steps` correction steps
-- (d = -1 if r < 0, +1 if r >= b, else 0; r -= d*b; the d are summed and
-- added to q once).  Returns q and r (W limbs, r signed) and per instance
-- the number of steps that moved (> 3 only if the bound failed; then the
-- instance may be unfinished).
local def quotient_blocks [n][m][k] (a: [n][m]u64) (b: [n][m]u64) (lens: [n]i64) (y: [n][k]u64)
    : ([n][]u64, [n][]u64, [n]i64) =
  let W = width (m + 2)
  let seg = W / 4
  let ipb = instances_per_block 128 W
  let g = ipb * seg
  let gm = ipb * (m / 4)
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  let yf = opaque (flatten y)
  let (qs, rs, ms) =
    #[incremental_flattening(only_intra)]
    map (\blk ->
           let inst s = blk * ipb + s
           let ok s = inst s < n
           let aget s j = #[unsafe] if ok s && j >= 0 && j < m then af[inst s * m + j] else 0
           let bget s j = #[unsafe] if ok s && j < m then bf[inst s * m + j] else 0
           let yget s j = #[unsafe] if ok s && j < k then yf[inst s * k + j] else 0
           let len s = #[unsafe] if ok s then lens[inst s] else 0
           -- a1 = floor(a*2^s / B^m) = a >> bits(b).
           let a1 = block_limbs ipb m (\s t -> let sh = len s
                                              let q = sh / 64
                                              let r = u64.i64 (sh % 64)
                                              let lo = aget s (t + q) >> r
                                              in if r == 0 then lo else lo | (aget s (t + q + 1) << (64 - r)))
           -- z = Y - B^m with Y clamped into [B^m, 2B^m).
           let zs = block_limbs ipb m (\s t -> let top = yget s m
                                              in if top == 0 then 0 else if top >= 2 then u64.highest
                                                 else yget s t)
           let prod = store_quads (mul_full_quads m gm a1 zs) :> [ipb*(2*m)]u64
           let q0 = add_quads_with g seg carry_none plain
                                   (quad_of seg (\s t -> if t < m then #[unsafe] a1[s*m + t] else 0))
                                   (quad_of seg (\s t -> if t < m then #[unsafe] prod[s*(2*m) + m + t] else 0))
           let bs = block_limbs ipb W (\s t -> bget s t)
           let qb = mul_lo_quads_with W g plain (store_quads q0 :> [ipb*W]u64) bs
           let r0 = add_quads_with g seg carry_one plain
                                   (quad_of seg aget) (\i -> not_quad (#[unsafe] qb[i]))
           let step (r: [g]quad, dsum: [ipb]i64, moves: [ipb]i64) =
             let t = add_quads_with g seg carry_one plain (\i -> #[unsafe] r[i])
                                    (\i -> not_quad (quad_at bs i))
             let u = add_quads_with g seg carry_none plain (\i -> #[unsafe] r[i]) (quad_at bs)
             let d = tabulate ipb (\s -> if quads_negative seg r s then -1
                                         else if quads_negative seg t s then 0 else 1i64)
             let r' = tabulate g (\i -> let di = #[unsafe] d[quot32 i seg]
                                        in #[unsafe] if di > 0 then t[i] else if di < 0 then u[i] else r[i])
             in (r', map2 (+) dsum d, map2 (\c x -> c + i64.bool (x != 0)) moves d)
           let st = (r0, replicate ipb 0, replicate ipb 0)
           let st = step st
           let st = step st
           let st = step st
           let (r, dsum, moves) = step st
           let ext s = if #[unsafe] dsum[s] < 0 then u64.highest else 0
           let q = add_quads_with g seg carry_none plain (\i -> #[unsafe] q0[i])
                                  (quad_of seg (\s t -> if t == 0 then u64.i64 (#[unsafe] dsum[s]) else ext s))
           in (store_quads q :> [ipb*W]u64, store_quads r :> [ipb*W]u64, moves))
        (iota (num_blocks n ipb))
    |> unzip3
  in (flatten qs |> take (n*W) |> unflatten, flatten rs |> take (n*W) |> unflatten, flatten ms |> take n)

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
        in (if width (p + 3) <= fused_div_limbs + 4 && m % 4 == 0
            then newton_blocks v p h y else newton v p h y, p)).0

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
  let y = reciprocal v
  let W = width (m + 2)
  let dirs (bw: [n][W]u64) (r: [n][W]u64) =
    map2 (\x c -> if negative x then -1 else if c >= 0 then 1 else 0i8) r (cmp r bw)
  -- The +-1 passes: while some instance has r < 0 or r >= b, per
  -- instance d = -1, 0 or +1, q += d, r -= d*b.
  let correct (q: [n][W]u64) (r: [n][W]u64) : ([n][W]u64, [n][W]u64, i64) =
    let bw = window W 0 m b
    let nb = neg (64 * W) bw
    let (q, r, _, passes) =
      loop (q, r, d, passes) = (q, r, dirs bw r, 0) while any (!= 0) d do
        let q = (add (64 * W) q (map (\s -> tabulate W (\j -> if s < 0 then u64.highest
                                                             else u64.bool (s > 0 && j == 0))) d)).0
        let r = (sub (64 * W) r (map3 (\s x y -> if s > 0 then x else if s < 0 then y else replicate W 0) d bw nb)).0
        in (q, r, dirs bw r, passes + 1)
    in (q, r, passes)
  let (q, r, passes) =
    if m <= fused_div_limbs && m % 4 == 0 then
      -- One kernel for the estimate, r and the correction steps; the host
      -- loop only runs if some instance moved in the last step (never,
      -- by the bound).
      let (q, r, moves) = quotient_blocks a b lens y
      let q = q :> [n][W]u64
      let r = r :> [n][W]u64
      let most = reduce i64.max 0 moves
      in if most < fused_steps then (q, r, most)
         else let (q, r, more) = correct q r in (q, r, most + more)
    else
      -- Y ~ B^(2m)/v, clamped into [B^m, 2B^m) (the exact value lies in
      -- (B^m, 2B^m]), as z = Y - B^m in m limbs.
      let z = map (\r -> let top = r[m]
                         in tabulate m (\j -> if top == 0 then 0 else if top >= 2 then u64.highest else r[j]))
                  y
      -- q ~ a*2^s*Y / B^(2m) = a1 + floor(a1*z / B^m) for a1 = floor(a*2^s / B^m).
      let a1 = shr_each lens a
      let q = (add (64 * W) (window W 0 m a1) (window W m m (mul_full a1 z))).0
      -- r = a - q*b, signed in W limbs, then +-1 steps until 0 <= r < b.
      let r = (sub (64 * W) (window W 0 m a) (mul_lo (64 * W) q (window W 0 m b))).0
      in correct q r
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
