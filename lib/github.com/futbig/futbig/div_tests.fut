-- | Tests of division (div.fut).  The self-checking entries shape random
-- limbs into the operand patterns that stress division and verify
-- a = q*b + r, r < b with an independent sequential multiplication.

import "div"
import "limbs"

-- ==
-- entry: test_divmod_newton test_divmod_thread
-- input { [[10u64, 0u64, 0u64, 0u64], [0u64, 0u64, 1u64, 0u64], [7u64, 0u64, 0u64, 0u64], [5u64, 6u64, 7u64, 8u64]]
--         [[3u64, 0u64, 0u64, 0u64], [1u64, 1u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64], [5u64, 6u64, 7u64, 8u64]] }
-- output { [[3u64, 0u64, 0u64, 0u64], [18446744073709551615u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64], [1u64, 0u64, 0u64, 0u64]]
--          [[1u64, 0u64, 0u64, 0u64], [1u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64]]
--          [0u8, 0u8, 1u8, 0u8] }
-- input { empty([0][4]u64) empty([0][4]u64) }
-- output { empty([0][4]u64) empty([0][4]u64) empty([0]u8) }

-- | `divmod` through the reciprocal.
entry test_divmod_newton [n][m] (a: [n][m]u64) (b: [n][m]u64) = divmod_newton false a b

-- | `divmod` with one instance per thread, as on the GPU.
entry test_divmod_thread [n][m] (a: [n][m]u64) (b: [n][m]u64) = divmod_thread false a b

-- ==
-- entry: test_div_limb_loop test_div_limb_scan
-- input { [[5u64, 0u64, 0u64, 0u64], [0u64, 0u64, 1u64, 0u64], [9u64, 9u64, 9u64, 9u64]] [2u64, 3u64, 0u64] }
-- output { [[2u64, 0u64, 0u64, 0u64], [6148914691236517205u64, 6148914691236517205u64, 0u64, 0u64], [0u64, 0u64, 0u64, 0u64]]
--          [1u64, 1u64, 0u64] [0u8, 0u8, 1u8] }
-- input { empty([0][4]u64) empty([0]u64) }
-- output { empty([0][4]u64) empty([0]u64) empty([0]u8) }

-- | `div_limb` by a loop over each instance's limbs.
entry test_div_limb_loop [n][m] (a: [n][m]u64) (d: [n]u64) = div_limb false div_limb_by_loop a d

-- | `div_limb` by a scan over all limbs.
entry test_div_limb_scan [n][m] (a: [n][m]u64) (d: [n]u64) = div_limb false div_limb_by_scan a d

-- | Keep the low `len` limbs of x.
local def keep [m] (len: i64) (x: [m]u64) : [m]u64 =
  map2 (\i y -> if i < len then y else 0) (iota m) x

-- | Operand pair number i shaped from random limbs x, y: divisor lengths
-- from one limb to full width and the patterns b > a, b == a, b == 1,
-- b a power of B, b of one limb, b of two limbs, a == 0, all-ones
-- operands, b == 0, and leading limbs 1 and B-1 of b.
def shape [m] (i: i64) (x: [m]u64) (y: [m]u64) : ([m]u64, [m]u64) =
  let la = 1 + (i64.u64 (x[0] >> 1)) % m
  let lb = 1 + (i64.u64 (y[m - 1] >> 1)) % m
  let a = keep la x
  let b = keep lb y
  let ones len = keep len (replicate m u64.highest)
  let power = map (\j -> u64.bool (j == lb - 1)) (iota m)
  in match i % 14
     case 0 -> (x, b)
     case 1 -> (keep (lb - 1) x, b)
     case 2 -> (b, b)
     case 3 -> (a, map (\j -> u64.bool (j == 0)) (iota m))
     case 4 -> (x, power)
     case 5 -> (x, keep 1 y)
     case 6 -> (a, keep 2 y)
     case 7 -> (replicate m 0, b)
     case 8 -> (ones m, ones lb)
     case 9 -> (a, replicate m 0)
     case 10 -> (x, map2 (\j z -> if j == lb - 1 then 1 else z) (iota m) b)
     case 11 -> (ones la, map2 (\j z -> if j == lb - 1 then u64.highest else z) (iota m) b)
     case 12 -> (x, map2 (\j z -> if j == lb - 1 then 1 else if j == 0 then z else 0) (iota m) b)
     case _ -> (a, b)

