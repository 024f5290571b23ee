// The runtime's fast float32 convolutions: oneDNN's convolution primitive,
// the library loaded when first needed rather than linked (Debian:
// libdnnl2, headers in libdnnl-dev), like CBLAS and CHDF5.
//
// oneDNN picks, per geometry, a JIT kernel for the CPU it runs on (jit:avx2,
// jit_1x1:avx2, ...) and the memory layouts that kernel wants (channels in
// blocks of 8 on AVX2): measured 1.2-3x faster than im2col + OpenBLAS sgemm.
// Weights are reordered into that layout once, when a convolution is made;
// input and output are reordered from and to plain NCHW at each run. Anything
// oneDNN cannot do makes `convolution_create` fail, so that the caller keeps
// its own generic kernel for that layer.
//
// oneDNN parallelizes with OpenMP (libgomp) over all cores. Unless the
// environment sets OMP_WAIT_POLICY or GOMP_SPINCOUNT, the load sets
// GOMP_SPINCOUNT=10000 for libgomp, which reads it once, when it is loaded:
// idle OpenMP threads then spin briefly (a convolution that follows soon
// finds them awake) and sleep before they take the cores from the runtime's
// own kernels (see convolution.c for the measurement).
#ifndef CDNNL_CONVOLUTION_H
#define CDNNL_CONVOLUTION_H

#include <stddef.h>

/// The shape of one 2-D convolution, batch 1. Sizes count elements; all are
/// positive except the paddings, which are zero or more.
struct convolution_geometry {
    int channels, height, width;                        // input [C, H, W], batch 1
    int output_channels, output_height, output_width;   // output [O, OH, OW]
    int groups;                                         // C and O divisible by it; groups == C == O is depthwise
    int kernel_height, kernel_width;
    int stride_height, stride_width;
    int dilation_height, dilation_width;                // 1 = no dilation (oneDNN counts dilation - 1)
    int pad_top, pad_left;                              // zero padding before the first row / column
};

/// A convolution ready to run: its primitive, its weights in oneDNN's layout
/// and the buffers it runs in (see `convolution_create`).
typedef struct convolution convolution;  // opaque

/// Loads libdnnl.so.2 once per process (any thread, any number of times),
/// makes the CPU engine and the stream all convolutions run on. Returns 0, or
/// -1 with the reason in `message` (`size` bytes). Before loading, sets
/// GOMP_SPINCOUNT as said above and removes it again after (libgomp reads it
/// while it loads; it has no effect when libgomp was in the process
/// already). The library stays loaded.
int convolution_load(char *message, size_t size);

/// After a successful `convolution_load`: which library runs, for people,
/// e.g. "oneDNN 2.6.3, JIT kernels for AVX2 (OpenMP runtime, 2 threads)".
/// Else "".
const char *convolution_library(void);

/// Makes a convolution (after a successful `convolution_load`) with its
/// weights reordered once into the layout oneDNN chose: `weights` and `bias`
/// may be released afterwards. `weights`: [O, C/groups, KH, KW] float32
/// (OIHW; with groups > 1 that is GOIHW, G outermost); `bias`: [O] or NULL;
/// `relu`: nonzero to apply max(0, y) to the result. The padding at the
/// bottom and right is what makes the given output size:
/// max(0, (OH-1)*SH + (KH-1)*DH + 1 - H - pad_top), likewise for the width
/// (so TensorFlow's odd 'SAME' padding and unused trailing input rows work).
/// Returns NULL with the reason in `message` when the output size does not
/// follow from that, when the geometry is invalid or too large to address,
/// or when oneDNN cannot do it: the caller then uses its own kernel.
convolution *convolution_create(const struct convolution_geometry *g, const float *weights, const float *bias, int relu,
                                char *message, size_t size);

/// The implementation oneDNN picked, e.g. "jit:avx2" or "jit_1x1:avx2".
const char *convolution_implementation(const convolution *c);

/// The bytes the convolution holds: its reordered weights and bias. Not
/// counted: the primitives and their JIT code, tens of kilobytes, which
/// oneDNN's primitive cache keeps after `convolution_destroy` too, for its
/// last 1024 geometries (ONEDNN_PRIMITIVE_CACHE_CAPACITY), and reuses.
size_t convolution_bytes(const convolution *c);

/// The bytes of workspace `convolution_run` needs: input and output in
/// oneDNN's layouts (when not plain) and the scratchpads, with room to align.
size_t convolution_workspace(const convolution *c);

/// output [O, OH, OW] = the convolution of input [C, H, W], both plain
/// float32 NCHW, batch 1 (plus bias, then ReLU if asked), on the calling
/// thread's OpenMP threads, working in `workspace` (`convolution_workspace`
/// bytes, any alignment). The object is only read: any number of threads may
/// run it at once, each with its own workspace. Returns 0, or -1 when oneDNN
/// reports an error.
int convolution_run(const convolution *c, const float *input, float *output, void *workspace);

/// How many OpenMP threads the calling thread's runs use from now on
/// (omp_set_num_threads: a setting of each thread); 1 for a thread that
/// runs whole predictions beside others. Nothing before a successful load.
void convolution_set_threads(int threads);

/// The OpenMP threads a thread uses unless told otherwise (0 before a load).
int convolution_default_threads(void);

/// Frees the convolution and all it holds; NULL is ignored.
void convolution_destroy(convolution *c);

#endif
