-- Tests of modular.fut: small cases with known results, and self-checks
-- against products and long divisions of the sequential references.

import "limbs"
import "div"
import "modular"
import "testing"

-- 3^5 mod 7 = 5, 2^10 mod 1000 = 24 (even), x^0 mod 1 = 0, zero modulus.
-- ==
-- entry: test_powmod_small
-- input { [[3u64], [2u64], [5u64], [9u64]] [[5u64], [10u64], [0u64], [2u64]] [[7u64], [1000u64], [1u64], [0u64]] }
-- output { [[5u64], [24u64], [0u64], [0u64]] [0u8, 0u8, 0u8, 1u8] }
entry test_powmod_small [n][k][m][ke][me] (a: [n][m]u64) (e: [ke][me]u64) (mods: [k][m]u64) =
  powmod true mont_auto false a e mods

-- 3^-1 mod 7 = 5, 3^-1 mod 8 = 3, 2 mod 4 has none, 0 mod 1 gives 0.
-- ==
-- entry: test_modinv_small
-- input { [[3u64], [3u64], [2u64], [0u64], [5u64]] [[7u64], [8u64], [4u64], [1u64], [0u64]] }
-- output { [[5u64], [3u64], [0u64], [0u64], [0u64]] [0u8, 0u8, 0u8, 0u8, 1u8] [0u8, 0u8, 1u8, 0u8, 0u8] }
entry test_modinv_small [n][k][m] (a: [n][m]u64) (mods: [k][m]u64) = modinv a mods

-- ==
-- entry: test_gcd_small
-- input { [[12u64, 0u64], [0u64, 0u64], [0u64, 1u64], [7u64, 0u64]] [[18u64, 0u64], [0u64, 0u64], [0u64, 2u64], [0u64, 0u64]] }
-- output { [[6u64, 0u64], [0u64, 0u64], [0u64, 1u64], [7u64, 0u64]] }
entry test_gcd_small [n][m] (a: [n][m]u64) (b: [n][m]u64) = gcd a b

-- ==
-- entry: test_neg_inv64
-- input { [1u64, 3u64, 18446744073709551615u64, 12345678901u64] } output { true }
entry test_neg_inv64 [n] (xs: [n]u64) : bool = all (\x -> x * neg_inv64 x == u64.highest) xs

-- `xs` with a size of its own: the compiler copies a function for each
-- pattern of equal sizes among the arguments of its calls (`k = n`, ...),
-- and each copy of `powmod`, `mod_mul` and `modinv` holds kernels of
-- several constant widths (minutes of compile time apiece).  With the
-- moduli and exponents `apart`, one copy of each serves every test.
local def apart [k] 't (xs: [k]t) : []t = filter (\_ -> true) xs

-- x*y mod p by the references.
local def ref_mulmod [m] (p: [m]u64) (x: [m]u64) (y: [m]u64) : [m]u64 =
  take m (long_division (ref_mul x y) (tabulate (m * 2) (\i -> if i < m then p[i] else 0))).1

local def ref_mod [m] (p: [m]u64) (x: [m]u64) : [m]u64 = (long_division x p).1

-- Moduli from random limbs, odd and even, 0 replaced by 1.
local def moduli (seed: u64) (n: i64) (m: i64) (bits: i64) : [n][m]u64 =
  map2 (\i (p: [m]u64) : [m]u64 ->
          let p = if i % 2 == 0 then copy p with [0] = p[0] | 1 else p
          in if all (== 0) p then tabulate m (\j -> u64.bool (j == 0)) else p)
       (iota n) (gen seed n m bits)

-- Self-checking: (seed, n, m, bits) with per-instance moduli, and one
-- shared (odd) modulus.
-- ==
-- entry: test_mod_mul test_mod_add_sub test_powmod test_modinv
-- input { 1u64 40i64 1i64 64i64 }   output { true }
-- input { 2u64 40i64 2i64 100i64 }  output { true }
-- input { 3u64 30i64 4i64 256i64 }  output { true }
-- input { 4u64 20i64 5i64 320i64 }  output { true }
-- input { 5u64 8i64 16i64 1024i64 } output { true }

