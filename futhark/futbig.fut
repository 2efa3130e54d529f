-- | The futbig library: every entry point of the Python interface
-- (docs/interface.md).  This is the one program compiled with
-- `futhark <backend> --library`; the algorithms live in the modules.
--
-- A batch of n numbers of storage width m is `[n][m]u64` (little-endian
-- limbs, m a multiple of 4); `bits` is the logical width, and outputs are
-- reduced modulo `2^bits`.  Flags are `u8`.

module Add = import "../lib/github.com/futbig/futbig/add"
module Compare = import "../lib/github.com/futbig/futbig/compare"
module Bitwise = import "../lib/github.com/futbig/futbig/bitwise"
module Shift = import "../lib/github.com/futbig/futbig/shift"
module Mul = import "../lib/github.com/futbig/futbig/mul"
module Fused = import "../lib/github.com/futbig/futbig/fused"
module Layout = import "../lib/github.com/futbig/futbig/layout"
module Flags = import "../lib/github.com/futbig/futbig/flags"
module Div = import "../lib/github.com/futbig/futbig/div"
module Thresholds = import "../lib/github.com/futbig/futbig/thresholds"
module Bits = import "../lib/github.com/futbig/futbig/bits"
module Modular = import "../lib/github.com/futbig/futbig/modular"

-- | `(a + b mod 2^bits, carry)`.  `cpu` is true on the `c` and
-- `multicore` backends (the layout differs, thresholds.fut).
entry add [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) =
  Add.add cpu bits a b

-- | `(a - b mod 2^bits, borrow)`, borrow = 1 iff a < b; `cpu` as for `add`.
entry sub [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) =
  Add.sub cpu bits a b

-- | `-a mod 2^bits`; `cpu` as for `add`.
entry neg [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) : [n][m]u64 =
  Add.neg cpu bits a

-- | Sign of `a - b`: -1, 0, 1.
entry cmp [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n]i8 =
  Compare.cmp a b

