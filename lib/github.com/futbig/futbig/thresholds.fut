-- | Every switch point between algorithms and every launch shape of the
-- library, in one place, each with its reason and the measurement behind
-- it (docs/benchmarks.md, docs/division.md, docs/multiplication.md).
-- Times are microseconds per 2^32-bit batch on one NVIDIA H200.
--
-- What depends on the backend is a function of `cpu`: the host passes
-- `true` for the `c` and `multicore` backends and `false` for `cuda`
-- (python/futbig/_kernels.py); every other value is the GPU's, and the
-- CPU backends run the same code.

-- | Most threads in one GPU block (CUDA's limit).
def max_block_threads : i64 = 1024

-- | Widest instance (limbs) of a block-level kernel: `max_block_threads`
-- threads of Q = 4 limbs.  Wider instances run per-row code.
def max_block_limbs : i64 = 4 * max_block_threads

-- | Threads per block that the block kernels of addition, subtraction,
-- negation, `add6` and multiplication by one limb aim for (several
-- instances per block at small widths).  Chosen when the kernels were
-- written; not re-measured since.
def add_block_threads : i64 = 256

-- | Whether addition, subtraction and negation run one row per task
-- instead of the block kernels: on a CPU the block kernels' intra-block
-- scans only cost (multicore, 2 cores, 2^26-bit batches, 2026-11-24:
-- blocks / rows 7.3 / 2.2 ms at 512 bits, 6.5 / 2.2 ms at 4096 bits).
def add_by_rows (cpu: bool) : bool = cpu

-- | Threads per block that convmul and the one-kernel `poly` aim for:
-- their blocks hold both operands and the products in shared memory.
-- H200, 2026-11-26, `mul_lo` / `mul_full` per 2^32-bit batch with 64,
-- 128, 256 and 512 threads: within 1-2% of each other from 2048 to 16384
-- bits (2048 bits: `mul_lo` 2258 / 2266 / 2274 / 2304, `mul_full` 6059 /
-- 6023 / 6103 / 6160; bench/results/h200-mul-block-shapes.json).
def mul_block_threads : i64 = 128

-- | Most instances per block that convmul's convolution phase interleaves
-- (mul.fut, `conv_interleave`): with them interleaved, the lanes of a warp
-- run pairs of about the same length (their loops no longer wait for the
-- longest), but read that many instances at one shared-memory bank.  H200,
-- 2026-11-28, us per 2^32-bit batch, threads of an instance consecutive /
-- all the block's instances interleaved (`futhark bench`,
-- bench/results/h200-convmul-order.log): `mul_lo` 2048 bits (16 instances
-- per block) 2254 / 5273, 4096 (8) 3743 / 5253, 8192 (4) 6716 / 5372,
-- 16384 (2) 10677 / 9726; `mul_full` 2048 (8) 5541 / 6199, 4096 (4) 9525 /
-- 6468, 8192 (2) 13224 / 11255.  Interleaved in groups of 2 or 4
-- (H100, 2026-12-07, copies of the block code): `mul_lo` 2048 bits 2477 /
-- 2481 against 2205 consecutive, 4096 bits groups of 4 3473 against 3859
-- (and 3237 all padded: `conv_interleave_padded_instances`).  On one
-- core (`c`, 2^24-bit batches, a shared machine) interleaving 4 cost about
-- 5%: `mul_lo` 8192 bits 27662 / 29054, `mul_full` 4096 bits 28684 /
-- 30483.
def conv_interleave_instances : i64 = 4

-- | Most instances per block that convmul's low halves interleave with
-- their rows staged `m + 1` limbs apart in shared memory (mul.fut,
-- `conv_pad_rows`, from `conv_interleave_instances + 1`), so that the rows
-- of consecutive instances start in consecutive banks.  H100, 2026-12-07,
-- copies of the block code (bench/results/h100-convmul-padded.log), us per
-- 2^32-bit batch: 4096 bits (8 a block) consecutive 3859, all interleaved
-- unpadded 5050, padded 3237; 2048 bits (16) consecutive 2205, padded in
-- groups of 8 2284.  Full products gained nothing from padding.
def conv_interleave_padded_instances : i64 = 8

