// The matrix products of the runtime: OpenBLAS, loaded when first needed
// rather than linked, so that its CPU kernels can be chosen first.
//
// OpenBLAS picks its kernels once, when it loads, from a table of the CPU
// models it knew when it was built: Debian's 0.3.21 takes a newer CPU for
// a Prescott and runs SSE3 kernels on it, 6x slower than its AVX-512 ones.
// It honours OPENBLAS_CORETYPE, read at that moment, so `blas_load` sets it
// from what the CPU can do (cpuid feature bits, and the registers the
// operating system saves) before loading the library: AVX-512 -> SkylakeX,
// AVX2 with FMA -> Haswell, anything less -> OpenBLAS's own choice. A value
// already in the environment is kept: some machines set one on purpose,
// because some OpenBLAS builds compute wrong results with some core types;
// one whose kernels the CPU cannot run (AVX-512 or AVX2 ones it lacks) is
// refused with the reason rather than loaded into an illegal instruction.
// OpenBLAS runs single-threaded: the runtime splits products over its own
// threads (idle OpenBLAS threads spin on the cores the other kernels use).
#ifndef CBLAS_BLAS_H
#define CBLAS_BLAS_H

#include <stddef.h>

// The CBLAS declarations the runtime calls (the standard values; OpenBLAS's
// integers are C ints in the builds this links against).
typedef enum { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_ORDER;
typedef enum { CblasNoTrans = 111, CblasTrans = 112 } CBLAS_TRANSPOSE;

void cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transA, CBLAS_TRANSPOSE transB, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_sgemv(CBLAS_ORDER order, CBLAS_TRANSPOSE trans, int m, int n, float alpha, const float *a, int lda,
                 const float *x, int incX, float beta, float *y, int incY);

/// Loads OpenBLAS once per process (any thread, any number of times).
/// Returns 0, or -1 with the reason in `message` (`size` bytes). The
/// functions above load it themselves when called first, and stop the
/// process if they cannot: call this first to report the failure instead.
int blas_load(char *message, size_t size);

/// After a successful `blas_load`: which kernels run, for people, e.g.
/// "OpenBLAS 0.3.21 DYNAMIC_ARCH ... Haswell MAX_THREADS=64; Haswell kernels
/// (OPENBLAS_CORETYPE=Haswell, chosen from cpuid: AVX2, FMA)".
const char *blas_description(void);

/// After a successful `blas_load`: 1 when the kernels running are older
/// than what the CPU can run (SSE kernels on a CPU with AVX2), else 0.
int blas_below_cpu(void);

#endif