-- | q*b + r in 2m+1 limbs, by sequential schoolbook multiplication.
local def mul_add [m] (q: [m]u64) (b: [m]u64) (r: [m]u64) : []u64 =
  let acc = map (\j -> if j < m then r[j] else 0) (iota (2 * m + 1))
  in loop acc for i < m do
       let (acc, c) =
         loop (acc, c) = (acc, 0u64) for j < m do
           let lo = q[i] * b[j]
           let hi = u64.mul_hi q[i] b[j]
           let s = acc[i + j] + lo
           let s' = s + c
           in (acc with [i + j] = s', hi + u64.bool (s < lo) + u64.bool (s' < c))
       let (acc, _) =
         loop (acc, c) for j in (i + m)..<(2 * m + 1) do
           let s = acc[j] + c
           in (acc with [j] = s, u64.bool (s < c))
       in acc

-- | x < y, limb by limb from the top.
local def less [m] (x: [m]u64) (y: [m]u64) : bool =
  let (res, _) = loop (res, decided) = (false, false) for j < m do
                   let k = m - 1 - j
                   in if decided || x[k] == y[k] then (res, decided) else (x[k] < y[k], true)
  in res

-- | Whether a quotient and remainder of divmod are exact for a, b.  Every
-- array check is computed before the scalar choice: behind a short-circuit
-- `&&` or an `if`, the compiler ran the checks of the instances one after
-- another on the host, one GPU launch per limb step (a 1024-limb check
-- then took minutes on cuda).
def valid [m] (a: [m]u64) (b: [m]u64) (q: [m]u64) (r: [m]u64) (zero: u8) : bool =
  let b_zero = all (== 0) b
  let q_zero = all (== 0) q
  let r_zero = all (== 0) r
  let below = less r b
  let exact = and (map2 (==) (mul_add q b r) (map (\j -> if j < m then a[j] else 0) (iota (2 * m + 1))))
  in if b_zero then zero == 1 && q_zero && r_zero else zero == 0 && below && exact

-- | Whether div_limb is exact on instance i (divisor: limb 0 of the
-- shaped divisor, and 1, B-1 and powers of two for some instances).
local def valid_limb [m] (method: i64) (i: i64) (x: [m]u64) (y: [m]u64) : bool =
  let (a, b) = shape i x y
  let d = match i % 5 case 0 -> 1 case 1 -> u64.highest case 2 -> 1 << (y[1] % 64) case _ -> b[0]
  let (qs, rs, zs) = div_limb false method [a] [d]
  let (q, r, zero) = (qs[0], rs[0], zs[0])
  let dd = map (\j -> if j == 0 then d else 0) (iota m)
  let rr = map (\j -> if j == 0 then r else 0) (iota m)
  -- As in `valid`: the array checks first.
  let q_zero = all (== 0) q
  let exact = and (map2 (==) (mul_add q dd rr) (map (\j -> if j < m then a[j] else 0) (iota (2 * m + 1))))
  in if d == 0 then zero == 1 && q_zero && r == 0 else zero == 0 && r < d && exact

-- ==
-- entry: check_divmod_thread check_long_division check_long_division4 check_long_division8 check_div_limb
-- random input { [700][4]u64 [700][4]u64 }
-- output { true }
-- random input { [700][8]u64 [700][8]u64 }
-- output { true }
-- random input { [300][12]u64 [300][12]u64 }
-- output { true }
-- random input { [300][16]u64 [300][16]u64 }
-- output { true }
-- random input { [300][20]u64 [300][20]u64 }
-- output { true }
-- random input { [300][32]u64 [300][32]u64 }
-- output { true }
-- random input { [300][64]u64 [300][64]u64 }
-- output { true }
-- random input { [200][68]u64 [200][68]u64 }
-- output { true }
-- random input { [60][256]u64 [60][256]u64 }
-- output { true }
-- random input { [14][1024]u64 [14][1024]u64 }
-- output { true }

