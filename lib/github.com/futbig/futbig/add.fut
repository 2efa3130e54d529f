-- | Addition, subtraction and negation of batches of big integers with the
-- carry-propagation scan *badd* (thesis sec. 7.1, eq. 13-17).
--
-- A carry is a `u32` with three indicator bits: bit 0 "overflow" (a carry
-- leaves this position), bit 1 "all ones" (a carry entering this position
-- passes through), bit 2 "segment start" (only in the segmented scan).

import "limbs"
import "blocks"
import "thresholds"

-- | Augmented carry of one position.
type carry = u32

-- | Neutral element of `carry_op`: no carry, passes carries through.
def carry_none : carry = 2

-- | An incoming carry of one (used as carry-in: `x + y + 1`).
def carry_one : carry = 1

-- | Associative carry-propagation operator (eq. 14).
def carry_op (x: carry) (y: carry) : carry =
  (((x & (y >> 1)) | y) & 1) | (x & y & 2)

-- | Segmented carry-propagation operator (eq. 17): bit 2 of `y` marks the
-- start of a segment, where the prefix from the left is discarded.
def seg_carry_op (x: carry) (y: carry) : carry =
  let yf = y & 4
  in (x & 4) | yf | (if yf != 0 then y & 3 else carry_op (x & 3) (y & 3))

-- | Augmented carry of the limb sum `r = x + y` (eq. 13).
def carry_of_sum (x: u64) (r: u64) : carry =
  u32.bool (r < x) | (u32.bool (r == u64.highest) << 1)

-- | Block-level *badd* with Q = 4 (thesis Listing 5) on quads held by the
-- `g` threads of a block, where every `seg` consecutive threads form one
-- instance (segmented scan); thread `i` adds `xq i` and `yq i`.  `cin` is
-- `carry_none` or `carry_one`.  Each thread adds its four limbs and scans
-- their carries in registers; the per-thread carries are scanned across the
-- block; each thread then distributes the carry entering it over its limbs.
-- The limb sums and the four 2-bit carries (packed in one `u32`) pass the
-- block scan through shared memory in thread-major arrays (conflict-free),
-- so the operands are read only once.  `finish i w cout` maps thread `i`'s
-- result quad, where `cout` is the carry out of its top limb.
def add_quads_with 'a (g: i64) (seg: i64) (cin: carry)
                      (finish: i64 -> quad -> bool -> a)
                      (xq: i64 -> quad) (yq: i64 -> quad) : [g]a =
  let (accs, sums, packed) =
    tabulate g (\i ->
                  let (x0, x1, x2, x3) = xq i
                  let (y0, y1, y2, y3) = yq i
                  let w = (x0 + y0, x1 + y1, x2 + y2, x3 + y3)
                  let (c0, c1, c2, c3) = ( carry_of_sum x0 w.0, carry_of_sum x1 w.1
                                         , carry_of_sum x2 w.2, carry_of_sum x3 w.3 )
                  let start = rem32 i seg == 0
                  let acc = carry_op (carry_op (carry_op (carry_op (if start then cin else carry_none)
                                                                   c0) c1) c2) c3
                  in ( if start then acc | 4 else acc, w
                     , c0 | (c1 << 2) | (c2 << 4) | (c3 << 6) ))
    |> unzip3
  -- One instance per block (the widest numbers) needs no segments.
  let scanned = if seg == g then scan carry_op carry_none accs
                else scan seg_carry_op carry_none accs
  in tabulate g (\i ->
                   -- The predecessor index is only read when i > 0.
                   let p0 = if rem32 i seg == 0 then cin else #[unsafe] scanned[i-1] & 3
                   let (w0, w1, w2, w3) = sums[i]
                   let cs = packed[i]
                   let p1 = carry_op p0 (cs & 3)
                   let p2 = carry_op p1 ((cs >> 2) & 3)
                   let p3 = carry_op p2 ((cs >> 4) & 3)
                   let bit (p: carry) = u64.u32 (p & 1)
                   in finish i (w0 + bit p0, w1 + bit p1, w2 + bit p2, w3 + bit p3)
                             (carry_op p3 (cs >> 6) & 1 == 1))

-- | Bitwise complement of a quad.
def not_quad ((x0, x1, x2, x3): quad) : quad = (!x0, !x1, !x2, !x3)

