-- Tests of ntt.fut: the transforms against a naive DFT and a schoolbook
-- convolution, and the NTT products against the classical ones of mul.fut.

import "limbs"
import "mul"
import "ntt"
import "testing"
import "thresholds"

-- Hand-checkable: (2^64-1)^2 = 2^128 - 2^65 + 1, and 3*5.
-- ==
-- entry: test_mul_full_ntt_small
-- input { [[18446744073709551615u64, 0u64, 0u64, 0u64], [3u64, 0u64, 0u64, 0u64]]
--         [[18446744073709551615u64, 0u64, 0u64, 0u64], [5u64, 0u64, 0u64, 0u64]] }
-- output { [[1u64, 18446744073709551614u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64],
--           [15u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64]] }
-- input { empty([0][4]u64) empty([0][4]u64) }
-- output { empty([0][8]u64) }
entry test_mul_full_ntt_small [n][m] (a: [n][m]u64) (b: [n][m]u64) = mul_full_ntt a b

-- TRANSFORMS.  (blog, prime, rows, length): blog is the log2 of the
-- longest transform a block takes (`ntt_block_log`: 14; a product's block
-- of 2^13 or 2^14 points runs 16 values a thread; smaller values send
-- shorter transforms through the four-step path).

-- Pseudo-random u32 rows, many of them at or above the primes.
local def rows (seed: u64) (k: i64) (l: i64) : [k][l]u32 =
  tabulate_2d k l (\r j -> let h = mix (seed ^ mix (u64.i64 (r * 1000003 + j)))
                           in if h % 7 == 0 then u32.highest - u32.u64 (h >> 40) else u32.u64 h)

local def all_eq32 [k][l] (x: [k][l]u32) (y: [k][l]u32) : bool =
  and (map2 (\u v -> and (map2 (==) u v)) x y)

local def mulmod (p: u32) (x: u32) (y: u32) : u32 =
  u32.u64 ((u64.u32 x * u64.u32 y) % u64.u32 p)

local def powmod (p: u32) (x: u32) (e: i64) : u32 =
  (loop (r, x, e) = (1u32, x, e) while e > 0 do
     ((if e & 1 == 1 then mulmod p r x else r), mulmod p x x, e >> 1)).0

-- The naive DFT in bit-reversed order, with the root of unity derived
-- independently of the tables: the primitive root g of p raised to
-- (p-1)/l (g = 3, 3, 26).
local def naive_forward [k][l] (i: i64) (xs: [k][l]u32) : [k][l]u32 =
  let p = ntt_prime i
  let ell = i64.i32 (i64.ctz l)
  let g = if i == 2 then 26 else 3
  let w = powmod p g (i64.u32 ((p - 1) / u32.i64 l))
  let rev (q: i64) = loop r = 0 for b < ell do r | (((q >> b) & 1) << (ell - 1 - b))
  in map (\x -> tabulate l (\q -> let wq = powmod p w (rev q)
                                  in (loop (s, wj) = (0u32, 1u32) for j < l do
                                        ((s + mulmod p (x[j] % p) wj) % p, mulmod p wj wq)).0))
         xs

-- Whether the forward transform is the naive DFT and the inverse undoes it.
-- ==
-- entry: test_transform_naive
-- input { 13i64 0i64 3i64 8i64 }    output { true }
-- input { 13i64 1i64 2i64 16i64 }   output { true }
-- input { 13i64 2i64 3i64 32i64 }   output { true }
-- input { 13i64 0i64 5i64 64i64 }   output { true }
-- input { 13i64 1i64 1i64 128i64 }  output { true }
-- input { 13i64 2i64 2i64 512i64 }  output { true }
-- input { 3i64 0i64 3i64 128i64 }   output { true }
-- input { 4i64 1i64 2i64 256i64 }   output { true }
-- input { 5i64 2i64 1i64 1024i64 }  output { true }
entry test_transform_naive (blog: i64) (i: i64) (k: i64) (l: i64) : bool =
  let xs = rows (u64.i64 (l + i)) k l
  let f = ntt_forward_with blog i xs
  in all_eq32 f (naive_forward i xs)
     && all_eq32 (ntt_inverse_with blog i f) (map (map (% ntt_prime i)) xs)

