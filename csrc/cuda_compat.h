/* Forced into the generated CUDA C (gcc -include) when CUDA >= 13.
 *
 * Futhark 0.25.27 emits cuCtxCreate(&ctx, flags, dev); CUDA 13 made
 * cuCtxCreate the 4-argument cuCtxCreate_v4(pctx, params, flags, dev).
 * _GNU_SOURCE must come before any system header, or clock_gettime
 * disappears under -std=c99. */
#ifndef FUTBIG_CUDA_COMPAT_H
#define FUTBIG_CUDA_COMPAT_H
#define _GNU_SOURCE
#include <cuda.h>
#if CUDA_VERSION >= 13000
#undef cuCtxCreate
#define cuCtxCreate(pctx, flags, dev) cuCtxCreate_v4((pctx), NULL, (flags), (dev))
#endif
#endif