-- ==
-- entry: check_long_division_registers
-- random input { [700][4]u64 [700][4]u64 }
-- output { true }
-- random input { [700][8]u64 [700][8]u64 }
-- output { true }

-- ==
-- entry: check_divmod
-- random input { [700][4]u64 [700][4]u64 }
-- output { true }
-- random input { [700][8]u64 [700][8]u64 }
-- output { true }
-- random input { [300][12]u64 [300][12]u64 }
-- output { true }
-- random input { [300][16]u64 [300][16]u64 }
-- output { true }
-- random input { [300][20]u64 [300][20]u64 }
-- output { true }
-- random input { [300][32]u64 [300][32]u64 }
-- output { true }
-- random input { [300][64]u64 [300][64]u64 }
-- output { true }
-- random input { [200][68]u64 [200][68]u64 }
-- output { true }
-- random input { [60][256]u64 [60][256]u64 }
-- output { true }
-- random input { [14][1024]u64 [14][1024]u64 }
-- output { true }

-- ==
-- entry: check_divmod_narrow
-- random input { 2i64 [500][4]u64 [500][4]u64 }
-- output { true }
-- random input { 4i64 [500][8]u64 [500][8]u64 }
-- output { true }
-- random input { 6i64 [300][8]u64 [300][8]u64 }
-- output { true }
-- random input { 9i64 [300][16]u64 [300][16]u64 }
-- output { true }
-- random input { 17i64 [200][33]u64 [200][33]u64 }
-- output { true }
-- random input { 32i64 [200][64]u64 [200][64]u64 }
-- output { true }
-- random input { 40i64 [100][68]u64 [100][68]u64 }
-- output { true }
-- random input { 128i64 [30][256]u64 [30][256]u64 }
-- output { true }
-- random input { 1026i64 [4][2048]u64 [4][2048]u64 }
-- output { true }
-- random input { 2048i64 [3][4096]u64 [3][4096]u64 }
-- output { true }

-- | Bound on the correction passes of `divmod_passes` (docs/division.md).
local def max_passes : i64 = 3