-- | `a & b`.
entry bit_and [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = Bitwise.bit_and a b

-- | `a | b`.
entry bit_or [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = Bitwise.bit_or a b

-- | `a ^ b`.
entry bit_xor [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = Bitwise.bit_xor a b

-- | `2^bits - 1 - a`.
entry bit_not [n][m] (bits: i64) (a: [n][m]u64) : [n][m]u64 = Bitwise.bit_not bits a

-- | `a << k mod 2^bits`.
entry shl [n][m] (bits: i64) (k: i64) (a: [n][m]u64) : [n][m]u64 = Shift.shl bits k a

-- | `a >> k`.
entry shr [n][m] (k: i64) (a: [n][m]u64) : [n][m]u64 = Shift.shr k a

-- | `a << ks[i] mod 2^bits` per instance.
entry shl_each [n][m] (bits: i64) (ks: [n]i64) (a: [n][m]u64) : [n][m]u64 =
  Shift.shl_each bits ks a

-- | `a >> ks[i]` per instance.
entry shr_each [n][m] (ks: [n]i64) (a: [n][m]u64) : [n][m]u64 = Shift.shr_each ks a

-- | `a*b mod 2^bits`.  `cpu` is true on the `c` and `multicore`
-- backends (the switch points differ, thresholds.fut); `method`: 0 the
-- library's choice, 1 classical, 2 the NTT (for tests and benchmarks).
entry mul_lo [n][m] (cpu: bool) (method: i64) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  Mul.mul_lo_by cpu method bits a b

-- | The exact products, `2m` limbs; `cpu` and `method` as for `mul_lo`.
entry mul_full [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m*2]u64 =
  Mul.mul_full_by cpu method a b

-- | `a*a mod 2^bits`; `cpu` and `method` as for `mul_lo`.
entry sqr_lo [n][m] (cpu: bool) (method: i64) (bits: i64) (a: [n][m]u64) : [n][m]u64 =
  Mul.sqr_lo_by cpu method bits a

-- | The exact squares, `2m` limbs; `cpu` and `method` as for `mul_lo`.
entry sqr_full [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) : [n][m*2]u64 =
  Mul.sqr_full_by cpu method a

-- | The widths (limbs) from which `mul_lo`, `mul_full`, `sqr_lo` and
-- `sqr_full` multiply by the NTT with the switch points of `cpu`: tests
-- and the fuzzer check both sides of each.
entry ntt_switches (cpu: bool) : [4]i64 =
  [Thresholds.ntt_lo_limbs cpu, Thresholds.ntt_full_limbs cpu,
   Thresholds.ntt_sqr_lo_limbs cpu, Thresholds.ntt_sqr_full_limbs cpu]

-- | `(a*d mod 2^bits, floor(a*d / 2^bits))`.
entry mul_limb [n][m] (bits: i64) (a: [n][m]u64) (d: [n]u64) : ([n][m]u64, [n]u64) =
  Mul.mul_limb bits a d

-- | `6a + 10b mod 2^bits`, six dependent additions in one kernel.
entry add6 [n][m] (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  Fused.add6 bits a b

-- | `(a*a + b) * (b*b + b) + a*b mod 2^bits`, in one kernel up to
-- `poly_block_limbs`; `cpu` as for `mul_lo`.
entry poly [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
  Fused.poly cpu bits a b

-- | Instances `idx` of `xs` (indexing, slicing, masks, broadcasting).
entry gather [n][m][k] (xs: [n][m]u64) (idx: [k]i64) : [k][m]u64 = Layout.gather xs idx

-- | `xs` followed by `ys`.
entry concat [n][k][m] (xs: [n][m]u64) (ys: [k][m]u64) : [][m]u64 = Layout.concat xs ys

-- | The same values at storage width `m2`, reduced modulo `2^bits`.
entry resize [n][m] (bits: i64) (m2: i64) (xs: [n][m]u64) : [n][m2]u64 = Layout.resize bits m2 xs

-- | `(first, count)`: the index of the first nonzero flag (-1 if none)
-- and the number of nonzero flags.
entry flag_summary [n] (flags: [n]u8) : (i64, i64) = Flags.summary flags

-- | `(a quot b, a rem b, zero)`; zero = 1 where b = 0, and then the
-- quotient and remainder are 0.  `cpu` is true on the `c` and `multicore`
-- backends: the switch points between the division algorithms differ
-- (thresholds.fut).  `method`: 0 the library's choice, 1 long division
-- with one instance per thread, 2 Newton's reciprocal.
entry divmod [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) (b: [n][m]u64)
                  : ([n][m]u64, [n][m]u64, [n]u8) =
  Div.divmod cpu method a b

-- | `(a quot d, a rem d, zero)` for one-limb divisors; zero = 1 where
-- d = 0, and then the quotient and remainder are 0.  `cpu` as for
-- `divmod`; `method`: 0 the library's choice, 1 a loop over the limbs per
-- instance, 2 a scan over all limbs.
entry div_limb [n][m] (cpu: bool) (method: i64) (a: [n][m]u64) (d: [n]u64) : ([n][m]u64, [n]u64, [n]u8) =
  Div.div_limb cpu method a d

-- ---------------------------------------------------------------------
-- Rows and flags for the Python layer: overflow checks on the device,
-- joining k arrays in one pass, and one-limb scalar operands without a
-- batch (docs/interface.md).

-- | Flags (1) the rows of `x` that are `>= 2^bits` (`bits >= 0`; any m):
-- products that overflow, checked on the device with `flag_summary`.
entry exceeds [n][m] (bits: i64) (x: [n][m]u64) : [n]u8 = Compare.exceeds bits x

-- | `n` rows of `m` zero limbs, the destination that `place` fills.
entry zero_rows (n: i64) (m: i64) : *[n][m]u64 = Layout.zero_rows n m

-- | `dst` with rows `offset .. offset+k-1` replaced by `src`, in place
-- (`dst` is consumed: the caller must not use it again, only free it).
entry place [N][k][m] (dst: *[N][m]u64) (offset: i64) (src: [k][m]u64) : *[N][m]u64 =
  Layout.place dst offset src

-- | `n` copies of the limb `x`: a one-limb scalar as the `d` of
-- `mul_limb` and `div_limb`.
entry splat_limb (n: i64) (x: u64) : [n]u64 = replicate n x

-- | Each `xs[i]` as row `i` of `m` limbs (limb 0; `m >= 1`), such as the
-- remainder of `div_limb` at the dividend's width.
entry limb_rows [n] (m: i64) (xs: [n]u64) : [n][m]u64 = Layout.limb_rows m xs

-- | The bit length of each row (0 for zero): `Array.bit_length`.
entry bit_length [n][m] (x: [n][m]u64) : [n]i64 = Bits.bit_length x

-- | The number of set bits of each row: `popcount`.
entry popcount [n][m] (x: [n][m]u64) : [n]i64 = Bits.popcount x

-- ---------------------------------------------------------------------
-- Modular arithmetic (modular.fut).  The moduli `mods` are `[k][m]u64`
-- with `k = 1` (one modulus for the batch) or `k = n` (one per
-- instance); `zero` flags (1) the instances whose modulus is 0, where the
-- result is 0.  Inputs may be `>= p`: they are reduced first.

-- | `((a + b) mod p, zero)`.
entry mod_add [n][k][m] (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  Modular.mod_add a b mods

-- | `((a - b) mod p, zero)`.
entry mod_sub [n][k][m] (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8) =
  Modular.mod_sub a b mods

-- | `(a*b mod p, zero)`: Montgomery products for odd `p`, long division
-- for even `p`.  `cpu` is true on the `c` and `multicore` backends;
-- `method` (odd moduli): 0 the library's choice, 1 one instance per
-- thread, 2 batch-level products by the multiplication ladder (for tests
-- and benchmarks; a shared even modulus stays per thread).  `one_odd`:
-- the caller knows that `mods` is one odd modulus (`k = 1`), so the
-- device does not check it (the check is a read that waits for the
-- device); false is always correct.
entry mod_mul [n][k][m] (cpu: bool) (method: i64) (one_odd: bool) (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64)
                      : ([n][m]u64, [n]u8) =
  Modular.mod_mul cpu method one_odd a b mods

-- | `(a^e mod p, zero)`; exponents `e` are `[ke][me]u64`, `ke = 1` (one
-- for the batch) or `ke = n`, of any width `me`; `cpu`, `method` and
-- `one_odd` as for `mod_mul`.
entry powmod [n][k][m][ke][me] (cpu: bool) (method: i64) (one_odd: bool) (a: [n][m]u64) (e: [ke][me]u64) (mods: [k][m]u64)
                             : ([n][m]u64, [n]u8) =
  Modular.powmod cpu method one_odd a e mods

-- | `gcd(a, b)` (binary), `gcd(0, 0) = 0`.
entry gcd [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = Modular.gcd a b

-- | `(a^-1 mod p, zero, none)`: `none` flags (1) the instances without an
-- inverse (gcd(a, p) /= 1); the result is 0 there and at zero moduli.
entry modinv [n][k][m] (a: [n][m]u64) (mods: [k][m]u64) : ([n][m]u64, [n]u8, [n]u8) =
  Modular.modinv a mods

-- | Montgomery forms `(a mod p)*2^(64m) mod p`, odd moduli only; `cpu`
-- and `method` (here and in `from_mont`, `mont_mul`) as for `mod_mul`.
entry to_mont [n][k][m] (cpu: bool) (method: i64) (a: [n][m]u64) (mods: [k][m]u64) : [n][m]u64 =
  Modular.to_mont_batch cpu method a mods

-- | `a*2^(-64m) mod p` for Montgomery forms `a < p`, odd moduli only.
entry from_mont [n][k][m] (cpu: bool) (method: i64) (a: [n][m]u64) (mods: [k][m]u64) : [n][m]u64 =
  Modular.from_mont_batch cpu method a mods

-- | Montgomery products `a*b*2^(-64m) mod p` of forms `a, b < p`, odd
-- moduli only.
entry mont_mul [n][k][m] (cpu: bool) (method: i64) (a: [n][m]u64) (b: [n][m]u64) (mods: [k][m]u64) : [n][m]u64 =
  Modular.mont_mul_batch cpu method a b mods
