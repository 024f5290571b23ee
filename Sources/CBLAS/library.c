// OpenBLAS, loaded when first needed rather than linked (see blas.h).
//
// The CBLAS functions the runtime calls are defined here under their own
// names as calls through the addresses dlsym found, like CHDF5's library.c.
#define _GNU_SOURCE
#include "blas.h"

#include <dlfcn.h>
#include <library_loading.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static struct {
    void (*sgemm)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float, const float *, int,
                  const float *, int, float, float *, int);
    void (*sgemv)(CBLAS_ORDER, CBLAS_TRANSPOSE, int, int, float, const float *, int, const float *, int, float,
                  float *, int);
    char *(*corename)(void);
    char *(*config)(void);
    void (*set_threads)(int);
} library;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = -1;
static char failure[512] = "";
static char description[512] = "";
static int below_cpu = 0;

// What the CPU and the operating system let programs run.
struct features { int avx2_fma, avx512; };

static struct features cpu_features(void) {
    struct features found = {0, 0};
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return found;
    int fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx) return found;
    // XCR0: which registers the OS saves on a context switch: XMM and YMM
    // (bits 1, 2) for AVX; opmask, ZMM0-15 upper halves, ZMM16-31 (5-7) for AVX-512.
    unsigned xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) return found;
    found.avx2_fma = ((b >> 5) & 1) && fma;
    // F, DQ, CD, BW, VL: what OpenBLAS's SkylakeX kernels use.
    unsigned avx512 = (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31);
    found.avx512 = found.avx2_fma && (b & avx512) == avx512 && (xcr0_low & 0xe0) == 0xe0;
#endif
    return found;
}

// The OpenBLAS cores whose single-precision kernels use AVX2 and FMA (or AVX-512).
static int is_modern_core(const char *name) {
    static const char *const modern[] = {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"};
    for (size_t i = 0; i < sizeof modern / sizeof modern[0]; i++)
        if (strcasecmp(name, modern[i]) == 0) return 1;
    return 0;
}

// The names OpenBLAS has under the usual packagings, the first found wins:
// Debian's soname (any of its pthread / openmp / serial variants), the -dev
// package's link, Homebrew (whose folder dlopen does not search).
static const char *const candidates[] = {
#ifdef __APPLE__
    "libopenblas.dylib", "/opt/homebrew/opt/openblas/lib/libopenblas.dylib",
    "/usr/local/opt/openblas/lib/libopenblas.dylib",
#else
    "libopenblas.so.0", "libopenblas.so", "libopenblasp.so.0",
#endif
};

static void load(void) {
    struct features cpu = cpu_features();
    const char *preset = getenv("OPENBLAS_CORETYPE");
    char reason[160];
    const char *chosen = NULL;  // the core set for the load, when the environment names none
    if (preset != NULL && preset[0] == '\0') {
        unsetenv("OPENBLAS_CORETYPE");  // empty is unset here; OpenBLAS would warn "Core not found"
        preset = NULL;
    }
    if (preset != NULL) {
        // Kept, but not run into an illegal instruction: a core whose kernels
        // this CPU cannot execute is refused with the reason.
        static const char *const avx512_cores[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
        static const char *const avx2_cores[] = {"Haswell", "Zen"};
        const char *lacking = NULL;
        for (size_t i = 0; i < sizeof avx512_cores / sizeof avx512_cores[0]; i++)
            if (strcasecmp(preset, avx512_cores[i]) == 0 && !cpu.avx512) lacking = "AVX-512";
        for (size_t i = 0; i < sizeof avx2_cores / sizeof avx2_cores[0]; i++)
            if (strcasecmp(preset, avx2_cores[i]) == 0 && !cpu.avx2_fma) lacking = "AVX2 with FMA";
        if (lacking) {
            snprintf(failure, sizeof failure, "OPENBLAS_CORETYPE=%.64s asks OpenBLAS for %s kernels, which this CPU "
                     "cannot run (they would stop the program with an illegal instruction): unset it to let the "
                     "runtime choose, or name a core this CPU has", preset, lacking);
            return;
        }
        snprintf(reason, sizeof reason, "OPENBLAS_CORETYPE=%.64s from the environment, kept", preset);
    } else if (cpu.avx512 || cpu.avx2_fma) {
        chosen = cpu.avx512 ? "SkylakeX" : "Haswell";
        snprintf(reason, sizeof reason, "OPENBLAS_CORETYPE=%s, chosen from cpuid: %s", chosen,
                 cpu.avx512 ? "AVX-512 F/CD/DQ/BW/VL" : "AVX2, FMA");
    } else {
        snprintf(reason, sizeof reason, "OpenBLAS's own choice: cpuid shows no AVX2 with FMA");
    }
    // Both read by OpenBLAS's constructor during the load. One thread: the
    // runtime splits each product over its own threads, and OpenBLAS's would
    // spin (sched_yield) on the cores while the runtime's other kernels run.
    const struct library_setting settings[] = {{"OPENBLAS_CORETYPE", chosen}, {"OPENBLAS_NUM_THREADS", "1"}};
    char first[256];
    void *handle = library_open(candidates, sizeof candidates / sizeof candidates[0], settings,
                                sizeof settings / sizeof settings[0], first, sizeof first);
    if (handle == NULL) {
        snprintf(failure, sizeof failure, "cannot load OpenBLAS (%s; other names tried too): install it "
                 "(Debian: libopenblas0, or run scripts/bootstrap)", first);
        return;
    }
    *(void **)&library.sgemm = dlsym(handle, "cblas_sgemm");
    *(void **)&library.sgemv = dlsym(handle, "cblas_sgemv");
    *(void **)&library.corename = dlsym(handle, "openblas_get_corename");
    *(void **)&library.config = dlsym(handle, "openblas_get_config");
    *(void **)&library.set_threads = dlsym(handle, "openblas_set_num_threads");
    if (!library.sgemm || !library.sgemv || !library.corename || !library.config || !library.set_threads) {
        snprintf(failure, sizeof failure, "the library loaded as OpenBLAS lacks cblas_sgemm, cblas_sgemv or "
                 "openblas_get_corename: not OpenBLAS");
        return;
    }
    const char *core = library.corename();
    below_cpu = (cpu.avx2_fma || cpu.avx512) && !is_modern_core(core);
    library.set_threads(1);
    snprintf(description, sizeof description, "%s; %s kernels (%s)%s", library.config(), core, reason,
             below_cpu ? "; these kernels are older than this CPU's AVX2: matrix products run several times slower"
                       : "");
    status = 0;
}

int blas_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (status != 0) snprintf(message, size, "%s", failure);
    return status;
}

const char *blas_description(void) { return description; }

int blas_below_cpu(void) { return below_cpu; }

static void require(void) {
    pthread_once(&once, load);
    if (status != 0) {
        fprintf(stderr, "error: %s\n", failure);
        abort();
    }
}

__attribute__((visibility("hidden"))) void cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE transA,
                                                       CBLAS_TRANSPOSE transB, int m, int n, int k, float alpha,
                                                       const float *a, int lda, const float *b, int ldb,
                                                       float beta, float *c, int ldc) {
    require();
    library.sgemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((visibility("hidden"))) void cblas_sgemv(CBLAS_ORDER order, CBLAS_TRANSPOSE trans, int m, int n,
                                                       float alpha, const float *a, int lda, const float *x,
                                                       int incX, float beta, float *y, int incY) {
    require();
    library.sgemv(order, trans, m, n, alpha, a, lda, x, incX, beta, y, incY);
}
