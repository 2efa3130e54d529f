-- | Per-instance flags (`[n]u8`, nonzero = set) summarised on the device,
-- so that checking a batch for errors copies two scalars to the host
-- instead of the whole flag vector.

-- | The index of the first set flag (-1 if none) and the number of set
-- flags.
def summary [n] (flags: [n]u8) : (i64, i64) =
  let first = reduce i64.min n (map2 (\i f -> if f != 0 then i else n) (iota n) flags)
  let count = i64.sum (map (\f -> i64.bool (f != 0)) flags)
  in (if first == n then -1 else first, count)
