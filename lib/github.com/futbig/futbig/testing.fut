-- | Helpers for the self-checking tests: deterministic test inputs and
-- simple sequential reference algorithms to compare the kernels against.

import "limbs"

-- | SplitMix64 finaliser, a good 64-bit mixing function.
def mix (x: u64) : u64 =
  let z = x + 0x9e3779b97f4a7c15
  let z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
  let z = (z ^ (z >> 27)) * 0x94d049bb133111eb
  in z ^ (z >> 31)

-- | A batch of `n` numbers below `2^bits` in `m` limbs.  Instances cycle
-- through kinds that stress carries: uniform limbs, limbs from
-- {0, 1, max-1, max}, all ones, and sparse numbers.
def gen (seed: u64) (n: i64) (m: i64) (bits: i64) : [n][m]u64 =
  tabulate_2d n m (\i j ->
    let h = mix (seed ^ mix (u64.i64 i * 0x10001 + u64.i64 j * 0x3fb + 7))
    let kind = mix (seed + u64.i64 i) % 5
    let v = match kind
            case 0 -> h
            case 1 -> (match h % 4 case 0 -> 0 case 1 -> 1
                                    case 2 -> u64.highest - 1 case _ -> u64.highest)
            case 2 -> u64.highest
            case 3 -> if h % 7 == 0 then h >> (h % 64) else 0
            case _ -> if j == 0 then h else if h % 3 == 0 then u64.highest else h
    in mask_limb bits j v)

-- | Per-instance shift counts in `[0, 64*m + 70)`.
def gen_counts (seed: u64) (n: i64) (m: i64) : [n]i64 =
  tabulate n (\i -> i64.u64 (mix (seed + u64.i64 i) % u64.i64 (64 * m + 70)))

-- | Sequential `x + y + cin` with carry out.
def ref_add [m] (cin: u64) (x: [m]u64) (y: [m]u64) : ([m]u64, u64) =
  loop (ws, c) = (replicate m 0, cin) for i < m do
    let s = x[i] + y[i]
    let s2 = s + c
    in (ws with [i] = s2, u64.bool (s < x[i]) + u64.bool (s2 < s))

-- | Sequential `x - y` with borrow out.
def ref_sub [m] (x: [m]u64) (y: [m]u64) : ([m]u64, u64) =
  loop (ws, b) = (replicate m 0, 0) for i < m do
    let d = x[i] - y[i]
    let d2 = d - b
    in (ws with [i] = d2, u64.bool (y[i] > x[i]) + u64.bool (b > d))

-- | Bit `k` of a number given as limbs (0 beyond them).
def bit_at [m] (x: [m]u64) (k: i64) : u64 =
  if k / 64 < m then (x[k / 64] >> u64.i64 (k % 64)) & 1 else 0

-- | Sequential schoolbook product, all `2m` limbs.
def ref_mul [m] (x: [m]u64) (y: [m]u64) : [m*2]u64 =
  loop ws = replicate (m*2) 0 for i < m do
    let (ws, c) =
      loop (ws, c) = (ws, 0u64) for j < m do
        let lo = x[i] * y[j]
        let hi = u64.mul_hi x[i] y[j]
        let s = ws[i+j] + lo
        let hi = hi + u64.bool (s < lo)
        let s2 = s + c
        let hi = hi + u64.bool (s2 < c)
        in (ws with [i+j] = s2, hi)
    in ws with [i+m] = c

-- | Sequential product by one limb: `m` low limbs and the top limb.
def ref_mul_limb [m] (x: [m]u64) (d: u64) : ([m]u64, u64) =
  loop (ws, c) = (replicate m 0, 0u64) for i < m do
    let lo = x[i] * d
    let s = lo + c
    in (ws with [i] = s, u64.mul_hi x[i] d + u64.bool (s < lo))

-- | Row-wise equality of two batches.
def all_eq [n][m] (x: [n][m]u64) (y: [n][m]u64) : bool =
  and (map2 (\a b -> and (map2 (==) a b)) x y)
