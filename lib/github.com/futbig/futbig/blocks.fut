-- | The two kernel skeletons every batched operation is built from.
--
-- `block_map` runs one GPU block per group of instances: its body is
-- block-local parallel code (threads of Q = 4 limbs, shared memory).
-- `thread_map` runs one instance per GPU thread, `ipb` instances a block,
-- with each thread's results in registers and the block's rows written out
-- through shared memory with coalesced stores.  Both return their results
-- per block, as flat rows, and `unblock` cuts them back to `[n][w]`.
--
-- The map over blocks carries `#[incremental_flattening(only_intra)]` (the
-- bare `#[only_intra]` is ignored by Futhark 0.25): it makes the block
-- kernel the only GPU version.  Otherwise the compiler also emits a version
-- where each thread runs a whole block sequentially, picked by its
-- threshold whenever there are >= 2^15 blocks (every 2^32-bit batch): about
-- 10x slower, and it computed wrong `add6` results at 16384 bits on CUDA;
-- and a flat fallback, picked when an inner map (such as the `ipb` flags of
-- `add`) has fewer than 32 elements: about 3x slower.

-- | Number of blocks of `ipb` instances needed for `n` instances.
def num_blocks (n: i64) (ipb: i64) : i64 = (n + ipb - 1) / ipb

-- | One GPU block per call `body blk`, `blk < nb`: a block kernel whose
-- body is block-local parallel code.
def block_map 'b (nb: i64) (body: i64 -> b) : [nb]b =
  #[incremental_flattening(only_intra)]
  map body (iota nb)

-- | The first `n` rows of per-block results that hold `ipb` rows of `w`
-- limbs each, row after row.  Inlined: kept as a function, the compiler
-- copies its result.
#[inline]
def unblock [nb][k] (n: i64) (w: i64) (xs: [nb][k]u64) : [n][w]u64 =
  flatten xs |> take (n*w) |> unflatten

-- | The first `n` per-instance values of per-block results.
#[inline]
def unblock_values 'e [nb][ipb] (n: i64) (xs: [nb][ipb]e) : [n]e =
  flatten xs |> take n

-- | One instance per thread, `ipb` instances (threads) per block: `pack`
-- turns the `ipb` results of `instance` in a block (each thread's in
-- registers) into the block's output, e.g. its rows flattened.  `instance`
-- gets its row index as a function to call at every use: bound once
-- before the instance's loops, the compiler computes the index in a pass
-- of its own through shared memory.  Threads past the last instance
-- compute instance 0 (blocks exist only for `n > 0`) and their results
-- are cut off by `unblock`: unconditional reads let the compiler read each
-- limb once.  The widths `instance` uses must be constants for its arrays
-- to stay in registers.
def thread_map 'r 'b (n: i64) (ipb: i64) (instance: (() -> i64) -> r) (pack: [ipb]r -> b)
                     : [num_blocks n ipb]b =
  block_map (num_blocks n ipb)
            (\blk -> pack (tabulate ipb (\s -> instance (\() -> let r = blk * ipb + s
                                                              in if r < n then r else 0))))
