-- | Exact multiplication of batches of big integers by number-theoretic
-- transforms (NTT): the operands are cut into 32-bit digits, transformed
-- modulo three primes, multiplied pointwise, transformed back, recombined
-- by the Chinese remainder theorem, and the carries propagated.
--
-- DESIGN (docs/multiplication.md, section "NTT", has the same with the
-- measurements).
--
-- Primes.  p0 = 119*2^23+1, p1 = 107*2^23+1, p2 = 105*2^23+1, all below
-- 2^30 with 2-adicity 23: transforms of every length up to 2^23, enough
-- for products of 2^27-bit operands (2^22 digits each).  Below 2^30 so that
-- the lazy butterflies of Harvey ("Faster arithmetic for number-theoretic
-- transforms", 2014) can keep values in [0, 2p) and [0, 4p) within a u32.
-- Three 31-bit primes would give 3 bits more headroom, which no served width
-- needs; one 64-bit prime (2^64-2^32+1) needs 16-bit digits, so transforms
-- twice as long, with 64-bit products that cost about four 32-bit ones on a
-- GPU: about twice the work of three 32-bit transforms of half the length.
--
-- The bound.  Operands of m limbs have D = 2m digits below 2^32, so every
-- coefficient of the convolution is a sum of at most D products below
-- (2^32-1)^2: c < D * 2^64.  At the widest width served, m = 2^21 limbs
-- (2^27 bits, D = 2^22), c < 2^86, while M = p0*p1*p2 > 2^89.35: the
-- residues determine every coefficient exactly.  (2^22-bit operands, the
-- widest batch width tested, have c < 2^81.)  All-ones operands reach the
-- largest coefficients, D*(2^32-1)^2 for the middle one; the tests use them.
-- A wrapping transform (`wrap_log`, at most 2^15 points) gives c_j +
-- c_(j+L) for its lowest coefficients, below 2 * 2^14 * 2^64 = 2^79.
--
-- Arithmetic.  u32 only, with `u32.mul_hi` (one IMAD.HI on CUDA).
-- Butterflies multiply by precomputed twiddles with Shoup's method (three
-- 32-bit multiplications, result in [0, 2p) for any u32 input, the twiddle
-- w stored with floor(w * 2^32 / p) in one u64); the pointwise products are
-- Montgomery products (four multiplications), with the 1/L of the inverse
-- transform and the Montgomery factor folded into one Shoup multiplication.
-- Forward (decimation in frequency, natural order in, bit-reversed order
-- out) keeps values in [0, 2p); inverse (decimation in time, bit-reversed
-- order in, natural order out) in [0, 4p); no other reductions.
--
-- Radix and layout.  A block of T threads transforms 8T elements (one or
-- several instances): each thread holds 8 elements in registers and applies
-- three radix-2 stages to them (a radix-8 pass) between two exchanges
-- through shared memory.  Each thread writes its 8 values and an unused
-- slot to slots 9t..9t+8 of the pass buffer, and the next pass gathers;
-- the odd stride keeps both free of bank conflicts (at most 2-way).  The
-- forward passes run in constant geometry: every pass but the first reads
-- and writes the same positions (`fwd_next`), so their addresses are
-- computed once; the inverse passes run in place, element q after a pass
-- whose registers span bits b..b+2 of q at slot 9*t + k, where k = bits
-- b..b+2 of q and t = q without them (`in_place`).  The twiddle
-- table of a prime holds w_{2h}^e at index h + e for every power of two h,
-- so every transform length shares it.  The two operands of a product run
-- side by side, two lanes of 8 values a thread and one exchange for both
-- (17 slots a thread).  A block of 16T elements runs on T threads of 16
-- values in two lanes of 8 (`block_transform_virt`): lane s of thread t
-- does the work of thread t + s*T of a block of 2T, its buffers in rows
-- (slot k*2T + t) as they take a slot less a thread.
--
-- Paths.  Up to L = 2^ntt_block_log transform points (thresholds.fut:
-- 14), the whole product runs in one block kernel (`conv_rows`: blocks
-- of 256 threads of 8 values up to 2^11 points, 512 at 2^12, 512 of 16
-- values at 2^13 and 1024 of 16 at 2^14): both forward transforms, the pointwise product and the
-- inverse transform for each prime (with 16 values a thread, the first
-- operand's transform in a kernel before), then the CRT and the carry
-- scan (`add_quads_with`; a scan per row for the full products of 2^14
-- points, 8192 limbs, wider than a block's scan, and for two rows).
-- Products with a few coefficients past a power of two (at most 64, at
-- most 1/64 of it) take the transform of that length, the coefficients
-- past its end computed classically and taken off the ones they wrap
-- onto (`wrap_log`).  Transforms of twice a block's length run as two
-- rows of it (`mul_ntt`): the first forward stage and the last inverse
-- stage, on the top bit, are done where the digits are read and where
-- the CRT reads the residues.
-- Cyclic products (`mul_cyclic_ntt`, a*b mod B^L - 1) skip the zero
-- padding: one transform of 2L points for operands of up to 2L limbs (the
-- digits past the transform folded onto the ones below as they are
-- loaded; as two rows, operands wider than L limbs are reduced modulo B^L
-- - 1 first), the carry out of the top wrapping to the bottom; the
-- division takes them where it knows a product up to a small difference.
-- Longer transforms run four-step, rows of at most 2^13 points: L = L1*L2,
-- the stages on the top bits of the index as transforms of length L1 over
-- columns (blocks of c adjacent columns), the rest as transforms of length
-- L2 over rows, each in block kernels, through global memory (five kernels
-- per product; see `mul_four_step`).

import "limbs"
import "blocks"
import "add"
import "thresholds"

-- Block-local index arithmetic is 32-bit (64-bit shifts and masks cost two
-- instructions each on a GPU).
local type idx = i32

-- | The NTT primes, `i` in 0..2.
def ntt_prime (i: i64) : u32 =
  if i == 0 then 998244353 else if i == 1 then 897581057 else 880803841

-- A primitive 2^23-th root of unity modulo `ntt_prime i` (3^119, 3^107,
-- 26^105; 3, 3 and 26 are the least primitive roots), and its inverse.
local def ntt_root (i: i64) (inverse: bool) : u32 =
  if i == 0 then (if inverse then 469870224 else 15311432)
  else if i == 1 then (if inverse then 354917575 else 872686320)
  else (if inverse then 109748732 else 273508579)

-- | Log2 of the longest transform the primes allow.
def ntt_max_log : i64 = 23

-- | Widest operands (limbs) the NTT multiplies: their product has 4m
-- digits, which a transform of 2^ntt_max_log points holds.
def ntt_max_limbs : i64 = 1 << (ntt_max_log - 2)

-- Modular arithmetic for tables and constants (not in the inner loops).
local def mulmod (p: u32) (a: u32) (b: u32) : u32 =
  u32.u64 ((u64.u32 a * u64.u32 b) % u64.u32 p)

local def powmod (p: u32) (a: u32) (e: i64) : u32 =
  let (r, _, _) = loop (r, a, e) = (1u32, a, e) while e > 0 do
                    ((if e & 1 == 1 then mulmod p r a else r), mulmod p a a, e >> 1)
  in r

-- A twiddle for Shoup multiplication: `w < p` in the low half,
-- floor(w * 2^32 / p) in the high half.
local def shoup_pack (p: u32) (w: u32) : u64 =
  u64.u32 w | (((u64.u32 w << 32) / u64.u32 p) << 32)

-- 1 as a Shoup pair for all three primes (floor(2^32 / p) = 4): `shoup p
-- x shoup_one` reduces any u32 to [0, 2p).
local def shoup_one : u64 = 0x4_0000_0001

-- `x * w mod p` in [0, 2p), for any `x` (Harvey's lemma: the quotient
-- estimate from the high half is at most one short).
local def shoup (p: u32) (x: u32) (w: u64) : u32 =
  x * u32.u64 w - u32.mul_hi x (u32.u64 (w >> 32)) * p

-- [0, 4p) -> [0, 2p) and [0, 2p) -> [0, p): below the bound, `x - c`
-- wraps around to a larger u32.
local def red2 (p: u32) (x: u32) : u32 = u32.min x (x - 2*p)
local def red1 (p: u32) (x: u32) : u32 = u32.min x (x - p)

-- Montgomery product `a * b * 2^-32 mod p` in [0, 2p) for `a, b < 2p`.
-- -p^-1 mod 2^32 is p - 2 for these primes: p = 1 + k*2^23, so
-- p * (1 - k*2^23) = 1 - k^2*2^46 = 1 mod 2^32.
local def mont (p: u32) (a: u32) (b: u32) : u32 =
  let lo = a * b
  let m = lo * (p - 2)
  in u32.mul_hi a b + u32.mul_hi m p + u32.bool (lo != 0)

-- Forward butterfly on [0, 2p): (u + v, (u - v) * w).
local def dif_bfly (p: u32) (w: u64) (u: u32) (v: u32) : (u32, u32) =
  (red2 p (u + v), shoup p (u - v + 2*p) w)

-- Inverse butterfly on [0, 4p): (u + v * w, u - v * w).
local def dit_bfly (p: u32) (w: u64) (u: u32) (v: u32) : (u32, u32) =
  let u = red2 p u
  let t = shoup p v w
  in (u + t, u - t + 2*p)

-- | The twiddle tables for transforms of length up to `lt` (a power of two,
-- at most 2^23), one per prime and direction, `lt` entries each, flat:
-- table `2i` (prime i, forward) holds w_{2h}^e at `2i*lt + h + e` for every
-- power of two `h < lt` and `e < h`, where w_{2h} is the root of unity of
-- order 2h; table `2i+1` the inverse roots; entry 0 of each holds 1.
def ntt_tables (lt: i64) : [6*lt]u64 =
  let ell = i64.i32 (i64.ctz lt)
  let half_log = i64.max 0 (ell - 1)
  let s = (half_log + 1) / 2
  let (nlo, nhi) = (1 << s, 1 << (half_log - s))
  -- Table t's root of order lt, w, and its powers w^x for x < lt/2 as
  -- w^(x_hi * 2^s) * w^x_lo: the small tables of all six in one kernel and
  -- the tables in another (built table by table and concatenated, they
  -- took 18 kernels and 6 copies, 0.15-0.27 ms a product on the H200).
  let small = tabulate_2d 6 (nlo + nhi) (\t x ->
                let p = ntt_prime (t / 2)
                let w = loop w = ntt_root (t / 2) (t % 2 == 1) for _i < ntt_max_log - ell do mulmod p w w
                in powmod p w (if x < nlo then x else (x - nlo) << s))
  in tabulate (6 * lt) (\k ->
       let (t, j) = (k / lt, k % lt)
       let p = ntt_prime (t / 2)
       in if j == 0 then shoup_pack p 1
          else let h = 63 - i64.i32 (i64.clz j)
               let x = (j - (1 << h)) << (ell - 1 - h)
               in shoup_pack p (mulmod p (#[unsafe] small[t, nlo + (x >> s)]) (#[unsafe] small[t, x & (nlo - 1)])))

-- | A transform direction: `#fwd` (decimation in frequency) or `#inv`
-- (decimation in time, without the 1/L).
type ntt_dir = #fwd | #inv

-- Element j = g*2^lc + u + 2^e2 * n1 of a transform of 2^e1 rows and
-- 2^e2 columns, for the element q = u + 2^lc * n1 of the block of group g
-- of 2^lc adjacent columns (`col_stages`).
local def col_glob (g: idx) (lc: idx) (e2: idx) (q: idx) : idx =
  (g << lc) | (q & ((1 << lc) - 1)) | ((q >> lc) << e2)

-- One prime's view of the tables (prime `i`, tables of length `lt`), for a
-- block whose local index q is element q of the transform, or, with
-- `cols`, element `col_glob g lc e2 q`, whose local bit beta is bit beta +
-- e2 - lc.  Data, not functions: see `pass`.
local type prime_ctx [k] = { tws: [k]u64, lt: i64, i: i64, p: u32, cols: bool, g: idx, lc: idx, e2: idx }

local def table_ctx [k] (tws: [k]u64) (lt: i64) (i: i64) : prime_ctx [k] =
  { tws, lt, i, p = ntt_prime i, cols = false, g = 0, lc = 0, e2 = 0 }

local def table_ctx_at [k] (tws: [k]u64) (lt: i64) (i: i64) (g: idx) (lc: idx) (e2: idx) : prime_ctx [k] =
  { tws, lt, i, p = ntt_prime i, cols = true, g, lc, e2 }

-- The twiddle of direction `dir` of a butterfly of the stage on local bit
-- `beta` whose lower element has local index `q`; it depends only on the
-- low `beta` bits of `q` (`pass_twiddles` relies on it).
local def twiddle [k] (pc: prime_ctx [k]) (dir: ntt_dir) (beta: idx) (q: idx) : u64 =
  let t = 2 * pc.i + (match dir case #fwd -> 0 case #inv -> 1)
  let (bg, gq) = if pc.cols then (beta + pc.e2 - pc.lc, col_glob pc.g pc.lc pc.e2 q) else (beta, q)
  in #[unsafe] pc.tws[t * pc.lt + i64.i32 ((1 << bg) + (gq & ((1 << bg) - 1)))]

-- The factor that turns a Montgomery product of transforms of length 2^ell
-- into the transform of the convolution: 2^32 / 2^ell mod p, packed.
local def pointwise_scale (p: u32) (ell: i64) : u64 =
  -- 2^-ell = p - (p-1)/2^ell, since 2^ell divides p - 1.
  shoup_pack p (mulmod p (u32.u64 ((1u64 << 32) % u64.u32 p)) (p - ((p - 1) >> u32.i64 ell)))

-- BLOCK PASSES.  A block of `tt` threads holds 8*tt elements with local
-- indices q; the stages of a transform run on a range of bits of q (bits
-- outside it index independent transforms).  A pass with register base b
-- gives thread t the 8 elements whose bits b..b+2 are k = 0..7 and whose
-- other bits are those of t, and applies to them the stages (up to three)
-- on bits b..b+2.  Its buffer holds element q at `slot tt b q`.

-- Register k of thread t in a pass with base b.
local def q_of (b: idx) (t: idx) (k: idx) : idx =
  (t & ((1 << b) - 1)) | (k << b) | ((t >> b) << (b + 3))

-- Position of element q in the buffer of a pass with base b, row by row
-- (register k of every thread in row k, rows tt apart).
local def slot (tt: idx) (b: idx) (q: idx) : idx =
  ((q >> b) & 7) * tt + ((q & ((1 << b) - 1)) | ((q >> (b + 3)) << b))

-- Position of element q in the buffer of a pass with base b, thread by
-- thread: a thread's registers adjacent, w (odd) slots a thread.
local def slot_w (w: idx) (b: idx) (q: idx) : idx =
  w * ((q & ((1 << b) - 1)) | ((q >> (b + 3)) << b)) + ((q >> b) & 7)

-- The 8 registers of a thread.
local type oct = (u32, u32, u32, u32, u32, u32, u32, u32)

-- The twiddles of one pass of a thread, one per butterfly: stage j (on
-- register bit j) pairs register k with k + 2^j, in the order of
-- `stage2`, `stage1` and `stage0` below (k = 0..3; 0, 1, 4, 5; 0, 2, 4, 6).
local type twiddles = ((u64, u64, u64, u64), (u64, u64, u64, u64), (u64, u64, u64, u64))

-- Butterflies `bf w_i` on the pairs (lo_i, hi_i) of registers.
local def four (bf: u64 -> u32 -> u32 -> (u32, u32)) ((w0, w1, w2, w3): (u64, u64, u64, u64))
               ((l0, l1, l2, l3): (u32, u32, u32, u32)) ((h0, h1, h2, h3): (u32, u32, u32, u32))
               : ((u32, u32, u32, u32), (u32, u32, u32, u32)) =
  let (a0, b0) = bf w0 l0 h0
  let (a1, b1) = bf w1 l1 h1
  let (a2, b2) = bf w2 l2 h2
  let (a3, b3) = bf w3 l3 h3
  in ((a0, a1, a2, a3), (b0, b1, b2, b3))

-- The stages on register bits 2, 1 and 0 of a thread's registers: the
-- butterflies on registers k and k + 2^j for the k with bit j clear.
-- Written out on scalars: the registers stay in registers, and the
-- compiler simplifies this much faster than updates of an [8] array.
local def stage2 bf ((ws, _, _): twiddles) ((x0, x1, x2, x3, x4, x5, x6, x7): oct) : oct =
  let ((y0, y1, y2, y3), (y4, y5, y6, y7)) = four bf ws (x0, x1, x2, x3) (x4, x5, x6, x7)
  in (y0, y1, y2, y3, y4, y5, y6, y7)

local def stage1 bf ((_, ws, _): twiddles) ((x0, x1, x2, x3, x4, x5, x6, x7): oct) : oct =
  let ((y0, y1, y4, y5), (y2, y3, y6, y7)) = four bf ws (x0, x1, x4, x5) (x2, x3, x6, x7)
  in (y0, y1, y2, y3, y4, y5, y6, y7)

local def stage0 bf ((_, _, ws): twiddles) ((x0, x1, x2, x3, x4, x5, x6, x7): oct) : oct =
  let ((y0, y2, y4, y6), (y1, y3, y5, y7)) = four bf ws (x0, x2, x4, x6) (x1, x3, x5, x7)
  in (y0, y1, y2, y3, y4, y5, y6, y7)

-- One pass of a thread: register k holds element `pass_q ps k`, and the
-- stage on register bit j (element bit b + j) runs where `pass_act ps j`:
-- the `r` stages on the low register bits, or with `top` on the high
-- ones.  With `contig`, register bit j is element bit b + j for all three
-- j; otherwise the register bits above the active ones are passengers,
-- bits of the index elsewhere (the first pass of a forward transform,
-- `fwd_first`): register k holds qb | (k & km) << b | (k >> ks) << kl.
-- Data, not functions in the record: the compiler makes a copy of every
-- function that takes a function for each function it is given, and with
-- `act` and `qk` as functions the copies made `ntt_tests` 74 MB at
-- defunctionalisation (12 MB without), and the library's build ran the
-- CI machine out of memory (2026-11-29).
local type pass = { b: idx, r: idx, top: bool, contig: bool, qb: idx, km: idx, ks: idx, kl: idx }

local def pass_act (ps: pass) (j: idx) : bool = if ps.top then 2 - j < ps.r else j < ps.r

local def pass_q (ps: pass) (k: idx) : idx = ps.qb | ((k & ps.km) << ps.b) | ((k >> ps.ks) << ps.kl)

-- The twiddles of a pass: stage j's butterfly with lower register k
-- takes `twiddle pc dir (b+j) (pass_q ps k)`, which depends only on the
-- low b+j bits of the index, so, with contiguous registers, only on k mod 2^j:
-- 4 + 2 + 1 twiddles, loaded once per pass (and shared by the two lanes
-- of `block_transform_pair`) where a load per butterfly took 12 (24 for
-- two lanes) with their addresses.
local def pass_twiddles [k] (dir: ntt_dir) (pc: prime_ctx [k]) (ps: pass) : twiddles =
  let w (j: idx) (k: idx) = if pass_act ps j then twiddle pc dir (ps.b + j) (pass_q ps k) else 0
  let w2 = (w 2 0, w 2 1, w 2 2, w 2 3)
  in if ps.contig then let (w10, w11, w0) = (w 1 0, w 1 1, w 0 0)
                       in (w2, (w10, w11, w10, w11), (w0, w0, w0, w0))
     else (w2, (w 1 0, w 1 1, w 1 4, w 1 5), (w 0 0, w 0 2, w 0 4, w 0 6))

-- The stages of one pass on a thread's registers, forward (from register
-- bit 2 down) or inverse (from bit 0 up), the inactive ones (only in a
-- transform's partial pass) skipped by scalar branches: a branch around
-- array code would make the compiler keep the registers in shared memory.
local def pass_regs (dir: ntt_dir) (p: u32) (ws: twiddles) (ps: pass) (v: oct) : oct =
  let bf (j: idx) (w: u64) (x: u32) (y: u32) =
    if !(pass_act ps j) then (x, y)
    else match dir case #fwd -> dif_bfly p w x y case #inv -> dit_bfly p w x y
  in match dir
     case #fwd -> v |> stage2 (bf 2) ws |> stage1 (bf 1) ws |> stage0 (bf 0) ws
     case #inv -> v |> stage0 (bf 0) ws |> stage1 (bf 1) ws |> stage2 (bf 2) ws

-- A thread's registers, register k read as `get k`.
local def regs (get: idx -> u32) : oct =
  (get 0, get 1, get 2, get 3, get 4, get 5, get 6, get 7)

-- A pass of a thread on its registers, register k read as `get k`.
local def pass_thread [k] (dir: ntt_dir) (pc: prime_ctx [k]) (ps: pass) (get: idx -> u32) : oct =
  pass_regs dir pc.p (pass_twiddles dir pc ps) ps (regs get)

-- Where register k of the thread whose register 0 has index qb (in the
-- pass with base b) sits in the buffer of the pass with base bp: `sl`
-- (`slot`, `slot_w`) is a sum over the index bits, so slot (qb | k<<b) is
-- slot qb plus the slots of k's bits: three slots per pass, not eight.
local def slots (sl: idx -> idx) (b: idx) (qb: idx) : idx -> idx =
  let s0 = sl qb
  let (e0, e1, e2) = (sl (1 << b), sl (2 << b), sl (4 << b))
  in \k -> s0 + (if k & 1 != 0 then e0 else 0) + (if k & 2 != 0 then e1 else 0) + (if k & 4 != 0 then e2 else 0)

-- Register k of every thread in row k (the output order of `strided8`).  The
-- concatenation of the eight maps' results is short-circuited into one
-- shared-memory array; `opaque` keeps readers from seeing through it.
local def rows8 [tt] (xs: [tt]oct) : [8*tt]u32 =
  opaque (map (.0) xs ++ map (.1) xs ++ map (.2) xs ++ map (.3) xs
          ++ map (.4) xs ++ map (.5) xs ++ map (.6) xs ++ map (.7) xs :> [8*tt]u32)

-- The buffer of a pass thread by thread (`slot_w 9`): a thread's 8
-- registers and an unused slot.  The compiler writes a map's per-thread
-- arrays row-major in shared memory, so a warp's stores (stride 9) and
-- the next pass's loads (bank 9 t + k mod 32, t the writing thread, k its
-- register) are free of bank conflicts, or 2-way, where the rows of
-- `rows8` put the 8 rows that a pass of register base b < 5 reads at once
-- in one bank (4- and 8-way).
local def cols9 [tt] (xs: [tt]oct) : [tt*9]u32 =
  opaque (flatten (map (\(x0, x1, x2, x3, x4, x5, x6, x7) -> [x0, x1, x2, x3, x4, x5, x6, x7, 0]) xs))

-- The 8*tt values `f q` of a block in natural order, thread t computing
-- those of q = t + k*tt: the order in which the buffer of an inverse
-- transform's last pass has them without bank conflicts.
local def strided8 (tt: i64) (f: idx -> u32) : [8*tt]u32 =
  rows8 (tabulate tt (\t -> let t = i32.i64 t in regs (\k -> f (t + k * i32.i64 tt))))

-- The 8*tt values `f q` of a block in natural order, eight per thread as
-- array literals.  Not a map over the 8*tt values: a map inside a block
-- kernel sets the block's size to its length, and CUDA allows at most
-- 1024 threads (every product failed to launch so).
local def per_thread8 't (tt: i64) (f: idx -> t) : [8*tt]t =
  let oct (t: i64) = let q = i32.i64 (8 * t)
                     in [f q, f (q+1), f (q+2), f (q+3), f (q+4), f (q+5), f (q+6), f (q+7)]
  in flatten (tabulate tt oct) :> [8*tt]t

-- The passes of a transform over bits [lo, hi) of a block of 2^s
-- elements (3 <= hi - lo, hi <= s, lo + 3 <= s): pass_count of them, all
-- of three stages but one of top_stages, the (hi-lo) mod 3 (or 3) stages
-- on the top bits: the first pass of a forward transform, the last of an
-- inverse one in the forward's geometry (below), the first in place.
local def pass_count (lo: idx) (hi: idx) : idx = (hi - lo + 2) / 3
local def top_stages (lo: idx) (hi: idx) : idx = (hi - lo - 1) % 3 + 1

-- PASSES IN PLACE (the inverse transforms and the blocks of 16 values per
-- thread): pass i of direction dir has register base and stage count
-- `pass_at dir lo hi i`; the registers are contiguous bits of the
-- index, and the buffer of a pass with base b holds element q where the
-- layout's slot function (`slot_w`, `slot`) of b puts it.  The forward
-- passes run from the top bits down (the first on the top r bits, its
-- registers' top r stages), the inverse from the bottom up (the first on
-- the low r bits).  The next pass's addresses depend on both bases.
local def dif_pass (lo: idx) (hi: idx) (i: idx) : (idx, idx) =
  let r1 = top_stages lo hi
  in if i == 0 then (hi - 3, r1) else (hi - r1 - 3 * i, 3)

local def dit_pass (lo: idx) (hi: idx) (i: idx) : (idx, idx) =
  let r1 = top_stages lo hi
  in if i == 0 then (lo, r1) else (lo + r1 + 3 * (i - 1), 3)

local def pass_at (dir: ntt_dir) (lo: idx) (hi: idx) (i: idx) : (idx, idx) =
  match dir case #fwd -> dif_pass lo hi i case #inv -> dit_pass lo hi i

-- Pass in place of thread t with register base b and `r` stages (a
-- constant where r is 3).
local def in_place (dir: ntt_dir) (b: idx) (r: idx) (t: idx) : pass =
  let qb = q_of b t 0
  in { b, r, top = dir == #fwd, contig = true, qb, km = 7, ks = 3, kl = 0 }

-- FORWARD PASSES IN CONSTANT GEOMETRY.  Every pass after the first reads
-- register k of thread t at position `q_of (hi-3) t k` of the previous
-- buffer and writes it at `q_of lo t k` (slot 9t + k of `cols9`): the
-- field [lo, hi) of the positions rotates left by 3 bits per pass, and
-- the addresses are the same in every pass, so the compiler computes
-- them once per kernel (in place, half of a pass's instructions were
-- addresses).  The first pass, on the top r0 = top_stages bits, reads
-- its elements with `first` and leaves each element at its index's
-- field rotated left by r0; after the last, every element q is at
-- position q (slot `slot_w 9 lo q`), as in place.  So the first pass
-- gives thread t the elements of the positions q_of lo t k: register
-- bit j < r0 holds index bit hi - r0 + j, the bits above are passengers
-- (index bits lo..lo+2-r0).  The inverse keeps the passes in place: in
-- this geometry it reads what threads 8 apart wrote, 8-way conflicts in
-- shared memory.

-- The bits [lo, hi) of q rotated right by c (0 <= c <= hi - lo).
local def rotr_field (lo: idx) (hi: idx) (c: idx) (q: idx) : idx =
  let m = (1 << (hi - lo)) - 1
  let f = (q >> lo) & m
  in (q & !(m << lo)) | ((((f >> c) | (f << (hi - lo - c))) & m) << lo)

-- The first forward pass of thread t.
local def fwd_first (lo: idx) (hi: idx) (t: idx) : pass =
  let r0 = top_stages lo hi
  let b = hi - r0
  let qb = rotr_field lo hi r0 (q_of lo t 0)
  in { b, r = r0, top = false, contig = r0 == 3, qb, km = (1 << r0) - 1, ks = r0, kl = lo }

-- Forward pass i >= 1 of thread t: its positions `q_of (hi-3) t k` hold
-- the elements of their field rotated right by r0 + 3(i-1).
local def fwd_next (lo: idx) (hi: idx) (i: idx) (t: idx) : pass =
  let r0 = top_stages lo hi
  let b = hi - r0 - 3 * i
  let qb = rotr_field lo hi (r0 + 3 * (i - 1)) (q_of (hi - 3) t 0)
  in { b, r = 3, top = false, contig = true, qb, km = 7, ks = 3, kl = 0 }

-- The transform over bits [lo, hi) of the 8*tt elements of a block: the
-- first pass reads element q as `first q`; returns the buffer of the last
-- pass, which holds element q at `slot_w 9 bb q`, and bb.
local def block_transform [k] (dir: ntt_dir) (pc: prime_ctx [k]) (tt: i64) (lo: idx) (hi: idx)
                          (first: idx -> u32) : ([tt*9]u32, idx) =
  let each (f: idx -> oct) = cols9 (tabulate tt (\t -> f (i32.i64 t)))
  in match dir
     case #fwd ->
       let start = each (\t -> let ps = fwd_first lo hi t in pass_thread #fwd pc ps (\k -> first (pass_q ps k)))
       let buf = loop buf = start for i in 1..<pass_count lo hi do
                   each (\t -> let sl = slots (slot_w 9 lo) (hi - 3) (q_of (hi - 3) t 0)
                               in pass_thread #fwd pc (fwd_next lo hi i t) (\k -> #[unsafe] buf[i64.i32 (sl k)]))
       in (buf, lo)
     case #inv ->
       let (b0, r0) = dit_pass lo hi 0
       let start = each (\t -> let ps = in_place #inv b0 r0 t in pass_thread #inv pc ps (\k -> first (pass_q ps k)))
       in loop (buf, bp) = (start, b0) for i in 1..<pass_count lo hi do
            let b = (dit_pass lo hi i).0
            in (each (\t -> let ps = in_place #inv b 3 t
                            let sl = slots (slot_w 9 bp) b (pass_q ps 0)
                            in pass_thread #inv pc ps (\k -> #[unsafe] buf[i64.i32 (sl k)])), b)

-- The buffer of a pass of `block_transform_virt`: row k of the 2*tt
-- virtual threads (lane s of thread t is virtual thread t + s*tt).
local def rows16 [tt] (xs: [tt](oct, oct)) : [16*tt]u32 =
  opaque (map (.0.0) xs ++ map (.1.0) xs ++ map (.0.1) xs ++ map (.1.1) xs
          ++ map (.0.2) xs ++ map (.1.2) xs ++ map (.0.3) xs ++ map (.1.3) xs
          ++ map (.0.4) xs ++ map (.1.4) xs ++ map (.0.5) xs ++ map (.1.5) xs
          ++ map (.0.6) xs ++ map (.1.6) xs ++ map (.0.7) xs ++ map (.1.7) xs :> [16*tt]u32)

-- `block_transform` of 16*tt elements by tt threads of 16 values in two
-- lanes of 8 and one exchange per pass for both, in place: lane s of
-- thread t is thread t + s*tt of a pass of 2*tt threads, which puts
-- element q at `slot (2*tt) b q` (rows: the 2^14-point blocks need every
-- byte of shared memory, and the rows take 16 slots a thread).  `lo` and
-- `hi` must be constants: the passes are unrolled, so that each buffer's
-- memory is free once the next pass has read it (a loop keeps two
-- buffers per transform alive; at 2^14 points a buffer takes 64 KiB of
-- the 227 KiB a block may have).
local def block_transform_virt [k] (dir: ntt_dir) (pc: prime_ctx [k]) (tt: i64) (lo: idx) (hi: idx)
                               (first: idx -> u32) : ([16*tt]u32, idx) =
  let t32 = i32.i64 tt
  let run (b: idx) (r: idx) (get: idx -> idx -> u32) =
    let lane (t: idx) = let ps = in_place dir b r t in pass_thread dir pc ps (get (pass_q ps 0))
    in rows16 (tabulate tt (\t -> let t = i32.i64 t in (lane t, lane (t + t32))))
  let next (buf: [16*tt]u32, bp: idx) (i: idx) =
    let b = (pass_at dir lo hi i).0
    in (run b 3 (\qb -> let sl = slots (slot (2 * t32) bp) b qb in \k -> #[unsafe] buf[i64.i32 (sl k)]), b)
  let (b0, r0) = pass_at dir lo hi 0
  let start = (run b0 r0 (\qb k -> first (qb | (k << b0))), b0)
  in #[unroll] loop st = start for j < pass_count lo hi - 1 do next st (j + 1)

-- The forward transforms (`block_transform`) of two sets of 8*tt
-- elements (the two operands of a product, set s read as `first s`) with
-- the same twiddles, by tt threads of two lanes of 8 values and one
-- exchange per pass for both; the buffer holds a thread's two lanes
-- adjacent, 17 slots a thread: lane s's element q at `8*s + slot_w 17 lo
-- q` after the last pass.
local def block_transform_pair [k] (pc: prime_ctx [k]) (tt: i64) (lo: idx) (hi: idx)
                               (first: idx -> idx -> u32) : ([tt*17]u32, idx) =
  -- `get t ps s k` reads register k of lane s of thread t in pass ps.
  let each (f: idx -> pass) (get: idx -> pass -> idx -> idx -> u32) =
    let thread (t: idx) =
      let ps = f t
      let ws = pass_twiddles #fwd pc ps
      let (x0, x1, x2, x3, x4, x5, x6, x7) = pass_regs #fwd pc.p ws ps (regs (get t ps 0))
      let (y0, y1, y2, y3, y4, y5, y6, y7) = pass_regs #fwd pc.p ws ps (regs (get t ps 1))
      in [x0, x1, x2, x3, x4, x5, x6, x7, y0, y1, y2, y3, y4, y5, y6, y7, 0]
    in opaque (flatten (tabulate tt (\t -> thread (i32.i64 t))))
  let start = each (fwd_first lo hi) (\_ ps s k -> first s (pass_q ps k))
  let buf = loop buf = start for i in 1..<pass_count lo hi do
              each (fwd_next lo hi i)
                   (\t _ s -> let sl = slots (slot_w 17 lo) (hi - 3) (q_of (hi - 3) t 0)
                            in \k -> #[unsafe] buf[i64.i32 (8 * s + sl k)])
  in (buf, lo)

-- Log2 of the elements of a block of 16 values per thread: the blocks
-- of more than 8 values per thread transform 2^14 points, no more.
local def wide_log : idx = 14

-- The transform over bits [lo, hi) of a block of 8*tt elements
-- (`block_transform`) by tt threads of 8 values, or, with `virt` (a
-- constant, and then `lo` and `hi` constants too), by tt/2 threads of 16
-- values (`block_transform_virt`).
local def block_transform_v [k] (virt: bool) (dir: ntt_dir) (pc: prime_ctx [k]) (tt: i64) (lo: idx) (hi: idx)
                            (first: idx -> u32) : ([]u32, idx) =
  if virt then block_transform_virt dir pc (tt / 2) lo hi first
  else block_transform dir pc tt lo hi first

-- Position of element q in the buffer of `block_transform_v` with base b.
local def slot_v (virt: bool) (tt: i64) (b: idx) (q: idx) : idx =
  if virt then slot (i32.i64 tt) b q else slot_w 9 b q

-- `per_thread8` for the layout of `block_transform_v`: tt/2 threads of 16
-- values with `virt`.
local def per_thread_v 't (virt: bool) (tt: i64) (f: idx -> t) : [8*tt]t =
  if virt then let oct (q: idx) = [f q, f (q+1), f (q+2), f (q+3), f (q+4), f (q+5), f (q+6), f (q+7)]
               in flatten (tabulate (tt / 2) (\t -> let q = i32.i64 (16 * t) in oct q ++ oct (q + 8) :> [16]t))
                  :> [8*tt]t
  else per_thread8 tt f

-- The 8*tt values `f q` of a transform's result from the buffer of
-- `block_transform_v`, in natural order: eight adjacent ones a thread
-- after a forward transform (and with `virt`), eight tt apart after an
-- inverse one (`strided8`), so that the reads are free of bank
-- conflicts.
local def results_v (dir: ntt_dir) (virt: bool) (tt: i64) (f: idx -> u32) : [8*tt]u32 =
  match dir case #inv -> if virt then per_thread_v virt tt f else strided8 tt f
            case #fwd -> per_thread_v virt tt f

-- CRT AND CARRIES.

-- Garner's recombination of residues `r_i in [0, 4p_i)` into the
-- coefficient they determine (below p0*p1*p2 < 2^90), as (low 64 bits,
-- high bits).
local def crt (r0: u32) (r1: u32) (r2: u32) : (u64, u64) =
  let (p0, p1, p2) = (ntt_prime 0, ntt_prime 1, ntt_prime 2)
  let x0 = red1 p0 (red2 p0 r0)
  -- Constants as Shoup pairs (`shoup_pack`), literal so that no kernel
  -- divides.  x1 = (r1 - x0) / p0 mod p1 (1/p0 = 523588941); x0 < p0 < 2 p1.
  let x1 = red1 p1 (shoup p1 (red2 p1 r1 - red1 p1 x0 + p1) 0x9555552a1f35554d)
  -- x2 = (r2 - x0 - x1 p0) / (p0 p1) mod p2 (p0 mod p2 = 117440512,
  -- 1/(p0 p1) = 220201354); p0 < 2 p2.
  let y = red2 p2 (red1 p2 x0 + shoup p2 x1 0x2222222107000000)
  let x2 = red1 p2 (shoup p2 (red2 p2 r2 + 2*p2 - y) 0x4000077f0d20018a)
  -- x0 + x1 p0 + x2 p0 p1, with p0 p1 = 896005221510021121.
  let v = u64.u32 x0 + u64.u32 x1 * u64.u32 p0
  let p01 = 896005221510021121u64
  let lo = u64.u32 x2 * p01
  let s = lo + v
  in (s, u64.mul_hi (u64.u32 x2) p01 + u64.bool (s < lo))

-- Limb l of a product from its coefficients `coef j` (of weight 2^(32j)):
-- coefficients 2l and 2l+1 as a low limb and the high part (< 2^59) that
-- belongs to limb l+1.
local def limb_parts (coef: idx -> (u64, u64)) (l: idx) : (u64, u64) =
  let (al, ah) = coef (2 * l)
  let (bl, bh) = coef (2 * l + 1)
  let x = al + (bl << 32)
  in (x, ah + (bl >> 32) + (bh << 32) + u64.bool (x < al))

-- GEOMETRY.

-- Log2 of the longest row of the four-step path (1024 threads of 8
-- values).  Rows of 2^14 points (16 values per thread) would serve too but
-- have not been measured there.
local def ntt_row_log : i64 = 13

-- Log2 of the transform length for the product of two m-limb numbers
-- (2m digits each, 4m - 1 coefficients): at least 4 (16 points).
local def conv_log (m: i64) : i64 =
  i64.max 4 (64 - i64.i32 (i64.clz (4 * m - 1)))

-- Log2 of a transform half as long as `conv_log`'s when at most 64 and at
-- most 1/64 of its points' worth of the 4m - 1 coefficients lie past its
-- end: they wrap around onto the lowest ones, and `mul_ntt` computes them
-- classically and takes them off.  Widths just above a power of two (a
-- division's guard limbs: products of 1028 and 2052 limbs) so take
-- transforms of half the length.
local def wrap_log (m: i64) : i64 =
  let ell = conv_log m
  let past = 4 * m - 1 - (1 << (ell - 1))
  in if ell > 4 && past <= i64.min 64 ((1 << (ell - 1)) >> 6) then ell - 1 else ell

-- Independent transforms of 2^ell points per block: enough for 256
-- threads.
local def transforms_per_block (ell: i64) : i64 =
  i64.max 1 (2048 >> ell)

-- Log2 of the row length of a transform of 2^ell points when blocks
-- transform at most 2^blog points (blog <= 14): the whole transform if it
-- fits (or if ell <= 6), else the four-step split with rows of at least 8
-- and at most 2^min(blog, ntt_row_log) points and columns of at least 16
-- (columns take at most 2^10: ell <= min(blog, 13) + 10).
local def row_log (blog: i64) (ell: i64) : i64 =
  if ell <= i64.max blog 6 then ell else i64.max 3 (i64.min (i64.min blog ntt_row_log) (ell - 4))

-- Whether a block of tt (virtual) threads of 8 values runs as tt/2
-- threads of 16 (`block_transform_v`): past CUDA's limit.
local def virtual_lanes (tt: i64) : bool = tt > max_block_threads

-- Log2 of the columns per block of the column stages (2^ell1 points
-- each, rows of 2^ell2): 2048 elements per block, at least 8 columns (a
-- 32-byte sector of each row), at most a row.
local def col_log (ell1: i64) (ell2: i64) : i64 =
  i64.min ell2 (i64.max 3 (11 - ell1))

-- Digit j (32 bits) of row `row` of the flat limbs `xs` of rows of m
-- limbs (j < 2m).
local def digit [k] (xs: [k]u64) (m: i64) (row: i64) (j: idx) : u32 =
  let l = #[unsafe] xs[row * m + i64.i32 (j >> 1)]
  in u32.u64 (l >> (u64.i32 (j & 1) << 5))

-- Digit j of row s of operand o (`xs` or `ys`, rows of m limbs), 0 past
-- its 2m digits.
local def digit_or_zero [k] (xs: [k]u64) (ys: [k]u64) (m: i64) (o: idx) (s: i64) (j: idx) : u32 =
  if j < i32.i64 (2 * m) then digit (if o == 0 then xs else ys) m s j else 0

-- STAGE KERNELS.  Element j of array a of a transform of 2^ell points is
-- `load a j` ([0, 2p) for the forward direction, [0, 4p) for the
-- inverse); `fin p x` reduces the results.

-- The stages on the low ell2 bits (rows) of `nr` arrays of 2^ell2 points,
-- all modulo prime i, several rows per block: the whole transform if
-- ell2 = ell, else the second step of the forward four-step transform or
-- the first of the inverse.  Rows of 2^14 points run 16 values per thread
-- if `wide` (a constant: false where rows have at most 2^13 points, which
-- spares the compiler that kernel).
local def row_stages [k] (wide: bool) (dir: ntt_dir) (tws: [k]u64) (lt: i64) (ell2: i64) (i: i64) (nr: i64)
                         (load: i64 -> idx -> u32) (fin: u32 -> u32 -> u32) : [nr][1 << ell2]u32 =
  let len = 1 << ell2
  let e32 = i32.i64 ell2
  let ipb = transforms_per_block ell2
  let tt = ipb * (len / 8)
  let blocks (virt: bool) =
    #[incremental_flattening(only_intra)]
    map (\blk ->
           let pc = table_ctx tws lt i
           let first (q: idx) =
             let row = blk * ipb + i64.i32 (q >> e32)
             in if row < nr then load row (q & (i32.i64 len - 1)) else 0
           let (buf, bb) = block_transform_v virt dir pc tt 0 (if virt then wide_log else e32) first
           in results_v dir virt tt (\q -> fin pc.p (#[unsafe] buf[i64.i32 (slot_v virt tt bb q)])))
        (iota (num_blocks nr ipb))
  let ws = if wide && virtual_lanes tt then blocks true else blocks false
  in flatten ws |> take (nr*len) |> unflatten

-- The stages on the bits ell2..ell-1 (columns: the elements of equal
-- j mod 2^ell2) of `na` arrays of 2^ell points, array a modulo prime
-- `prime a`, 2^lc adjacent columns (j mod 2^ell2 = g*2^lc + u) per block.
-- The result holds element j = g*2^lc + u + 2^ell2 * n1 of each array at
-- `col_pos`: column groups one after the other.
local def col_stages [k] (dir: ntt_dir) (tws: [k]u64) (lt: i64) (ell: i64) (ell2: i64) (na: i64)
                         (prime: i64 -> i64) (load: i64 -> idx -> u32) (fin: u32 -> u32 -> u32)
                         : [na][1 << ell]u32 =
  let ell1 = ell - ell2
  let lc = col_log ell1 ell2
  let ng = 1 << (ell2 - lc)
  let tt = (1 << (lc + ell1)) / 8
  let (lc32, e2) = (i32.i64 lc, i32.i64 ell2)
  let ws =
    #[incremental_flattening(only_intra)]
    map (\blk ->
           let a = blk / ng
           let g = i32.i64 (blk % ng)
           let pc = table_ctx_at tws lt (prime a) g lc32 e2
           let (buf, bb) = block_transform dir pc tt lc32 (lc32 + i32.i64 ell1) (\q -> load a (col_glob g lc32 e2 q))
           in results_v dir false tt (\q -> fin pc.p (#[unsafe] buf[i64.i32 (slot_w 9 bb q)])))
        (iota (na * ng))
  in unflatten (flatten ws :> [na * (1 << ell)]u32)

-- Position of element j = g*2^lc + u + 2^e2 * n1 (u < 2^lc, n1 < 2^e1)
-- when groups of 2^lc columns of 2^e1 rows are stored one after the
-- other.
local def blocked_pos (lc: i64) (e1: i64) (e2: i64) (j: idx) : i64 =
  let (lc32, e2_32) = (i32.i64 lc, i32.i64 e2)
  let n1 = j >> e2_32
  let n2 = j & ((1 << e2_32) - 1)
  in i64.i32 (((((n2 >> lc32) << i32.i64 e1) + n1) << lc32) | (n2 & ((1 << lc32) - 1)))

-- Position of element j in the result of `col_stages`.
local def col_pos (ell: i64) (ell2: i64) (j: idx) : i64 =
  blocked_pos (col_log (ell - ell2) ell2) (ell - ell2) ell2 j

-- THE TRANSFORMS ALONE.

-- 2^-ell mod p as a Shoup pair (2^ell divides p - 1).
local def inv_len (p: u32) (ell: i64) : u64 = shoup_pack p (p - ((p - 1) >> u32.i64 ell))

-- The transforms (blocks of at most 2^blog points) of the rows of `xs`
-- modulo prime i.
local def transform_with [k][l] (blog: i64) (dir: ntt_dir) (i: i64) (xs: [k][l]u32) : [k][l]u32 =
  let ell = i64.i32 (i64.ctz l)
  let ell2 = row_log blog ell
  let tws = ntt_tables l
  let p = ntt_prime i
  let scale = inv_len p ell
  let xf = opaque (flatten xs)
  let input (a: i64) (j: idx) = shoup p (#[unsafe] xf[a * l + i64.i32 j]) shoup_one
  let done (p: u32) (x: u32) = match dir case #fwd -> red1 p x
                                         case #inv -> red1 p (shoup p x scale)
  in if ell2 == ell then row_stages true dir tws l ell i k input done :> [k][l]u32
     else -- Row r of the row stages is row r mod 2^ell1 of array r / 2^ell1.
          let ell1 = ell - ell2
          let whole (r: i64) (j: idx) = (r >> ell1, j | i32.i64 ((r & ((1 << ell1) - 1)) << ell2))
          let nr = k << ell1
          in match dir
             case #fwd ->
               let cs = col_stages #fwd tws l ell ell2 k (const i) input (\_ x -> x) |> flatten
               let rs = row_stages false #fwd tws l ell2 i nr
                                   (\r j -> let (a, j) = whole r j
                                            in #[unsafe] cs[a * l + col_pos ell ell2 j]) done
               in unflatten (flatten rs :> [k*l]u32)
             case #inv ->
               let rs = row_stages false #inv tws l ell2 i nr (\r j -> let (a, j) = whole r j in input a j)
                                   (\_ x -> x)
                        |> flatten
               let cs = col_stages #inv tws l ell ell2 k (const i)
                                   (\a j -> #[unsafe] rs[a * l + i64.i32 j]) done
                        |> flatten
               in tabulate_2d k l (\a j -> #[unsafe] cs[a * l + col_pos ell ell2 (i32.i64 j)])

-- | `ntt_forward` and `ntt_inverse` with blocks of at most 2^blog points
-- (3 <= blog <= 14, l <= 2^(min(blog, 13)+10)): the four-step path at
-- small lengths, for the tests, and the block of 2^14 points against the
-- four-step path at that length.
#[noinline]
def ntt_forward_with [k][l] (blog: i64) (i: i64) (xs: [k][l]u32) : [k][l]u32 =
  transform_with blog #fwd i xs

-- | See `ntt_forward_with`.
#[noinline]
def ntt_inverse_with [k][l] (blog: i64) (i: i64) (xs: [k][l]u32) : [k][l]u32 =
  transform_with blog #inv i xs

-- | The forward transform modulo `ntt_prime i` of every row of `xs` (of
-- l = 2^ell points, 8 <= l <= 2^23), in bit-reversed order: entry q is
-- sum_j x_j w^(j * rev(q)) mod p in [0, p), where w is the principal l-th
-- root of unity of the tables (`ntt_tables`) and rev reverses the ell bits
-- of q.  Inputs are any u32 (taken modulo p).  Up to 2^ntt_block_log
-- points in one block kernel, longer four-step.
def ntt_forward [k][l] (i: i64) (xs: [k][l]u32) : [k][l]u32 =
  ntt_forward_with ntt_block_log i xs

-- | The inverse of `ntt_forward`: bit-reversed order in, natural order
-- out, divided by l.
def ntt_inverse [k][l] (i: i64) (xs: [k][l]u32) : [k][l]u32 =
  ntt_inverse_with ntt_block_log i xs

-- | Pointwise product modulo `ntt_prime i`, in [0, p): the forward
-- transform of a cyclic convolution is the pointwise product of the
-- forward transforms.
def ntt_pointwise [k][l] (i: i64) (xs: [k][l]u32) (ys: [k][l]u32) : [k][l]u32 =
  let p = ntt_prime i
  in map2 (map2 (\x y -> u32.u64 ((u64.u32 x * u64.u32 y) % u64.u32 p))) xs ys

-- THE PRODUCT.

-- Where `conv_rows` reads its operands, as data: with `digits`, the
-- 32-bit digits of the flat limbs `af` and `bf` (rows of `mf` limbs;
-- `two_rows` and `paired` as in `mul_ntt`), else the forward column
-- stages `cs` of `mul_four_step` (`nops` operands a product).  Not a
-- function: Futhark's defunctionaliser copies every function that
-- captures a function at each place it is applied, and `conv_rows`
-- applies its block kernel at eight places (one for each constant
-- geometry): with the operands a function, `mul_lo_ntt` alone was 1.09
-- million lines of core IR, 23000 functions, and the inliner took 4
-- minutes over it (docs/architecture.md, "Build time").
local type conv_src [na][nc] =
  { digits: bool, af: [na]u64, bf: [na]u64, mf: i64, two_rows: bool, paired: bool, cs: [nc]u32, nops: i64 }

-- Element j of row r of operand o modulo prime i of `conv_rows`' transforms
-- of 2^ell points in rows of 2^ell2 (`tws` the tables of `lt` points), in
-- [0, 2p).  From digits: digit j (x), or from digits j and j + h, x and y,
-- with two rows the first forward stage (x + y, (x - y) w^j), where y is
-- 0 but for a wrapping transform's few digits, and for a cyclic product's
-- folded digits x + y (h = 2^ell2 both: with one row ell2 = ell).  Two
-- ways, not one for each case: with the folding a way of its own, the
-- first pass's code doubled, and the library's 2^15- and 2^16-bit
-- products took 1.8-2.4 ms more than a program's of one-row products
-- alone; with one way for all, loading the second digit and the twiddle
-- for every element, 5-11% more (H200, docs/multiplication.md, "Two ways
-- of loading").  From column stages: row r = s * 2^ell1 + n1 of product
-- s.
local def conv_load [na][nc][k] (src: conv_src [na][nc]) (tws: [k]u64) (lt: i64) (ell: i64) (ell2: i64)
                                (i: i64) (r: i64) (o: idx) (j: idx) : u32 =
  if src.digits
  then let p = ntt_prime i
       let digit_at (s: i64) (j: idx) = digit_or_zero src.af src.bf src.mf o s j
       let s = if src.two_rows then r >> 1 else r
       let x = shoup p (digit_at s j) shoup_one
       in if !src.paired then x
          else let y = shoup p (digit_at s (j + i32.i64 (1 << ell2))) shoup_one
               in if !src.two_rows || r & 1 == 0 then red2 p (x + y)
                  else shoup p (x - y + 2 * p) (twiddle (table_ctx tws lt i) #fwd (i32.i64 ell2) j)
  else let ell1 = ell - ell2
       let arr = ((r >> ell1) * src.nops + i64.i32 o) * 3 + i
       let jj = j | i32.i64 ((r & ((1 << ell1) - 1)) << ell2)
       in #[unsafe] src.cs[arr * lt + col_pos ell ell2 jj]

-- The cyclic convolutions of length 2^ell2, modulo each prime, of `nr`
-- pairs of rows (row r of operand o modulo prime i is `conv_load src tws
-- lt ell ell2 i r o j`, in [0, 2p); operand 0 with itself if `square`),
-- rows of one prime per block: the forward transforms of both operands (with 16 values a
-- thread the first operand's by a kernel of its own), the pointwise
-- product times 2^-ell (ell the log2 of the whole transform), the inverse
-- transform.  Returns the residues (in [0, 4p)) flat, row r modulo prime i
-- at (i*rp + r) * 2^ell2, and rp (the rows per prime, padded to blocks).
-- `wide` as for `row_stages`.  Inlined, so that each caller's kernels
-- read their operands one way (`src.digits` a constant): called from
-- `mul_ntt` and `mul_four_step`, the compiler otherwise kept one copy
-- whose kernels held both ways.
local #[inline] def conv_rows [k][na][nc] (wide: bool) (square: bool) (tws: [k]u64) (lt: i64) (ell: i64) (ell2: i64)
                                          (nr: i64) (src: conv_src [na][nc]) : ([]u32, i64) =
  let len = 1 << ell2
  let e32 = i32.i64 ell2
  let ipb = transforms_per_block ell2
  let tt = ipb * (len / 8)
  -- At least one block per prime, so that no division is by zero.
  let nbp = i64.max 1 (num_blocks nr ipb)
  let scales = tabulate 3 (\i -> pointwise_scale (ntt_prime i) ell)
  -- Blocks of tt threads of 8 values (`vlog` 0), or of tt/2 threads of 16
  -- over [0, vlog) (a constant: the passes unrolled).  `sq` is `square`, a
  -- constant where `vlog` is not 0: a branch between two arrays would cost
  -- the 2^14-point kernel a fourth 64 KiB buffer.
  let blocks (tt: i64) (vlog: idx) (sq: bool) =
    let t32 = i32.i64 tt
    let virt = vlog != 0
    let hi = if virt then vlog else e32
    -- Block blk's prime context, pointwise scale and operands (operand o's
    -- element q of the block's rows).
    let block (blk: i64) =
      let i = blk / nbp
      let r0 = (blk % nbp) * ipb
      let operand (o: idx) (q: idx) =
        let r = r0 + i64.i32 (q >> e32)
        in if r < nr then conv_load src tws lt ell ell2 i r o (q & (i32.i64 len - 1)) else 0
      in (table_ctx tws lt i, #[unsafe] scales[i], operand)
    -- A product of 16 values a thread (`split`) transforms its first
    -- operand in a kernel of its own, through global memory.  In one kernel
    -- that transform's buffer stays alive through the second operand's
    -- five passes, and the compiler's greedy colouring of the buffers then
    -- took three or four of them depending on the rest of the program (the
    -- library's 2^13-point product kept four, 128 KiB: one block an SM).
    -- Apart, each kernel's buffers form a chain (a pass reads only the one
    -- before), which no colouring takes past three.  The second kernel
    -- reads its row of `firsts` at an opaque index: at `blk` itself the
    -- compiler fused the two kernels back into one, the transforms' passes
    -- side by side, four buffers.
    let split = virt && !sq
    let firsts = if split
                 then #[incremental_flattening(only_intra)]
                      map (\blk -> let (pc, _, operand) = block blk
                                   in (block_transform_v virt #fwd pc tt 0 hi (operand 0)).0 :> [8*tt]u32)
                          (iota (3 * nbp))
                 else []
    in
    #[incremental_flattening(only_intra)]
    map (\blk ->
           let (pc, sc, operand) = block blk
           let pw x y = shoup pc.p (mont pc.p x y) sc
           -- The buffer of the operands' transforms: one for a square, else
           -- both at once (two lanes of 8 values), or with `split` the
           -- second's (the first's is in `firsts`).
           let (fs: []u32, ba) = if sq || virt then block_transform_v virt #fwd pc tt 0 hi (operand (if split then 1 else 0))
                                 else block_transform_pair pc tt 0 e32 operand
           let prod q = if virt then let sl = i64.i32 (slot t32 ba q)
                                     in pw (if split then #[unsafe] firsts[opaque blk, sl] else #[unsafe] fs[sl]) (#[unsafe] fs[sl])
                        else if sq then let sl = i64.i32 (slot_w 9 ba q)
                                        in pw (#[unsafe] fs[sl]) (#[unsafe] fs[sl])
                        else let sl = i64.i32 (slot_w 17 ba q)
                             in pw (#[unsafe] fs[sl]) (#[unsafe] fs[sl + 8])
           let (buf, bb) = block_transform_v virt #inv pc tt 0 hi prod
           in results_v #inv virt tt (\q -> #[unsafe] buf[i64.i32 (slot_v virt tt bb q)]))
        (iota (3 * nbp))
  -- tt is 256 up to 2^11 points, 512 at 2^12, 1024 at 2^13 and 2048 at
  -- 2^14 (`wide` only).  Blocks of a constant number of threads get launch
  -- bounds of that size from the compiler, so up to 255 registers a thread
  -- at 256 (about 100 used, no spills), where a run-time size is compiled
  -- for 1024 threads of 64 registers, which spilled and recomputed the
  -- primes' multiples (docs/multiplication.md, "Constant geometry").  At
  -- 2^13 points (and tt at most 1024 without `wide`; the size coercion
  -- checks it) 8 values a thread needed 276 tt bytes of shared memory
  -- (the two lanes' buffers of 17 slots a thread, the loops' buffers
  -- apart), past a block's 227 KiB: there 512 threads of 16 values with
  -- unrolled passes need three buffers of 32 KiB.  `square` is a constant
  -- in every kernel: with it at run time the kernels kept the buffers of
  -- both ways (a product's two lanes and a square's one), 276 against 204
  -- (product) and 108 (square) bytes a thread, and 2^16-bit squares took
  -- 16959 against 13014 us (H200, 2026-11-29, docs/multiplication.md).
  let run (tb: i64) (vlog: idx) (sq: bool) = flatten (blocks tb vlog sq) :> [3 * nbp * (8 * tt)]u32
  let run_square (tb: i64) (vlog: idx) = if square then run tb vlog true else run tb vlog false
  let ws = if tt == 256 then run_square 256 0
           else if tt == 512 then run_square 512 0
           else if tt == 1024 || !wide then run_square 1024 (wide_log - 1)
           else run_square tt wide_log
  in (ws, nbp * ipb)

-- The low `mo` limbs of `n` products whose coefficients (coefficient j
-- of product s, as low 64 bits and high bits) are `coef s j`, by block
-- kernels: the limb parts of a block's limbs into shared memory, adjacent
-- limbs on adjacent threads, then the carry scan over quads (thread i adds
-- the low limbs 4i'..4i'+3 of its instance to the high parts of limbs
-- 4i'-1..4i'+2); `fin l w` masks the quad at limb l.  With each thread
-- computing the parts of its own quad, a warp's reads of the residues were
-- 32 bytes apart and the parts of limb 4i'-1 were computed twice: the
-- kernel took 1.7-1.8 ms per 2^32-bit batch, a quarter of the H200's
-- bandwidth for the 2 GB of a low half, and products took 0.4-0.7 ms
-- more (H200; 5-13% more on multicore; docs/multiplication.md, "The CRT
-- kernel").  Now Garner's arithmetic bounds it, not memory.
local def crt_blocks (n: i64) (mo: i64) (fin: i64 -> quad -> quad) (coef: i64 -> idx -> (u64, u64)) : [n][mo]u64 =
  let ipb = instances_per_block 256 mo
  let seg = mo / 4
  let g = ipb * seg
  let ws =
    block_map (num_blocks n ipb) (\blk ->
      -- Limb v of the block: limb v mod mo of its instance v / mo.
      let part (v: i64) =
        let r = blk * ipb + quot32 v mo
        in if r < n then limb_parts (coef r) (i32.i64 (rem32 v mo)) else (0, 0)
      let quarter (k: i64) = unzip (tabulate g (\i -> part (k * g + i)))
      let ((x0, h0), (x1, h1), (x2, h2), (x3, h3)) = (quarter 0, quarter 1, quarter 2, quarter 3)
      -- `opaque`, as in `load_limbs`: one shared buffer each, read by index.
      let xs = opaque (x0 ++ x1 ++ x2 ++ x3 :> [4*g]u64)
      let hs = opaque (h0 ++ h1 ++ h2 ++ h3 :> [4*g]u64)
      let yq (i: i64) = let v = 4 * i
                        in #[unsafe] (if rem32 i seg == 0 then 0 else hs[i64.max 0 (v - 1)], hs[v], hs[v + 1], hs[v + 2])
      in store_quads (add_quads_with g seg carry_none (\i w _ -> fin (4 * rem32 i seg) w) (quad_at xs) yq)
         :> [ipb*mo]u64)
  in unblock n mo ws

-- The low `mo` limbs, modulo 2^bits, of `n` products from their limb
-- parts (`lo s l` the low limb of limb l of product s, `hi s l` the high
-- part that belongs to limb l+1) by a carry scan per product: the
-- products too wide for `crt_blocks` (more than max_block_limbs limbs).
local def carry_rows (n: i64) (mo: i64) (bits: i64) (lo: i64 -> i64 -> u64) (hi: i64 -> i64 -> u64) : [n][mo]u64 =
  tabulate n (\s -> let x = tabulate mo (lo s)
                    let h = tabulate mo (\l -> if l == 0 then 0 else hi s (l - 1))
                    in mask_row bits (add_row carry_none x h).0)
  |> row_major

-- `x + y` modulo B^L - 1 (L = mo) for `n` pairs of rows of `mo` limbs
-- (limb l of row s `x s l`, `y s l`): the carry out of the top re-enters
-- at the bottom.  Both addends are at most B^L - 1, so x + y + c carries
-- nothing out; the result is in [0, B^L - 1].  One carry scan serves both
-- additions: the carry into limb l of x + y + c is `carry_op c` of the
-- scan's prefix below l.  The scans are flattened (only_inner): left to
-- the compiler, 32768 rows of 1024 limbs ran one thread per row, a
-- sequential scan each (H200, the 2^17-bit division's three cyclic
-- products: 6845 us).
local def cyclic_sum (n: i64) (mo: i64) (x: i64 -> i64 -> u64) (y: i64 -> i64 -> u64) : [n][mo]u64 =
  #[incremental_flattening(only_inner)]
  tabulate n (\s -> let xs = tabulate mo (x s)
                    let ys = tabulate mo (y s)
                    let incl = scan carry_op carry_none (map2 (\u v -> carry_of_sum u (u + v)) xs ys)
                    let c = if mo > 0 && last incl & 1 == 1 then carry_one else carry_none
                    in tabulate mo (\l -> let cl = if l == 0 then c else carry_op c incl[l - 1]
                                          in xs[l] + ys[l] + u64.u32 (cl & 1)))
  |> row_major

-- The last step of the four-step product: the inverse column stages of
-- the residues (element j of product s modulo prime i is `res i s j`) for
-- the three primes in each block, the CRT and the limb parts of the
-- product's 2^(ell-1) limbs (limb l from the adjacent columns 2l and
-- 2l+1), as low limbs and high parts at `blocked_pos (lc-1) ell1 (ell2-1)`.
local def cols_inv_crt [k] (n: i64) (tws: [k]u64) (lt: i64) (ell: i64) (ell2: i64)
                           (res: i64 -> i64 -> idx -> u32) : ([n][1 << (ell - 1)]u64, [n][1 << (ell - 1)]u64) =
  let ell1 = ell - ell2
  let lc = col_log ell1 ell2
  let ng = 1 << (ell2 - lc)
  let tt = (1 << (lc + ell1)) / 8
  let (lc32, e1, e2) = (i32.i64 lc, i32.i64 ell1, i32.i64 ell2)
  let bb = (dit_pass lc32 (lc32 + e1) (pass_count lc32 (lc32 + e1) - 1)).0
  let (xs, hs) =
    #[incremental_flattening(only_intra)]
    map (\blk ->
           let s = blk / ng
           let g = i32.i64 (blk % ng)
           let residues (i: i64) =
             let pc = table_ctx_at tws lt i g lc32 e2
             in (block_transform #inv pc tt lc32 (lc32 + e1) (\q -> res i s (col_glob g lc32 e2 q))).0
           let w = tt * 9
           let rs = loop rs = replicate (3 * w) 0u32 for i < 3 do
                      rs with [i * w : (i + 1) * w] = residues i
           let coef (q: idx) =
             let sl = i64.i32 (slot_w 9 bb q)
             in #[unsafe] crt rs[sl] rs[w + sl] rs[2 * w + sl]
           -- Local limb v: columns 2u, 2u+1 of row n1, v = u + 2^(lc-1) * n1.
           let parts (v: idx) =
             let q = ((v & ((1 << (lc32 - 1)) - 1)) << 1) | ((v >> (lc32 - 1)) << lc32)
             in limb_parts (\d -> coef (q + d)) 0
           in unzip (per_thread8 (tt / 2) parts :> [4 * tt](u64, u64)))
        (iota (n * ng))
    |> unzip
  let shape ys = unflatten (flatten ys :> [n * (1 << (ell - 1))]u64)
  in (shape xs, shape hs)

-- The product in four steps (transforms of 2^ell > 2^ell2 points): column
-- stages of the operands (forward, all primes), row convolutions, inverse
-- column stages with the CRT, and the carries along each product.
local def mul_four_step [n][m] (square: bool) (mo: i64) (bits: i64) (ell: i64) (ell2: i64)
                               (a: [n][m]u64) (b: [n][m]u64) : [n][mo]u64 =
  let len = 1 << ell
  let ell1 = ell - ell2
  let tws = ntt_tables len
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  let nops = if square then 1 else 2
  -- Array (s, o, i): operand o of product s modulo prime i.
  let operand (arr: i64) (j: idx) =
    let i = arr % 3
    let o = (arr / 3) % nops
    let s = arr / (3 * nops)
    let d = if j < i32.i64 (2 * m) then digit (if o == 0 then af else bf) m s j else 0
    in shoup (ntt_prime i) d shoup_one
  let cs = col_stages #fwd tws len ell ell2 (n * nops * 3) (\arr -> arr % 3) operand (\_ x -> x)
           |> flatten
  -- Row r = s * 2^ell1 + n1 of the row convolutions.
  let (rs, rp) =
    conv_rows false square tws len ell ell2 (n << ell1)
              {digits = false, af = [], bf = [], mf = 0, two_rows = false, paired = false, cs, nops}
  let l2 = i32.i64 (1 << ell2)
  let (xs, hs) =
    cols_inv_crt n tws len ell ell2
                 (\i s j -> #[unsafe] rs[(i * rp + (s << ell1) + i64.i32 (j >> i32.i64 ell2)) * (1 << ell2)
                                       + i64.i32 (j & (l2 - 1))])
  let pos (l: i64) = blocked_pos (col_log ell1 ell2 - 1) ell1 (ell2 - 1) (i32.i64 l)
  in carry_rows n mo bits (\s l -> #[unsafe] xs[s, pos l]) (\s l -> #[unsafe] hs[s, pos l])

-- Log2 of the transform of a product of m-limb operands with blocks of
-- at most 2^blog points: the shorter transform of `wrap_log` where it
-- runs in one block or as two rows (`mul_ntt`).
local def product_log (blog: i64) (m: i64) : i64 =
  let four_step (ell: i64) = row_log blog ell < ell && ell != blog + 1
  in if four_step (wrap_log m) then conv_log m else wrap_log m

-- The low `mo` limbs of the products (`mo` = m or 2m), reduced modulo
-- 2^bits, with blocks of at most 2^blog transform points; with `cyc`
-- the products modulo B^mo - 1 (cyclic convolutions of 2*mo digits,
-- `mul_cyclic_ntt`).  Not inlined: one copy of the kernels serves every
-- caller (its arguments chosen at run time between kernels, or in them),
-- which keeps the compile time of programs with several products down.
#[noinline]
local def mul_ntt [n][m] (blog: i64) (square: bool) (cyc: bool) (mo: i64) (bits: i64)
                         (a: [n][m]u64) (b: [n][m]u64) : [n][mo]u64 =
  let ell = if cyc then 64 - i64.i32 (i64.clz (2 * mo - 1)) else product_log blog m
  let ell2 = row_log blog ell
  -- Transforms twice as long as a block (2^(blog+1) points) run as two
  -- rows of 2^blog points, with their first and last stages (on the top
  -- bit) outside the blocks.  The first (forward, DIF) stage leaves
  -- x_j + x_(j+L/2) in row 0 and (x_j - x_(j+L/2)) w^j in row 1 (w the
  -- 2^ell-th root of unity), where the digits x_(j+L/2) are zero but for
  -- a wrapping transform's few: no pass through global memory as in the
  -- four-step path.  The
  -- last (inverse, DIT) stage turns residues u_j, v_j of the rows into
  -- u_j + w^-j v_j and u_j - w^-j v_j, where the CRT reads them.
  let two_rows = ell2 < ell && ell == blog + 1
  in if ell2 < ell && !two_rows then mul_four_step square mo bits ell ell2 a b
     else let len = 1 << ell
          let e2 = if two_rows then blog else ell
          let tws = ntt_tables len
          -- A cyclic product's operands (at most 2L limbs, L = mo) have up
          -- to 2 len digits, folded where they are loaded (below); as two
          -- rows, those of more than L limbs are first reduced modulo B^L
          -- - 1 by an addition (2^20-bit divisions: L = 2^14), so that no
          -- element is loaded from more than two digits.
          let fold (x: [n][m]u64) = cyclic_sum n mo (\s l -> #[unsafe] x[s, l])
                                                    (\s l -> if mo + l < m then #[unsafe] x[s, mo + l] else 0)
          let (af, bf, mf) = if cyc && two_rows && m > mo then (flatten (fold a), flatten (fold b), mo)
                             else (flatten a, flatten b, m)
          let (af, bf) = (opaque af, opaque bf)
          let rows = if two_rows then 2 else 1
          -- The operands by `conv_load`, two ways (`paired`).
          let paired = two_rows || (cyc && 2 * mf > len)
          let (rs, rp) = conv_rows true square tws len ell e2 (rows * n)
                                   {digits = true, af, bf, mf, two_rows, paired, cs = [], nops = 0}
          -- Residue j < len of product s modulo prime i.
          let res_one_row (i: i64) (s: i64) (j: idx) = #[unsafe] rs[(i * rp + s) * len + i64.i32 j]
          let res (i: i64) (s: i64) (j: idx) =
            if !two_rows then res_one_row i s j
            else let half = i32.i64 (1 << e2)
                 let k = i64.i32 (j & (half - 1))
                 let u = #[unsafe] rs[((i * rp + 2 * s) << e2) + k]
                 let v = #[unsafe] rs[((i * rp + 2 * s + 1) << e2) + k]
                 let (y0, y1) = dit_bfly (ntt_prime i) (twiddle (table_ctx tws len i) #inv (i32.i64 e2) j) u v
                 in if j < half then y0 else y1
          -- Coefficients len + t of a wrapping product (t < np: at most
          -- 64 past len, the top one 0; otherwise one zero per product),
          -- exactly, by the classical convolution of the digits (at most 64
          -- digit products each), in a kernel of their own: computed where
          -- the CRT reads them, the loop made the CRT kernel 4.5x slower
          -- (H200, 2^15 full products of 1028 limbs: 7352 us against 1627
          -- at 1024 limbs).
          let np = if cyc then 1 else i64.max 1 (4 * m - len)
          let (past_lo, past_hi) =
            unzip (map unzip (tabulate_2d n np (\s t ->
              let t = i32.i64 (len + t)
              let i0 = t - i32.i64 (2 * m - 1)
              in if cyc then (0, 0)
                 else loop (lo, hi) = (0u64, 0u64) for k < i32.i64 (2 * m) - i0 do
                        let x = lo + u64.u32 (digit_or_zero af bf mf 0 s (i0 + k)) * u64.u32 (digit_or_zero af bf mf 1 s (t - i0 - k))
                        in (x, hi + u64.bool (x < lo)))))
          let past (s: i64) (t: i64) = let t = i64.max 0 (i64.min (np - 1) t)
                                       in (#[unsafe] past_lo[s, t], #[unsafe] past_hi[s, t])
          -- Coefficient j of product s: from the residues below len, with
          -- the coefficients past len that wrapped onto j taken off.  The
          -- masks keep any read the compiler hoists in bounds.
          let coef_of (res: i64 -> i64 -> idx -> u32) (s: i64) (j: idx) : (u64, u64) =
            if i64.i32 j >= len
            then past s (i64.i32 j - len)
            else let jr = j & i32.i64 (len - 1)
                 let (lo, hi) = crt (res 0 s jr) (res 1 s jr) (res 2 s jr)
                 in if cyc || i64.i32 j + len >= 4 * m - 1 then (lo, hi)
                    else let (wl, wh) = past s (i64.i32 j)
                         in (lo - wl, hi - wh - u64.bool (lo < wl))
          let fin l (w0, w1, w2, w3) =
            (mask_limb bits l w0, mask_limb bits (l+1) w1, mask_limb bits (l+2) w2, mask_limb bits (l+3) w3)
          -- Not `crt_blocks` with two rows: when its threads read 8
          -- adjacent coefficients each, here from 6 rows and 3 twiddle
          -- tables, 2^18-bit low halves as two rows of 2^13 points took
          -- 33431 us per 2^32-bit batch against 29498 for full products by
          -- this route.  Its limbs on adjacent threads made them 26575 (the
          -- one block of 2^14 that they take now: 26542; H200, 2026-12-02),
          -- but with blocks of 2^14 points no two rows' product is as
          -- narrow as `max_block_limbs`.
          -- `crt_blocks` gets the residues of one row as such: given `res`,
          -- whose branch on `two_rows` it cannot see through, its kernel
          -- carried the two rows' code as well.
          let coef = coef_of res
          in if mo <= max_block_limbs && !two_rows && !cyc then crt_blocks n mo fin (coef_of res_one_row)
             else -- Full products of 2^14-point transforms (8192 limbs), the two rows' products, cyclic products.
                  let (xs, hs) = unzip (map unzip (tabulate_2d n mo (\s l -> limb_parts (coef s) (i32.i64 l))))
                  -- The high part of the top limb wraps onto limb 0.
                  in if cyc then cyclic_sum n mo (\s l -> #[unsafe] xs[s, l])
                                                 (\s l -> #[unsafe] hs[s, if l == 0 then mo - 1 else l - 1])
                     else carry_rows n mo bits (\s l -> #[unsafe] xs[s, l]) (\s l -> #[unsafe] hs[s, l])

-- | The exact products `a*b` (`2m` limbs) by NTT: one block kernel per
-- step up to transforms of 2^ntt_block_log points, two rows of them up
-- to twice that, four-step above; any width m (a multiple of 4) up to
-- 2^21 limbs.
def mul_full_ntt [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_ntt ntt_block_log false false (m*2) (128*m) a b

-- | `a*b mod 2^bits` (bits <= 64m) by NTT.
def mul_lo_ntt [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_ntt ntt_block_log false false m bits a b

-- | The exact squares `a*a` by NTT: one forward transform per prime,
-- shaped as `mul_full_ntt`.
def sqr_full_ntt [n][m] (a: [n][m]u64) : [n][m*2]u64 =
  mul_ntt ntt_block_log true false (m*2) (128*m) a a

-- | `a*a mod 2^bits` by NTT.
def sqr_lo_ntt [n][m] (bits: i64) (a: [n][m]u64) : [n][m]u64 =
  mul_ntt ntt_block_log true false m bits a a

-- | `mul_full_ntt` (`square` false) or `sqr_full_ntt` (true) with blocks
-- of at most 2^blog transform points (3 <= blog <= 14), so that tests
-- reach the four-step path at small widths and benchmarks compare
-- blog 13 and 14 at 2^18 bits.
def mul_full_ntt_with [n][m] (blog: i64) (square: bool) (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  mul_ntt blog square false (m*2) (128*m) a b

-- | `mul_lo_ntt`/`sqr_lo_ntt` with blocks of at most 2^blog points.
def mul_lo_ntt_with [n][m] (blog: i64) (square: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  mul_ntt blog square false m bits a b

-- | Log2 of the transform length of `mul_lo_ntt` (and `mul_full_ntt`) for
-- m-limb operands, to compare with `mul_cyclic_ntt`'s `2 L` points.
def ntt_product_log (m: i64) : i64 = product_log ntt_block_log m

-- | The longest cyclic product `mul_cyclic_ntt` serves: its transform of
-- 2L points runs in one block or as two rows.
def ntt_cyclic_max_limbs : i64 = 1 << ntt_block_log

-- | `a*b mod (B^L - 1)` (B = 2^64) by one cyclic convolution of 2L digits
-- (a transform of 2L points, half that of the product), for L a power of
-- two, 8 <= L <= `ntt_cyclic_max_limbs`, and operands of at most 2L limbs.
-- The result lies in [0, B^L - 1]: B^L - 1 stands for 0.  A caller that
-- knows a*b up to a small difference (a division's remainder, a Newton
-- step's error) recovers it from this and the product's low limbs.
def mul_cyclic_ntt [n][m] (L: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][L]u64 =
  assert (L >= 8 && L <= ntt_cyclic_max_limbs && L & (L - 1) == 0 && m <= 2 * L)
         (mul_ntt ntt_block_log false true L (64 * L) a b)

-- | `mul_cyclic_ntt` with blocks of at most 2^blog points (tests: two rows
-- at small widths).
def mul_cyclic_ntt_with [n][m] (blog: i64) (L: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][L]u64 =
  assert (L >= 8 && 2 * L <= 1 << (blog + 1) && L & (L - 1) == 0 && m <= 2 * L)
         (mul_ntt blog false true L (64 * L) a b)