-- | Whether classical multiplication (products and squares, low halves
-- and full) runs one instance per task by row loops (mul.fut's `mul_seq`,
-- `sqr_seq`) instead of the GPU's per-thread and convmul kernels: on a CPU
-- a 64x64->128-bit product per limb pair beats both the 28-bit digits and
-- convmul's 32-bit partial products (`c`, one core, 2026-12-07, us per
-- 2^17-bit batch, library / rows: `mul_lo` 4 limbs 381 / 81, 8 limbs 501
-- / 132, 32 limbs 1072 / 380; per 2^24-bit batch, 64 limbs 2396 / 763,
-- 256 limbs 7918 / 2989; `mul_full` 64 limbs 5120 / 1283, 256 limbs 12679
-- / 7673).  Per thread on the GPU the rows would sit in global memory.
def mul_by_rows (cpu: bool) : bool = cpu

-- | Widths (limbs) up to which `mul_lo` runs one instance per thread
-- (every multiple of 4 up to it has a kernel); convmul above.  H100,
-- 2026-11-27, us per 2^32-bit batch, the kernels alone, per thread on
-- 28-bit digits (mul.fut) / convmul: 1536 bits 843 / 2077, 1792 bits 944
-- / 2294, 2048 bits 1388 / 2293 (1536 and 1792 with digits cut at every
-- use, up to 10% faster than the kernels kept).  32 limbs is the widest
-- kernel: at 2048 bits it already uses all 255 registers.  The earlier
-- kernels on 64-bit limbs ran out of registers from 24 limbs (1536 bits
-- 5769 us).
def thread_mul_limbs : i64 = 32

-- | Widths (limbs) up to which `mul_full` runs one instance per thread;
-- convmul above.  H100, 2026-11-27, per thread / convmul: 1536 bits 1708
-- / 4977, 1792 bits 3955 / 5534, 2048 bits 6170 (128 bytes spilled) /
-- 5360.
def thread_mul_full_limbs : i64 = 28

-- The switches to the NTT.  An NTT product costs about the same for every
-- width that pads to one transform length (4m digits rounded up to a power
-- of two), a classical one grows with the width, so each switch lies inside
-- the octave where the two cross (docs/multiplication.md, the ladder's
-- table).  H200, classical / NTT: `mul_lo` 32768 bits 18683 / 19388,
-- 65536 bits 34644 / 22622; `mul_full` 8192 bits 14244 / 18395, 16384 bits
-- 22003 / 19942; `sqr_lo` 16384 bits 10658 / 14608, 32768 bits 18566 /
-- 15065.  On multicore (2 cores, 2^23-bit batches, noisy): `mul_lo` 32768
-- bits 36535 / 38336, 65536 bits 82083 / 56968; `mul_full` 16384 bits
-- 40275 / 54012, 32768 bits 73652 / 43797; `sqr_lo` 16384 bits 26299 /
-- 43460, 32768 bits 55086 / 36605.

