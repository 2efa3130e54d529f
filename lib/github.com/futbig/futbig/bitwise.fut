-- | Bitwise operations on batches of big integers (limb-wise maps).

import "limbs"

-- | Limb-wise `&`.
def bit_and [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = map2 (map2 (&)) a b

-- | Limb-wise `|`.
def bit_or [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = map2 (map2 (|)) a b

-- | Limb-wise `^`.
def bit_xor [n][m] (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 = map2 (map2 (^)) a b

-- | `2^bits - 1 - a`: the complement of the low `bits` bits.
def bit_not [n][m] (bits: i64) (a: [n][m]u64) : [n][m]u64 =
  map (\x -> map2 (\i v -> mask_limb bits i (!v)) (iota m) x) a
