/* internal/force_inline.h — BSYNC_FORCE_INLINE: ask the compiler to inline a small hot function even
 * where it has several call sites (gcc and clang otherwise keep one out-of-line copy of the per-joint
 * blend and of the normalisation, and the call costs more than the work around it). Only a hint:
 * other compilers get plain `inline`, and results never depend on it. Not a public header. */
#ifndef BLENDSYNC_INTERNAL_FORCE_INLINE_H
#define BLENDSYNC_INTERNAL_FORCE_INLINE_H

#if defined(__GNUC__) || defined(__clang__)
#define BSYNC_FORCE_INLINE inline __attribute__((always_inline))
#else
#define BSYNC_FORCE_INLINE inline
#endif

#endif
