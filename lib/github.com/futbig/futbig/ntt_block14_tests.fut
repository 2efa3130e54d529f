-- | The NTT's products in blocks of 2^14 points (1024 threads of 16
-- values), beside ntt_tests.fut.  Such a product's kernel needs three
-- 64 KiB buffers of shared memory (192 KiB of the 227 KiB of an H100 or
-- H200 block) since its two forward transforms run one after the other
-- (`after` in ntt.fut); with four it did not launch (2026-11-25).

import "ntt_tests"

-- One limb step above 2^13-point blocks, below, at and at the widest
-- width of 2^14-point blocks (2052 to 4096 limbs), in every operand kind
-- but zeros: (kind, seed, n, m, bits).
-- ==
-- entry: test_products_block14
-- input { 0i64 38u64 3i64 2052i64 131328i64 } output { true }
-- input { 0i64 39u64 2i64 4092i64 261800i64 } output { true }
-- input { 0i64 40u64 2i64 4096i64 262144i64 } output { true }
-- input { 1i64 41u64 2i64 4096i64 262144i64 } output { true }
-- input { 3i64 42u64 2i64 4096i64 262100i64 } output { true }

-- | `check_products` with blocks of up to 2^14 points.
entry test_products_block14 (kind: i64) (seed: u64) (n: i64) (m: i64) (bits: i64) : bool =
  let (a, b) = operands kind seed n m bits
  in check_products 14 bits a b
