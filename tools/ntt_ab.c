// Kernel-level A/B of NTT product variants on the GPU machine (docs/multiplication.md,
// "Registers"): times the entry `mul13 sq a b` of a program generated here with
// `futhark cuda --library` from
//
//   import "../lib/github.com/futbig/futbig/ntt"
//   entry mul13 [n][m] (sq: bool) (a: [n][m]u64) (b: [n][m]u64) : [n][m]u64 =
//     mul_lo_ntt_with 13 sq (64*m) a b
//
// on a 2^log_total-bit batch of random operands, and prints the min and median
// of `reps` runs in us and a checksum of the result, to compare variants. There
// (the flags of tools/gpu_run.sh's futhark_cuda, -include csrc/cuda_compat.h):
//   gcc -c v.c && gcc -DHEADER='"v.h"' tools/ntt_ab.c v.o -lcuda -lcudart -lnvrtc -lm -o v
//   ./v log_total bits square reps cache_file label     (NVRTC_OPT: one more NVRTC option)
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <time.h>
#include HEADER
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return (x > y) - (x < y); }
#define CHECK(e) do { if (e) { char *m = futhark_context_get_error(ctx); fprintf(stderr, "error: %s\n", m); exit(1); } } while (0)
int main(int argc, char **argv) {
  if (argc != 7) { fprintf(stderr, "usage: %s log_total bits square reps cache_file label\n", argv[0]); return 2; }
  int log_total = atoi(argv[1]); long bits = atol(argv[2]); bool sq = atoi(argv[3]); int reps = atoi(argv[4]);
  long m = bits / 64, n = (1L << log_total) / bits;
  struct futhark_context_config *cfg = futhark_context_config_new();
  futhark_context_config_set_cache_file(cfg, argv[5]);
  if (getenv("NVRTC_OPT") && *getenv("NVRTC_OPT")) futhark_context_config_add_nvrtc_option(cfg, getenv("NVRTC_OPT"));
  struct futhark_context *ctx = futhark_context_new(cfg);
  char *err = futhark_context_get_error(ctx); if (err) { fprintf(stderr, "ctx: %s\n", err); return 1; }
  uint64_t *h = malloc(sizeof(uint64_t) * n * m), s = 0x9E3779B97F4A7C15ull ^ bits;
  for (long i = 0; i < n * m; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; h[i] = s; }
  struct futhark_u64_2d *a = futhark_new_u64_2d(ctx, h, n, m);
  for (long i = 0; i < n * m; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; h[i] = s; }
  struct futhark_u64_2d *b = futhark_new_u64_2d(ctx, h, n, m);
  struct futhark_u64_2d *out;
  CHECK(futhark_entry_mul13(ctx, &out, sq, a, sq ? a : b)); CHECK(futhark_context_sync(ctx));
  CHECK(futhark_values_u64_2d(ctx, out, h)); CHECK(futhark_context_sync(ctx));
  uint64_t sum = 0; for (long i = 0; i < n * m; i++) sum = sum * 31 + h[i];
  futhark_free_u64_2d(ctx, out);
  double *t = malloc(sizeof(double) * reps);
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    CHECK(futhark_entry_mul13(ctx, &out, sq, a, sq ? a : b)); CHECK(futhark_context_sync(ctx));
    t[r] = now_us() - t0; futhark_free_u64_2d(ctx, out);
  }
  qsort(t, reps, sizeof(double), cmp);
  printf("%s bits %ld n %ld sq %d: min %.0f median %.0f us checksum %016llx\n", argv[6], bits, n, sq, t[0], t[reps / 2], (unsigned long long)sum);
  return 0;
}