-- | All shaped instances of a random batch divide exactly, within
-- `max_passes` correction passes.  With the CPU's multiplication ladder
-- (`cpu` true), whose NTT takes over at fewer limbs than the GPU's, so
-- that the widths here reach the reciprocal through both the classical
-- products and the NTT (`check_divmod_narrow` takes the GPU's).
entry check_divmod [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  let (a, b) = unzip (map3 shape (iota n) x y)
  let (q, r, zero, passes) = divmod_passes true a b
  in passes <= max_passes && and (map5 valid a b q r zero)

-- | As `check_divmod`, for the one-instance-per-thread version of the
-- GPU (`cpu` false) or of a CPU (div_cpu_tests.fut).
def check_thread [n][m] (cpu: bool) (x: [n][m]u64) (y: [n][m]u64) : bool =
  let (a, b) = unzip (map3 shape (iota n) x y)
  let (q, r, zero) = divmod_thread cpu a b
  in and (map5 valid a b q r zero)

-- | Per thread, as on the GPU.
entry check_divmod_thread [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool = check_thread false x y

-- | As `check_divmod`, for a long division `divide` of one instance by a
-- nonzero divisor.
def check_long [n][m] (divide: [m]u64 -> [m]u64 -> ([m]u64, [m]u64))
                      (x: [n][m]u64) (y: [n][m]u64) : bool =
  let (a, b) = unzip (map3 shape (iota n) x y)
  let zero = map (all (== 0)) b
  -- Zero divisors divide by 1 and give zeros: no branch around `divide`
  -- (see `valid`).
  let one = map (\j -> u64.bool (j == 0)) (iota m)
  let (q, r) = unzip (map3 (\z u v -> let (q, r) = divide u (if z then one else v)
                                      in (map (\x -> if z then 0 else x) q, map (\x -> if z then 0 else x) r))
                           zero a b)
  in and (map5 valid a b q r (map u8.bool zero))

-- | Long division, one quotient limb per pass.
entry check_long_division [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  check_long long_division x y

-- | Long division, four quotient limbs per pass.
entry check_long_division4 [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  check_long long_division4 x y

-- | Long division, eight quotient limbs per pass (with bounds checks: the
-- library runs it without).
entry check_long_division8 [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  check_long long_division8 x y

-- | Long division with constant indices, at the constant widths the
-- library runs it at (4 and 8 limbs, `register_div_limbs`), so that, as
-- there, everything is in registers.  div_cpu_tests.fut checks the same
-- arithmetic at other widths, which are then not constants: on the cuda
-- backend that version gives wrong results (H200, 2026-11-26).  Other
-- widths fail the size coercion to 8.
entry check_long_division_registers [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  let at (w: i64) (u: [m]u64) (v: [m]u64) : ([m]u64, [m]u64) =
    let (q, r) = long_division_registers (u :> [w]u64) (v :> [w]u64)
    in (q :> [m]u64, r :> [m]u64)
  in if m == 4 then check_long (at 4) x y else check_long (at 8) x y

-- | Divisors of `len` or `len-1` limbs (top limb nonzero) for a whole
-- batch, so that the reciprocal works below the full width; a few
-- instances are all-ones, powers of B, zero dividends or below b.
local def narrow [m] (len: i64) (i: i64) (x: [m]u64) (y: [m]u64) : ([m]u64, [m]u64) =
  let lb = i64.max 1 (len - i % 2)
  let b = map2 (\j z -> if j < lb - 1 then z else if j == lb - 1 then z | 1 else 0) (iota m) y
  in match i % 7
     case 0 -> (replicate m u64.highest, keep lb (replicate m u64.highest))
     case 1 -> (x, map (\j -> u64.bool (j == lb - 1)) (iota m))
     case 2 -> (replicate m 0, b)
     case 3 -> (keep (lb - 1) x, b)
     case _ -> (x, b)

-- | Batches whose divisors all have about `len` limbs divide exactly,
-- within `max_passes` correction passes.  With the GPU's switches: from
-- 1026 limbs the Newton steps and q*b take cyclic products (1026 is the
-- widest precision their L = 1024 serves; 2048 limbs by 4096 is the
-- benchmark's 2^18-bit shape).
entry check_divmod_narrow [n][m] (len: i64) (x: [n][m]u64) (y: [n][m]u64) : bool =
  let (a, b) = unzip (map3 (narrow len) (iota n) x y)
  let (q, r, zero, passes) = divmod_passes false a b
  in passes <= max_passes && and (map5 valid a b q r zero)

-- | All shaped instances of a random batch divide exactly by one limb, by
-- both methods.
entry check_div_limb [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  and (map3 (valid_limb div_limb_by_loop) (iota n) x y) && and (map3 (valid_limb div_limb_by_scan) (iota n) x y)

-- | (hi, mid, lo) = x * (d1*B + d0) for x < B, three limbs (exact: x*d < B^3).
local def mul_3 (x: u64) (d1: u64) (d0: u64) : (u64, u64, u64) =
  let lo = x * d0
  let m0 = u64.mul_hi x d0
  let m1 = x * d1
  let mid = m0 + m1
  in (u64.mul_hi x d1 + u64.bool (mid < m0), mid, lo)

-- | (a2, a1, a0) <= (b2, b1, b0), three-limb numbers.
local def le3 ((a2, a1, a0): (u64, u64, u64)) ((b2, b1, b0): (u64, u64, u64)) : bool =
  a2 < b2 || (a2 == b2 && (a1 < b1 || (a1 == b1 && a0 <= b0)))

-- | floor(U / D) for a quotient below B, bit by bit: the largest q with
-- q*D <= U.  Slow and obviously right, the reference for `div3by2`.
local def ref_div3by2 (u2: u64) (u1: u64) (u0: u64) (d1: u64) (d0: u64) : u64 =
  loop q = 0u64 for t < 64 do
    let c = q | (1 << u64.i64 (63 - t))
    in if le3 (mul_3 c d1 d0) (u2, u1, u0) then c else q

-- | A normalised divisor (d1, d0) and a dividend (u2, u1, u0) with
-- (u2, u1) < (d1, d0), from random limbs, in the patterns that stress the
-- corrections: d0 = 0 or B-1, d1 = B/2 or B-1, u2 = d1 with u1 just below
-- d0, u2 = d1 - 1 with u1 = B-1, all-ones remainders.
local def shape3 (i: i64) (x: [5]u64) : (u64, u64, u64, u64, u64) =
  let d1 = match i % 5 case 0 -> 1 << 63 case 1 -> u64.highest case _ -> x[0] | (1 << 63)
  let d0 = match i % 3 case 0 -> 0 case 1 -> u64.highest case _ -> x[1]
  let (u2, u1) =
    match i % 4
    case 0 -> if d0 == 0 then (d1 - 1, x[2]) else (d1, d0 - 1 - x[2] % d0)
    case 1 -> (d1 - 1, u64.highest)
    case 2 -> (x[3] % d1, x[2])
    case _ -> (if d0 == 0 then d1 - 1 else d1, if d0 == 0 then u64.highest else d0 - 1)
  in (u2, u1, if i % 7 == 0 then u64.highest else x[4], d1, d0)

-- | `div3by2` (with `reciprocal_3by2`) against the bitwise reference, and
-- the reciprocal v against its definition: S = (B + v) * D <= B^3 - 1 <
-- S + D, i.e. S fits three limbs and S + D does not.
entry check_div3by2 [n] (x: [n][5]u64) : bool =
  and (map2 (\i r ->
               let (u2, u1, u0, d1, d0) = shape3 i r
               let v = reciprocal_3by2 d1 d0
               -- S = v*D + (d1, d0, 0), four limbs (s3 .. s0).
               let (p2, p1, p0) = mul_3 v d1 d0
               let (s1, c1) = adc p1 d0 0
               let (s2, s3) = adc p2 d1 c1
               -- S + D, its top limb.
               let (_, e0) = adc p0 d0 0
               let (_, e1) = adc s1 d1 e0
               let (_, e2) = adc s2 0 e1
               in s3 == 0 && e2 == 1
                  && div3by2 v u2 u1 u0 d1 d0 == ref_div3by2 u2 u1 u0 d1 d0)
            (iota n) x)

-- ==
-- entry: check_div3by2
-- random input { [20000][5]u64 } output { true }

-- | `reciprocal_word` against its definition, (B + v)*d <= B^2 - 1 <
-- (B + v + 1)*d, on divisors from random limbs in the patterns at the ends
-- of its range: B/2 and B-1 exactly, B/2 plus a few bits, B-1 minus a few
-- bits, and random normalised limbs.
entry check_reciprocal_word [n] (x: [n]u64) : bool =
  and (map2 (\i r ->
               let few = (r >> 1) >> (r % 64)
               let d = match i % 6
                       case 0 -> 1 << 63
                       case 1 -> u64.highest
                       case 2 -> (1 << 63) | few
                       case 3 -> u64.highest - few
                       case _ -> r | (1 << 63)
               let v = reciprocal_word d
               -- P = (B + v)*d as (p1, p0); it must fit two limbs, and P + d must not.
               let p0 = v * d
               let (p1, c) = adc (u64.mul_hi v d) d 0
               let (_, e0) = adc p0 d 0
               let (_, e1) = adc p1 0 e0
               in c == 0 && e1 == 1)
            (iota n) x)

-- ==
-- entry: check_reciprocal_word
-- random input { [100000]u64 } output { true }
