-- | Moving whole rows (instances) around on the device, for the Python
-- array type: indexing, concatenation and changing the storage width.
-- Nothing here does arithmetic; every row keeps the invariant that its bits
-- at positions >= `bits` are zero.

import "limbs"

-- | Rows `idx` of `xs`, in that order (repeats allowed, so gathering row 0
-- `n` times broadcasts it).  Callers guarantee `0 <= idx[i] < n`.
def gather [n][m][k] (xs: [n][m]u64) (idx: [k]i64) : [k][m]u64 =
  map (\i -> #[unsafe] xs[i]) idx

-- | The rows of `xs` followed by the rows of `ys`.
def concat [n][k][m] (xs: [n][m]u64) (ys: [k][m]u64) : [][m]u64 =
  xs ++ ys

-- | Every row zero-extended or truncated to `m2` limbs and reduced modulo
-- `2^bits` (`bits <= 64*m2`).
def resize [n][m] (bits: i64) (m2: i64) (xs: [n][m]u64) : [n][m2]u64 =
  map (\row -> tabulate m2 (\j -> if j < m then mask_limb bits j (#[unsafe] row[j]) else 0)) xs