-- | Masks the result quad of thread `i` (instance width `m`) to `bits` and
-- yields its contribution to the instance's flag: bit `bits` of the sum (for
-- `bits = 64*m`, the carry out of the top limb), inverted if `invert`.
def mask_and_flag (bits: i64) (m: i64) (invert: bool)
                  (i: i64) (w: quad) (cout: bool) : (quad, u8) =
  let l = rem32 (4 * i) m
  let t = bits / 64
  let r = u64.i64 (bits % 64)
  let pick (k: i64) = match k case 0 -> w.0 case 1 -> w.1 case 2 -> w.2 case _ -> w.3
  let flag =
    if t < m then (if l <= t && t < l + 4 then u8.u64 ((pick (t - l) >> r) & 1) else 0)
    else if l + 4 == m then u8.bool (cout != invert)
    else 0
  let mk (k: i64) (v: u64) = mask_limb bits (l + k) v
  in ((mk 0 w.0, mk 1 w.1, mk 2 w.2, mk 3 w.3), flag)

-- | Thread (within an instance) whose `mask_and_flag` yields the flag.
def flag_thread (bits: i64) (m: i64) : i64 =
  i64.min (bits / 64) (m - 1) / 4

-- | `opx a + opy b + cin` on blocks of instances (width m <=
-- `max_block_limbs`), where `opx` and `opy` transform quads; results masked
-- to `bits`, flags from `mask_and_flag`.
local def addsub_blocks [n][m] (bits: i64) (invert: bool) (cin: carry)
                               (opx: quad -> quad) (opy: quad -> quad)
                               (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) =
  let ipb = instances_per_block add_block_threads m
  let seg = m / 4
  let g = ipb * seg
  -- `opaque` keeps flat indices flat (no division by m per read).
  let af = opaque (flatten a)
  let bf = opaque (flatten b)
  let ft = flag_thread bits m
  let (ws, fs) =
    unzip (block_map (num_blocks n ipb)
             (\blk ->
                let off = blk * (ipb * m)
                let (rs, contribs) =
                  add_quads_with g seg cin (mask_and_flag bits m invert)
                                 (\i -> opx (quad_from af (off + 4*i)))
                                 (\i -> opy (quad_from bf (off + 4*i)))
                  |> unzip
                in (store_quads rs :> [ipb*m]u64,
                    tabulate ipb (\s -> #[unsafe] contribs[s * seg + ft]))))
  in (unblock n m ws, unblock_values n fs)

-- | `x + y + cin` on one instance with a flat scan (any width); returns the
-- sum modulo `2^(64*m)` and the carry out of the top limb.
def add_row [m] (cin: carry) (xs: [m]u64) (ys: [m]u64) : ([m]u64, bool) =
  let cs = map2 (\x y -> carry_of_sum x (x + y)) xs ys
  let incl = scan carry_op carry_none cs
  let ws = tabulate m (\i -> let p = if i == 0 then cin else carry_op cin incl[i-1]
                             in xs[i] + ys[i] + u64.u32 (p & 1))
  in (ws, m > 0 && carry_op cin (last incl) & 1 == 1)

-- | The flag of `add_row` as in `mask_and_flag`.
local def row_flag [m] (bits: i64) (invert: bool) (ws: [m]u64) (cout: bool) : u8 =
  let t = bits / 64
  in if t < m then u8.u64 ((ws[t] >> u64.i64 (bits % 64)) & 1)
     else u8.bool (cout != invert)

local def addsub_rows [n][m] (bits: i64) (invert: bool) (cin: carry)
                             (opx: u64 -> u64) (opy: u64 -> u64)
                             (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) =
  map2 (\x y -> let (ws, cout) = add_row cin (map opx x) (map opy y)
                in (mask_row bits ws, row_flag bits invert ws cout))
       a b
  |> unzip

-- `opx a + opy b + cin`, with `opx`/`opy` given per quad and per limb:
-- block kernels on the GPU up to `max_block_limbs`, rows otherwise.
local def addsub [n][m] (cpu: bool) (bits: i64) (invert: bool) (cin: carry)
                        (opx: (quad -> quad, u64 -> u64)) (opy: (quad -> quad, u64 -> u64))
                        (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) =
  if m <= max_block_limbs && !(add_by_rows cpu)
  then addsub_blocks bits invert cin opx.0 opy.0 a b
  else addsub_rows bits invert cin opx.1 opy.1 a b

local def keep = (id, id)
local def complement = (not_quad, \(x: u64) -> !x)
local def zero = (const zero_quad, const 0u64)

-- | `(a + b mod 2^bits, carry)` with carry = 1 iff `a + b >= 2^bits`.
-- `cpu` is true on the `c` and `multicore` backends (thresholds.fut).
def add [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) =
  addsub cpu bits false carry_none keep keep a b

-- | `(a - b mod 2^bits, borrow)` with borrow = 1 iff `a < b`.
def sub [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) (b: [n][m]u64) : ([n][m]u64, [n]u8) =
  addsub cpu bits true carry_one keep complement a b

-- | `-a mod 2^bits`, computed as `0 + ~a + 1` (the first operand is not read).
def neg [n][m] (cpu: bool) (bits: i64) (a: [n][m]u64) : [n][m]u64 =
  (addsub cpu bits true carry_one zero complement a a).0