-- Whether inverse(forward(x)) = x mod p, and whether the block and the
-- four-step paths agree (at 2^14 points, blog 14's block against the
-- library's four-step path), at lengths up to 2^20.
-- ==
-- entry: test_transform_identity
-- input { 14i64 0i64 2i64 16384i64 }   output { true }
-- input { 14i64 2i64 3i64 8192i64 }    output { true }
-- input { 14i64 1i64 1i64 32768i64 }   output { true }
-- input { 13i64 0i64 300i64 16i64 }    output { true }
-- input { 13i64 1i64 3i64 4096i64 }    output { true }
-- input { 13i64 2i64 2i64 8192i64 }    output { true }
-- input { 13i64 0i64 1i64 16384i64 }   output { true }
-- input { 13i64 1i64 2i64 65536i64 }   output { true }
-- input { 13i64 2i64 1i64 1048576i64 } output { true }
-- input { 6i64 0i64 3i64 8192i64 }     output { true }
-- input { 10i64 2i64 2i64 4096i64 }    output { true }
entry test_transform_identity (blog: i64) (i: i64) (k: i64) (l: i64) : bool =
  let xs = rows (u64.i64 (3 * l + i)) k l
  let f = ntt_forward_with blog i xs
  in all_eq32 (ntt_inverse_with blog i f) (map (map (% ntt_prime i)) xs)
     && (l > 16384 || all_eq32 f (ntt_forward i xs))

-- Whether the transforms compute cyclic convolutions: inverse(forward(x)
-- * forward(y)) against the schoolbook convolution modulo p.
-- ==
-- entry: test_convolution
-- input { 13i64 0i64 2i64 8i64 }    output { true }
-- input { 14i64 1i64 1i64 16384i64 } output { true }
-- input { 13i64 1i64 3i64 64i64 }   output { true }
-- input { 13i64 2i64 1i64 1024i64 } output { true }
-- input { 4i64 0i64 2i64 256i64 }   output { true }
-- input { 3i64 2i64 1i64 512i64 }   output { true }
entry test_convolution (blog: i64) (i: i64) (k: i64) (l: i64) : bool =
  let p = ntt_prime i
  let xs = rows (u64.i64 (5 * l + i)) k l
  let ys = rows (u64.i64 (7 * l + i)) k l
  let fx = ntt_forward_with blog i xs
  let fy = ntt_forward_with blog i ys
  let conv = ntt_inverse_with blog i (ntt_pointwise i fx fy)
  let naive = map2 (\x y -> tabulate l (\c -> (loop s = 0u32 for j < l do
                                                 (s + mulmod p (x[j] % p) (y[(c - j + l) % l] % p)) % p)))
                   xs ys
  in all_eq32 conv naive

-- PRODUCTS.

-- | The operands of a product test: kind 0 the mixture of `gen` (uniform
-- limbs, limbs in {0, 1, max-1, max}, all ones, sparse), 1 all ones, 2
-- zeros times uniform limbs, 3 powers of two; below 2^bits.
def operands (kind: i64) (seed: u64) (n: i64) (m: i64) (bits: i64) : ([n][m]u64, [n][m]u64) =
  let power (s: u64) = tabulate_2d n m (\i j -> let e = i64.u64 (mix (s + u64.i64 i) % u64.i64 bits)
                                               in if j == e / 64 then 1 << u64.i64 (e % 64) else 0)
  in match kind
     case 0 -> (gen seed n m bits, gen (seed + 100) n m bits)
     case 1 -> (tabulate_2d n m (\_ j -> mask_limb bits j u64.highest),
                tabulate_2d n m (\_ j -> mask_limb bits j u64.highest))
     case 2 -> (replicate n (replicate m 0), gen seed n m bits)
     case _ -> (power seed, power (seed + 7))

-- | Whether the NTT products (full, low, squares) with blocks of at most
-- 2^blog points equal the classical ones.
def check_products [n][m] (blog: i64) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : bool =
  let ab = mul_full_by false mul_classical a b
  let aa = mul_full_by false mul_classical a a
  let lo (full: [n][m*2]u64) = map (\r -> mask_row bits (take m r)) full
  in all_eq (mul_full_ntt_with blog false a b) ab
     && all_eq (mul_full_ntt_with blog true a a) aa
     && all_eq (mul_lo_ntt_with blog false bits a b) (lo ab)
     && all_eq (mul_lo_ntt_with blog true bits a a) (lo aa)

-- (kind, seed, n, m, bits of the operands and of the low products).
-- Widths 4..256 run one block per product (several per block up to 256
-- limbs); 2044 and 2048 limbs are the widest block products (transforms
-- of 2^13 points), 2052 limbs wrap into them (`wrap_log`: 15
-- coefficients past 2^13); 4096 limbs run as two rows of 2^13 points,
-- 4100 limbs wrap into them; 4116 limbs (79 coefficients past 2^14, more
-- than wrap) and 16384 run four-step, with 2^15 and 2^16 points (see
-- test_products_blog for blocks of 2^14 points).
-- ==
-- entry: test_products
-- input { 0i64 1u64 0i64 4i64 256i64 }        output { true }
-- input { 0i64 2u64 1i64 4i64 1i64 }          output { true }
-- input { 0i64 3u64 3i64 4i64 200i64 }        output { true }
-- input { 0i64 4u64 300i64 4i64 256i64 }      output { true }
-- input { 0i64 5u64 130i64 8i64 512i64 }      output { true }
-- input { 0i64 6u64 2i64 8i64 449i64 }        output { true }
-- input { 0i64 7u64 70i64 12i64 768i64 }      output { true }
-- input { 0i64 8u64 17i64 64i64 4096i64 }     output { true }
-- input { 0i64 9u64 9i64 252i64 16000i64 }    output { true }
-- input { 0i64 10u64 9i64 256i64 16384i64 }   output { true }
-- input { 0i64 11u64 5i64 2044i64 130816i64 } output { true }
-- input { 0i64 12u64 5i64 2048i64 131000i64 } output { true }
-- input { 0i64 13u64 5i64 2052i64 131328i64 } output { true }
-- input { 1i64 14u64 3i64 4i64 256i64 }       output { true }
-- input { 1i64 15u64 2i64 12i64 700i64 }      output { true }
-- input { 1i64 16u64 1i64 256i64 16384i64 }   output { true }
-- input { 1i64 17u64 2i64 2048i64 131072i64 } output { true }
-- input { 1i64 18u64 2i64 2052i64 131328i64 } output { true }
-- input { 2i64 19u64 3i64 64i64 4096i64 }     output { true }
-- input { 2i64 20u64 2i64 2052i64 131328i64 } output { true }
-- input { 3i64 21u64 40i64 8i64 512i64 }      output { true }
-- input { 3i64 22u64 7i64 252i64 16128i64 }   output { true }
-- input { 3i64 23u64 3i64 2052i64 131328i64 } output { true }
-- input { 0i64 27u64 2i64 4096i64 262144i64 } output { true }
-- input { 0i64 28u64 2i64 4100i64 262400i64 } output { true }
-- input { 1i64 29u64 2i64 4096i64 262144i64 } output { true }
-- input { 1i64 30u64 1i64 4100i64 262400i64 } output { true }
-- input { 1i64 26u64 2i64 4116i64 263400i64 } output { true }
-- input { 0i64 24u64 2i64 16384i64 1048576i64 } output { true }
-- input { 1i64 25u64 1i64 16384i64 1048500i64 } output { true }
entry test_products (kind: i64) (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands kind seed n m bits
  in check_products ntt_block_log bits a b

-- Products with blocks of at most 2^blog points: the four-step path at
-- small widths (blog < 13); two rows of 2^9 points wrapping (blog 9, 260
-- limbs: 15 coefficients past 2^10, so the top forward stage reads the
-- digits past half the transform) and one block wrapping (blog 10); and
-- with blocks of 2^14 points (blog 14, 16 values per thread: the squares
-- of the library from 2052 limbs) the widths just outside theirs (2048
-- limbs: one block of 2^13 points; 4100 limbs: wrapping into 2^14) and
-- inside them, one limb step above 2^13-point blocks, below, at and at
-- the widest width, in every operand kind but zeros: (blog, kind, seed,
-- n, m, bits).
-- ==
-- entry: test_products_blog
-- input { 14i64 0i64 37u64 2i64 2048i64 131072i64 } output { true }
-- input { 14i64 0i64 43u64 2i64 4100i64 262400i64 } output { true }
-- input { 14i64 0i64 38u64 3i64 2052i64 131328i64 } output { true }
-- input { 14i64 0i64 39u64 2i64 4092i64 261800i64 } output { true }
-- input { 14i64 0i64 40u64 2i64 4096i64 262144i64 } output { true }
-- input { 14i64 1i64 41u64 2i64 4096i64 262144i64 } output { true }
-- input { 14i64 3i64 42u64 2i64 4096i64 262100i64 } output { true }
-- input { 3i64 0i64 31u64 3i64 32i64 2048i64 }   output { true }
-- input { 4i64 0i64 32u64 2i64 64i64 4000i64 }   output { true }
-- input { 5i64 1i64 33u64 3i64 64i64 4096i64 }   output { true }
-- input { 6i64 0i64 34u64 5i64 252i64 16128i64 } output { true }
-- input { 6i64 3i64 35u64 3i64 256i64 16384i64 } output { true }
-- input { 7i64 1i64 36u64 2i64 1024i64 65536i64 } output { true }
-- input { 9i64 1i64 44u64 2i64 260i64 16640i64 } output { true }
-- input { 9i64 0i64 45u64 3i64 260i64 16600i64 } output { true }
-- input { 10i64 1i64 46u64 2i64 260i64 16640i64 } output { true }
entry test_products_blog (blog: i64) (kind: i64) (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands kind seed n m bits
  in check_products blog bits a b

-- Cyclic products (`mul_cyclic_ntt`): a*b modulo B^L - 1 against the
-- classical full product folded into L limbs, both with B^L - 1 read as 0:
-- operands narrower than L, folded (2L limbs: the digits past the
-- transform added onto the ones below), all-ones (the largest folded
-- coefficients), in one block and as two rows (blog 9 at L = 512, blog 12
-- at L = 4096, the division's 2^18-bit widths with blocks of 2^11), and the
-- widest L of the GPU's blocks: (blog, kind, seed, n, m, L).
-- ==
-- entry: test_cyclic
-- input { 13i64 0i64 51u64 5i64 4i64 8i64 }        output { true }
-- input { 13i64 0i64 52u64 5i64 16i64 8i64 }       output { true }
-- input { 13i64 1i64 53u64 2i64 16i64 8i64 }       output { true }
-- input { 13i64 0i64 54u64 3i64 260i64 256i64 }    output { true }
-- input { 13i64 1i64 55u64 2i64 512i64 256i64 }    output { true }
-- input { 13i64 3i64 56u64 3i64 300i64 256i64 }    output { true }
-- input { 9i64 0i64 57u64 3i64 1000i64 512i64 }    output { true }
-- input { 9i64 1i64 58u64 2i64 1024i64 512i64 }    output { true }
-- input { 13i64 0i64 59u64 2i64 2052i64 2048i64 }  output { true }
-- input { 11i64 0i64 60u64 2i64 2052i64 2048i64 }  output { true }
-- input { 12i64 1i64 61u64 1i64 4100i64 4096i64 }  output { true }
-- input { 13i64 0i64 62u64 1i64 8196i64 8192i64 }  output { true }
entry test_cyclic (blog: i64) (kind: i64) (seed: u64) (n: i64) (m: i64) (L: i64) : bool =
  let (a, b) = operands kind seed n m (64 * m)
  let fold (x: [m*2]u64) : [L]u64 =
    let sum = loop acc = replicate L 0 for c < (2 * m + L - 1) / L do
                let (s, co) = ref_add 0 acc (tabulate L (\j -> if c * L + j < 2 * m then x[c * L + j] else 0))
                in (ref_add co s (replicate L 0)).0
    in if all (== u64.highest) sum then replicate L 0 else sum
  let canon (x: [L]u64) = if all (== u64.highest) x then replicate L 0 else x
  let full = mul_full_by false mul_classical a b
  in all_eq (map canon (mul_cyclic_ntt_with blog L a b)) (map fold full)

-- The widest width served in batches, 2^22 bits (65536 limbs): uniform
-- operands against the classical product (one instance: it takes about 20
-- seconds on one core), all-ones operands against (2^k-1)^2 = 2^2k -
-- 2^(k+1) + 1, where the middle coefficient D*(2^32-1)^2 (D = 2^17 digits)
-- is the largest any product of this width has; squares and low halves of
-- both.
-- ==
-- entry: test_widest
-- input { 65536i64 } output { true }
entry test_widest (m: i64) : bool =
  let k = 64 * m
  let bits = k - 7
  let rnd (s: u64) = tabulate m (\j -> mix (s ^ mix (u64.i64 j)))
  let ones = replicate m u64.highest
  let a = [rnd 1, ones]
  let b = [rnd 2, ones]
  let ones_sq = tabulate (m * 2) (\j -> if j == 0 then 1 else if j < m then 0
                                        else if j == m then u64.highest - 1 else u64.highest)
  let ab = mul_full_ntt a b
  let aa = sqr_full_ntt a
  let lo (r: [m*2]u64) = mask_row bits (take m r)
  in and (map2 (==) ab[0] (mul_full_by false mul_classical [a[0]] [b[0]])[0])
     && and (map2 (==) ab[1] ones_sq)
     && and (map2 (==) aa[1] ones_sq)
     && and (map2 (==) aa[0] (mul_full_ntt [a[0]] [a[0]])[0])
     && all_eq (mul_lo_ntt bits a b) (map lo ab)
     && all_eq (sqr_lo_ntt bits a) (map lo aa)
