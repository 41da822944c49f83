/*
 * bench/ukernel_code.h - a user kernel made callable: the harness's frame
 * (bench/uk_frame.asm) around its init and `unroll` copies of its body,
 * written into executable memory the platform provides (platform/guard.h).
 * The register contract is in docs/kernels.md.
 */
#ifndef PMUBOOT_BENCH_UKERNEL_CODE_H
#define PMUBOOT_BENCH_UKERNEL_CODE_H

#include "bench/ukernel.h"

/* Bytes the code of k takes with `unroll` copies: prologue, init, padding, loop, epilogue. */
size_t ukernel_code_size(const struct ukernel *k, unsigned unroll);

/*
 * Write the code into out (cap bytes, 64-byte aligned).  Returns its
 * length, or 0 when it does not fit.  *loop_off and *loop_len (optional)
 * receive where the unrolled copies lie, for a fault's offset.
 */
size_t ukernel_code_write(const struct ukernel *k, unsigned unroll, uint8_t *out, size_t cap, size_t *loop_off,
			  size_t *loop_len);

#endif
