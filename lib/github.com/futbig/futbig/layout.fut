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

-- | `n` rows of `m` zero limbs: a destination for `place`.
def zero_rows (n: i64) (m: i64) : *[n][m]u64 =
  replicate n (replicate m 0)

-- | `dst` with rows `offset .. offset+k-1` replaced by the rows of `src`,
-- written in place (`dst` is consumed).  Joining k arrays by placing each
-- into one destination copies every row once, where k-1 pairwise `concat`s
-- copy the first rows k-1 times.  Callers guarantee `0 <= offset` and
-- `offset + k <= N`.
def place [N][k][m] (dst: *[N][m]u64) (offset: i64) (src: [k][m]u64) : *[N][m]u64 =
  dst with [offset:offset+k] = src

-- | Each `xs[i]` as row `i` of `m` limbs (limb 0, the rest zero; `m >= 1`):
-- a one-limb result, such as the remainder by one limb, at a batch's width.
def limb_rows [n] (m: i64) (xs: [n]u64) : [n][m]u64 =
  map (\x -> tabulate m (\j -> if j == 0 then x else 0)) xs