-- | Log2 of the longest NTT (points) whose whole product or square runs
-- in one block kernel pair (ntt.fut: 1024 threads of 16 values, the first
-- operand's transform in a kernel of its own), on every backend;
-- transforms twice as long run as two rows of such blocks, longer ones
-- four-step (rows of at most 2^13 points).  H200, 2^32-bit batches,
-- through the library's entries, 13 / 14: 2^18-bit `a * b` 30772 / 26620
-- us, `fb.mul_full` 32649 / 28865 (2026-11-29); at 2^19 bits (four-step /
-- two rows of 2^14) 31429 / 31076 and 33503 / 33801 (2026-12-01).
-- Squares 25707 / 20741 at 2^18 bits (2026-11-26).  Multicore (2 cores,
-- 2^23-bit batches): 2^18-bit `mul` 71902 / 62313 us, `sqr_lo` 56067 /
-- 44125.  Earlier measurements (13 on the GPU while a 2^14-point product
-- kept three 64 KiB buffers; 12): docs/multiplication.md, "Why products
-- stay at 13 and squares take 14" and after.
def ntt_block_log : i64 = 14

-- | Widths (limbs) from which `mul_lo` multiplies by the NTT rather than
-- classically.  On the GPU where the classical time, linear in the width
-- between 256 and 512 limbs, passes the NTT's for 257-512 limbs (H200,
-- 2026-11-28, us per 2^32-bit batch: convmul 9726 at 256 limbs and 18580 at
-- 512, NTT 17147 at 512 limbs with its twiddles loaded once per pass; the
-- NTT's 19631 for 513-1024 limbs passes convmul at about 540).  On the CPU
-- (multicore, 2 cores, 2^23-bit batches, 2026-12-07, `python -m futbig
-- bench`, classical by row loops, `mul_by_rows`): classical / NTT 43075 /
-- 60139 us at 1024 limbs, 80617 / 83947 at 2048 (600 limbs while classical
-- was convmul, 2026-11-28).
def ntt_lo_limbs (cpu: bool) : i64 = if cpu then 2048 else 480

-- | Widths (limbs) from which `mul_full` multiplies by the NTT: classical
-- full products cost about twice the low half, the NTT's the same.  GPU
-- (H200, 2026-11-28): interleaved convmul 11255 us at 128 limbs and 20978
-- at 256, the NTT about 17700 for 129-256 limbs (its 2026-11-23 figure
-- less the 11% its twiddle loads saved at 512 limbs): they cross at
-- about 213.  CPU (as for `ntt_lo_limbs`, 2026-12-07): classical / NTT
-- 31338 / 48735 at 256 limbs, 61779 / 55199 at 512; classical grows
-- linearly, so they cross at about 450 (320 while classical was convmul).
def ntt_full_limbs (cpu: bool) : i64 = if cpu then 448 else 216

-- | Widths (limbs) from which `sqr_lo` squares by the NTT (one forward
-- transform per prime instead of two).  GPU (H200, 2026-12-02, classical
-- squares by the square's own convolutions, `sqr_lo_convmul`; a program of
-- its own, us per 2^32-bit batch with the operands' generation and a
-- checksum, classical / NTT): 512 limbs 10130 / 11672, 640 limbs 12206 /
-- 19597, 768 limbs 14248 / 16684, 1024 limbs 18336 / 12913; classical
-- grows about linearly, the NTT's square for 513-1024 limbs falls as
-- 1/m: they cross at about 850 (368 when classical squares were
-- products).  CPU (as for `ntt_lo_limbs`, 2026-12-07, classical by
-- `sqr_seq`): classical / NTT 26581 / 38864 at 1024 limbs, 60913 / 50114
-- at 2048: about 1792 (456 when the classical square was convmul's
-- product).
def ntt_sqr_lo_limbs (cpu: bool) : i64 = if cpu then 1792 else 848

-- | Widths (limbs) from which `sqr_full` squares by the NTT.  GPU (as for
-- `ntt_sqr_lo_limbs`, 2026-12-02, classical / NTT): 256 limbs 12051 /
-- 12952, 320 limbs 14938 / 19240, 384 limbs 16021 / 16710, 512 limbs
-- 19970 / 13491: they cross at about 410 (160 before).  CPU: not
-- measured since classical squares run `sqr_seq` (2026-12-07).
def ntt_sqr_full_limbs (cpu: bool) : i64 = if cpu then 272 else 408

-- | Instances (threads) per block of the per-thread multiplication
-- kernels.  H200, 2026-11-26, `mul_lo` with 64 / 128 / 256: 512 bits 440 /
-- 448 / 472 us, 1024 bits 1194 / 1201 / 1362 (64 within the spread).
def thread_mul_instances : i64 = 128

-- | Widest constant width (limbs) at which `mod_mul` and the Montgomery
-- product run one instance per thread in a block kernel (blocks.fut's
-- `thread_map`, results written out through shared memory) instead of a
-- map over the rows.  H100, 2026-11-26, 2^28-bit batches, us: 256-bit
-- `Montgomery.mul` 164 against 264, 512 bits 302 against 313; from 12
-- limbs the instances' arrays (kept in shared memory in a block kernel)
-- no longer fit a block of `thread_mul_instances`.
def mont_block_limbs : i64 = 8

-- | Widest instance (limbs) of the one-kernel `poly`: its block keeps about
-- 52 limbs per limb of the block in shared memory (416 bytes per thread),
-- so 256 threads (106 KiB) is the largest power of two that fits.
def poly_block_limbs : i64 = 1024

-- | Widths (limbs) up to which `divmod` divides by long division with one
-- instance per thread; wider ones go through Newton's reciprocal.  On the
-- GPU the crossover was measured (docs/division.md: per thread wins up to
-- 1024 limbs).  On a CPU long division is 2-8x faster up to 2^18 bits
-- (multicore), but quadratic; one instance with a half-width divisor
-- (2026-11-25, loaded machine, ms), long / reciprocal: c 2^19 bits 148 /
-- 610, 2^20 bits 615 / 822, 2^22 bits about 10000 (extrapolated) / 2600;
-- multicore 2^20 bits 398-518 / 199-547, 2^21 bits 1432-2043 / 1080-1410.
def thread_div_limbs (cpu: bool) : i64 = if cpu then 16384 else 1024

-- | Widths (limbs) above which a batch whose divisor lengths spread over
-- more than a quarter of the longest goes through the reciprocal even
-- within `thread_div_limbs`: on the GPU long division then diverges within
-- a warp (4096 bits, divisors of every length: 118 ms per thread against
-- 57 ms).  A CPU core does not diverge: never there (mixed batches through
-- the reciprocal were 9.5-20x a uniform batch on multicore).
def mixed_div_limbs (cpu: bool) : i64 = if cpu then i64.highest else 16

-- | Widths (limbs) up to which the division has a fixed-width per-thread
-- kernel (rows in thread-private arrays, no transposes): fixed-width / map
-- over rows, 512 bits 1800 / 3949, 2048 bits 6189 / 4878, 4096 bits
-- 14265 / 7110 (wider scratch no longer fits the cache).
def fixed_div_limbs : i64 = 16

-- | Widths (limbs) up to which the fixed-width division can keep
-- everything in registers (every index a constant, operands moved so that
-- the divisor's top limb is fixed): 512 bits 1342 against 1821.
def register_div_limbs : i64 = 8

-- | Whether the fixed-width division keeps everything in registers
-- (`register_div_limbs`).  Not on a CPU: there the unrolled, branch-heavy
-- code made 512-bit divisions 3x slower than 1024-bit ones on multicore
-- (docs/division.md).
def div_in_registers (cpu: bool) : bool = !cpu

-- | Instances (threads) per block of the fixed-width division kernels:
-- their quotient and remainder rows (at most `fixed_div_limbs`) pass
-- through shared memory, at most 32 KiB per block.
def thread_div_instances : i64 = 128

-- | Quotient limbs per pass of long division over the partial remainder,
-- by width (limbs): one up to 32, four up to 64, eight above.  More per
-- pass cut the traffic to the partial remainder (global memory) and cost
-- an extra small division per pass: four / eight, 8192 bits 7792 / 7187.
def div_limbs_per_pass (m: i64) : i64 = if m <= 32 then 1 else if m <= 64 then 4 else 8

-- | Whether `div_limb` divides each instance by a loop over its limbs (one
-- thread each, two products per limb) rather than by a scan over all limbs
-- (parallel within an instance, but about four 64-bit divisions per limb):
-- always on a CPU (c, 4096 bits: 2983 us by loops of `divmod` against 9093
-- by the scan, 2026-11-24); on the GPU from 2048 instances, where the
-- batch alone fills the device enough.  H100, 2026-11-25, us per batch,
-- loop / scan: 4096 instances 77 / 104 (4096 bits), 708 / 1194 (65536
-- bits); 1024 instances of 2^18 bits 2379 / 1291; 16384 instances of 2^18
-- bits 3657 / 18674; 256 of 65536 bits 433 / 115 (docs/division.md).
def div_limb_loops (cpu: bool) (n: i64) : bool = cpu || n >= 1 << 11

-- | Rows sampled to decide whether divisor lengths are mixed: the choice
-- only decides the speed (both algorithms are exact); 2048 bits, over all
-- rows 0.43 ms, as a segmented reduction over all limbs 1.1 ms.
def mixed_div_samples : i64 = 4096

-- | Largest window (bits) of `powmod`: its table holds `2^w` values per
-- instance (per thread); 6 keeps 4096-bit tables at 32 KiB, and the
-- next window would save under 5% of the products at 4096 bits.
def max_window_bits : i64 = 6

-- | Widths (limbs) from which `mod_mul`, `to_mont`, `from_mont` and
-- `mont_mul` of odd moduli multiply whole batches by the multiplication
-- ladder instead of one instance per thread (`mod_mul` only above
-- `fixed_mont_limbs`, `mont_mul` except at 4, 8, 16 and 32 limbs: their
-- kernels of constant width come first).  H200, 2026-11-26, `mod_mul`
-- per 2^26-bit batch, per thread / batch-level: 1024 bits 585 / 977 us,
-- 2048 bits 1429 / 1237, 4096 bits 5641 / 2186 (H100, 2026-11-25, before
-- the per-thread map had its attribute, modular.fut's `per_thread`: 1669
-- / 2991, 89551 / 3366, 308758 / 5368 per 2^28-bit batch).  The switch
-- lies between 1024 and 2048 bits, not measured inside (20 limbs, where
-- the per-thread multiplication kernels end); never on a CPU, where one
-- instance per thread keeps its rows in cache.
def mont_batch_limbs (cpu: bool) : i64 = if cpu then i64.highest else 20

-- | Widths (limbs) from which `powmod` of odd moduli runs its windows as
-- batch-level products.  H100, 2026-11-25, powers per second (2^28-bit
-- batches, exponents as wide as the modulus), per thread / batch-level:
-- 1024 bits 570 K / 187 K, 2048 bits 31.8 K / 42.5 K, 4096 bits 2.33 K /
-- 7.35 K; between 1024 and 2048 bits not measured.  Per thread at 2048
-- and 4096 bits then ran a version with one block per instance
-- (modular.fut's `per_thread`); without it (H200, 2026-11-26, 2^26-bit
-- batches, ms per batch, per thread / batch-level): 2048 bits 638 / 793,
-- 4096 bits 6331 / 2280.  Not re-decided at 2^28-bit batches.  Never on
-- a CPU.
def pow_batch_limbs (cpu: bool) : i64 = if cpu then i64.highest else 32

-- | Widths (limbs) up to which `powmod` and `mod_mul` of odd moduli run
-- one instance per thread at a constant width (modular.fut's
-- `odd_fixed`, rows in registers), on every backend and ahead of the
-- batch-level route (so `mont_batch_limbs` and `pow_batch_limbs` take
-- effect above it).  `powmod`: H100,
-- 2026-11-26, `futhark bench`, 2^26-bit batches, shared modulus and
-- full-width exponent, ms per batch, constant width / width known at run
-- time: 512 bits 14.6 / 37.3, 1024 bits 55.4 / 157.7, 2048 bits 217.7 /
-- 995.4 (batch-level at 2048 bits on an H200: 793).  `mod_mul`: H100,
-- 2026-11-26, 2^28-bit batches, shared modulus, us per batch, constant
-- width / batch-level / run-time width per thread: 1024 bits 1115 / 3133
-- / 1518, 2048 bits 1574 / 3595 / 3717 (batch-level still with the
-- filter for even moduli, 250-520 us of it).  Wider kernels (64 limbs)
-- not measured.
def fixed_mont_limbs : i64 = 32

-- | Widths (limbs) up to which `modinv` runs at a constant width (4, 8,
-- 16, 32 or 64 limbs; narrower instances zero-extended to the next).
-- H100, 2026-11-26, `futhark bench`, 2^28-bit batches, shared odd
-- modulus, us per batch, constant width / width known at run time: 256
-- bits 1956 / 4144, 1024 bits 4280 / 34931, 2048 bits 38007 / 134956,
-- 4096 bits 81428 / 360280.
def fixed_inverse_limbs : i64 = 64

-- | Widths (limbs) from which `modinv` runs its division steps for every
-- instance (on 3 where the modulus is even or 1) rather than under a branch
-- on the modulus, which keeps all of an instance in one kernel (modular.fut's
-- `modinv_rows`).  H100, 2026-11-27, `futhark bench`, 2^28-bit batches, one
-- shared odd modulus an input, us per batch, under a branch / for every
-- instance: 256 bits 2015 / 2749, 512 bits 2929 / 3276, 1024 bits 4337 /
-- 5182, 2048 bits 38209 / 16174, 4096 bits 81501 / 32063.
def inverse_split_limbs : i64 = 32

-- | Most limbs of the table of the batch-level `powmod` (`2^w` rows of
-- the whole batch): 2^28 limbs (2 GiB) keeps a 6-bit window for batches of
-- up to 2^22 limbs (2^28 bits per operand) and narrows it for larger ones.
def batch_table_limbs : i64 = 1 << 28