entry test_mod_mul (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let p = moduli (seed + 200) n m bits
  let ref ps = map3 (\x y p -> ref_mulmod p (ref_mod p x) (ref_mod p y)) a b ps
  in all_eq (mod_mul true mont_auto false a b (apart p)).0 (ref p)
     && all_eq (mod_mul true mont_auto false a b (apart p[:1])).0 (ref (replicate n p[0]))

entry test_mod_add_sub (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let p = moduli (seed + 200) n m bits
  -- (a + b) - b == a mod p.
  in all_eq (mod_sub (mod_add a b p).0 b p).0 (map2 ref_mod p a)

entry test_powmod (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let p = moduli (seed + 200) n m bits
  -- Exponents of up to 12 bits, checked by repeated products.
  let es = map (\i -> [mix (seed + u64.i64 i) % 4096]) (iota n)
  let ref = map3 (\x e p -> let x = ref_mod p x
                            in loop r = ref_mod p (tabulate m (\j -> u64.bool (j == 0)))
                               for _i < i64.u64 e[0] do ref_mulmod p r x) a es p
  in all_eq (powmod true mont_auto false a (apart es) (apart p)).0 ref

entry test_modinv (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let p = moduli (seed + 200) n m bits
  let (inv, _, none) = modinv a (apart p)
  let g = gcd (map2 ref_mod p a) p
  let unit = tabulate m (\j -> u64.bool (j == 0))
  in and (map5 (\x y p none g -> let one_mod_p = ref_mod p unit
                                 in if none == 1 then !(and (map2 (==) g unit)) && all (== 0) y
                                    else and (map2 (==) (ref_mulmod p (ref_mod p x) y) one_mod_p))
               a inv p none g)

-- gcd by Euclid's algorithm with long division: the reference of the
-- division steps (gcd.fut).
local def ref_gcd [m] (a: [m]u64) (b: [m]u64) : [m]u64 =
  (loop (a, b) = (a, b) while !(all (== 0) b) do (b, ref_mod b a)).0

-- The gcd against Euclid's: random and adversarial limbs (`gen`), pairs
-- with a common factor of up to half the width (products of half-width
-- values), a value and itself, and a value and zero.
-- ==
-- entry: test_gcd
-- input { 21u64 40i64 1i64 64i64 }    output { true }
-- input { 22u64 40i64 3i64 150i64 }   output { true }
-- input { 23u64 30i64 4i64 256i64 }   output { true }
-- input { 24u64 12i64 17i64 1088i64 } output { true }
-- input { 25u64 4i64 64i64 4096i64 }  output { true }

entry test_gcd (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let half (s: u64) = gen s n m (i64.max 1 (bits / 2))
  let times = map2 (\(x: [m]u64) (c: [m]u64) -> take m (ref_mul x c))
  let c = half (seed + 500)
  let (a2, b2) = (times (half (seed + 300)) c, times (half (seed + 400)) c)
  let zero = replicate n (replicate m 0)
  let check [k] (x: [k][m]u64) (y: [k][m]u64) = all_eq (gcd x y) (map2 ref_gcd x y)
  in check a b && check a2 b2 && check a a && check a zero && check zero b

-- Both routes of the Montgomery operations (one instance per thread and
-- batch-level products) against the references: per-instance moduli (odd
-- and even), one shared odd modulus, 2^(64m) - 1, and exponents of 12 bits
-- per instance; to_mont then from_mont gives x mod p.
-- ==
-- entry: test_mont_routes
-- input { 11u64 24i64 4i64 256i64 }   output { true }
-- input { 12u64 9i64 8i64 448i64 }    output { true }
-- input { 13u64 6i64 12i64 768i64 }   output { true }

entry test_mont_routes (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let a = gen seed n m bits
  let b = gen (seed + 100) n m bits
  let p = moduli (seed + 200) n m bits
  let ones = replicate m u64.highest
  let odd = [copy p[0] with [0] = p[0, 0] | 1]
  let es = map (\i -> [mix (seed + u64.i64 i) % 4096]) (iota n)
  let ref_pow (x: [m]u64) (e: u64) (p: [m]u64) =
    let x = ref_mod p x
    in loop r = ref_mod p (tabulate m (\j -> u64.bool (j == 0))) for _i < i64.u64 e do ref_mulmod p r x
  let row [k] (ps: [k][m]u64) i = if k == 1 then ps[0] else ps[i]
  let check method =
    -- `one_odd` (the modulus is not read on the host) where given, and
    -- the device's check with one odd modulus too (`[ones]`).
    let mm [k] (one_odd: bool) (ps: [k][m]u64) =
      all_eq (mod_mul true method one_odd a b (apart ps)).0
             (tabulate n (\i -> let p = row ps i in ref_mulmod p (ref_mod p a[i]) (ref_mod p b[i])))
    let pw [k] (one_odd: bool) (ps: [k][m]u64) =
      all_eq (powmod true method one_odd a (apart es) (apart ps)).0 (tabulate n (\i -> ref_pow a[i] es[i, 0] (row ps i)))
    let forms = from_mont_batch true method (to_mont_batch true method a (apart odd)) (apart odd)
    in mm false p && mm true odd && mm false [ones] && pw false p && pw true odd && pw false [ones]
       && all_eq forms (map (ref_mod odd[0]) a)
  in check mont_thread && check mont_batch
