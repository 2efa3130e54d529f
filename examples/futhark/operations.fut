-- futbig's batched operations called from a Futhark program: a batch is
-- `[n][m]u64`, n numbers of m little-endian 64-bit limbs (m a multiple of 4),
-- and `bits` reduces results modulo 2^bits.

import "lib/github.com/futbig/futbig/add"
import "lib/github.com/futbig/futbig/mul"
import "lib/github.com/futbig/futbig/div"
import "lib/github.com/futbig/futbig/fused"

-- `cpu`: true when compiled with the c or multicore backend, false for cuda
-- (the kernels are laid out differently).
def cpu = false

-- | For 256-bit numbers (4 limbs): `(a + b, a * b, a / b, a % b, 6a + 10b,
-- (a*a + b) * (b*b + b) + a*b)`, all modulo 2^256.
def operations [n] (a: [n][4]u64) (b: [n][4]u64) =
  let (sum, _carry) = add cpu 256 a b    -- carry[i] = 1 where a + b overflowed
  let product = mul_lo cpu 256 a b       -- the low half; mul_full: all 8 limbs
  let (q, r, _zero) = divmod cpu 0 a b   -- method 0: the library picks; zero[i] = 1 where b = 0
  in (sum, product, q, r, add6 256 a b, poly cpu 256 a b)

-- ==
-- entry: test_operations
-- input { [[7u64, 0u64, 0u64, 1u64]] [[2u64, 0u64, 0u64, 0u64]] }
-- output { [[9u64, 0u64, 0u64, 1u64]] [[14u64, 0u64, 0u64, 2u64]]
--          [[3u64, 0u64, 0x8000000000000000u64, 0u64]] [[1u64, 0u64, 0u64, 0u64]]
--          [[62u64, 0u64, 0u64, 6u64]] [[320u64, 0u64, 0u64, 86u64]] }
entry test_operations [n] (a: [n][4]u64) (b: [n][4]u64) = operations a b
