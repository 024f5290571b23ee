// oneDNN's convolutions, the library loaded when first needed rather than
// linked (see convolution.h).
//
// The oneDNN functions used are called through the addresses dlsym found for
// them, kept in one struct, like CBLAS's library.c; their types come from
// oneDNN's own header, so a mismatch is a compile error, and nothing but the
// header's functions is exported.
#define _GNU_SOURCE
#include "convolution.h"

#include <dlfcn.h>
#include <library_loading.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<oneapi/dnnl/dnnl.h>)
#include <oneapi/dnnl/dnnl.h>
#endif
#endif

// oneDNN 3 replaced the operation descriptors this uses; 1.x had other headers.
#if defined(DNNL_VERSION_MAJOR) && DNNL_VERSION_MAJOR == 2

#define DNNL_FUNCTIONS(X) \
    X(version) X(engine_create) X(stream_create) X(stream_wait) \
    X(memory_desc_init_by_tag) X(memory_desc_equal) X(memory_desc_get_size) X(memory_create) X(memory_destroy) \
    X(memory_get_data_handle) X(memory_set_data_handle) X(primitive_attr_create) X(primitive_attr_destroy) \
    X(primitive_attr_set_scratchpad_mode) X(primitive_attr_set_post_ops) X(post_ops_create) X(post_ops_destroy) \
    X(post_ops_append_eltwise) X(dilated_convolution_forward_desc_init) X(reorder_primitive_desc_create) \
    X(primitive_desc_create) X(primitive_desc_destroy) X(primitive_desc_query) X(primitive_desc_query_md) \
    X(primitive_create) X(primitive_destroy) X(primitive_execute) X(get_effective_cpu_isa)

static struct {
#define DNNL_FIELD(name) __typeof__(dnnl_##name) *name;
    DNNL_FUNCTIONS(DNNL_FIELD)
    int (*max_threads)(void);  // libgomp's omp_get_max_threads and omp_set_num_threads
    void (*set_threads)(int);
} dnnl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status = -1;
static char failure[512] = "";
static char description[192] = "";
static int default_threads = 0;  // omp_get_max_threads at load: each thread's own setting may differ later
static dnnl_engine_t engine;
// A CPU stream holds no state between calls (execution is synchronous, its
// wait returns at once), so every convolution, on any thread, runs on this one.
static dnnl_stream_t stream;

static void load(void) {
    // libgomp (which libdnnl needs) reads its settings once, in its
    // constructor, so during this dlopen unless something loaded it before.
    // By default its idle threads spin 300000 rounds after each parallel
    // region (8 ms of a core on a 2-core AVX2 machine), on the cores the
    // runtime's own kernels use between convolutions; PASSIVE puts them to
    // sleep at once, and every convolution then waits for them to wake.
    // 10000 rounds lies between: measured on Inception-ResNet-v2 (7
    // alternating rounds), 1000 and PASSIVE were 25-40% slower, 5000-20000
    // the fastest, 100000 and ACTIVE 15-25% slower. Only when the
    // environment sets neither (a wait policy of its own decides instead).
    const struct library_setting spin = {"GOMP_SPINCOUNT", getenv("OMP_WAIT_POLICY") ? NULL : "10000"};
    // libgomp makes a team of OMP_NUM_THREADS threads at the first
    // convolution: an absurd count (2^63 - 1) ends there in "out of memory
    // allocating 962072675424 bytes". Refused here instead: the runtime's
    // own kernels then run, and this says why.
    const char *requested = getenv("OMP_NUM_THREADS");
    for (const char *p = requested; p != NULL && *p != '\0'; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
        char *end = NULL;
        unsigned long long threads = strtoull(p, &end, 10);
        if (end != p && threads > 4096) {
            snprintf(failure, sizeof failure, "OMP_NUM_THREADS=%.40s asks oneDNN for more than 4096 threads", requested);
            return;
        }
    }
    static const char *const candidates[] = {"libdnnl.so.2", "libdnnl.so"};
    char first[256];
    void *handle = library_open(candidates, sizeof candidates / sizeof candidates[0], &spin, 1, first, sizeof first);
    if (handle == NULL) {
        snprintf(failure, sizeof failure, "cannot load oneDNN (%s; libdnnl.so tried too): install it (Debian: "
                 "libdnnl2)", first);
        return;
    }
    // The version first: libdnnl.so may be a oneDNN 3, which lacks functions used here.
    const dnnl_version_t *version = NULL;
    if ((*(void **)&dnnl.version = dlsym(handle, "dnnl_version")) != NULL) version = dnnl.version();
    if (version == NULL) {
        snprintf(failure, sizeof failure, "the library loaded as oneDNN has no dnnl_version: not oneDNN");
        return;
    }
    if (version->major != 2) {
        snprintf(failure, sizeof failure, "the oneDNN found is version %d.%d, this program was built for oneDNN 2",
                 version->major, version->minor);
        return;
    }
#define DNNL_LOOKUP(name) \
    if ((*(void **)&dnnl.name = dlsym(handle, "dnnl_" #name)) == NULL) { \
        snprintf(failure, sizeof failure, "oneDNN %d.%d has no dnnl_" #name, version->major, version->minor); \
        return; \
    }
    DNNL_FUNCTIONS(DNNL_LOOKUP)
    *(void **)&dnnl.max_threads = dlsym(handle, "omp_get_max_threads");
    *(void **)&dnnl.set_threads = dlsym(handle, "omp_set_num_threads");
    if (dnnl.engine_create(&engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl.stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        snprintf(failure, sizeof failure, "oneDNN made no CPU engine or stream");
        return;
    }
    unsigned runtime = version->cpu_runtime;
    int threads = runtime == DNNL_RUNTIME_OMP && dnnl.max_threads ? dnnl.max_threads() : 0;  // OMP_NUM_THREADS
    default_threads = threads;
    dnnl_cpu_isa_t isa = dnnl.get_effective_cpu_isa();
    const char *isa_name = isa == dnnl_cpu_isa_avx512_core_amx ? "AVX-512 with AMX"
                           : isa == dnnl_cpu_isa_avx512_core_bf16 ? "AVX-512 with BF16"
                           : isa == dnnl_cpu_isa_avx512_core_vnni ? "AVX-512 with VNNI"
                           : isa == dnnl_cpu_isa_avx512_core ? "AVX-512" : isa == dnnl_cpu_isa_avx512_mic ? "AVX-512 (MIC)"
                           : isa == dnnl_cpu_isa_avx2_vnni ? "AVX2 with VNNI" : isa == dnnl_cpu_isa_avx2 ? "AVX2"
                           : isa == dnnl_cpu_isa_avx ? "AVX" : isa == dnnl_cpu_isa_sse41 ? "SSE4.1" : "no vector ISA";
    char threads_text[32] = "";
    if (threads) snprintf(threads_text, sizeof threads_text, ", %d thread%s", threads, threads == 1 ? "" : "s");
    snprintf(description, sizeof description, "oneDNN %d.%d.%d, JIT kernels for %s (%s runtime%s)", version->major,
             version->minor, version->patch, isa_name, runtime == DNNL_RUNTIME_OMP ? "OpenMP"
             : runtime == DNNL_RUNTIME_TBB ? "TBB" : runtime == DNNL_RUNTIME_SEQ ? "sequential" : "threadpool",
             threads_text);
    status = 0;
}

int convolution_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (status != 0) snprintf(message, size, "%s", failure);
    return status;
}

const char *convolution_library(void) { return description; }

// Made once and only read afterwards, so that any number of threads may run
// it at once: each run makes its memory objects over the caller's arrays and
// the caller's workspace (oneDNN's layouts of input and output, scratchpad).
struct convolution {
    dnnl_primitive_t primitive, to_src, from_dst;  // the reorders are NULL when oneDNN's layout is plain
    dnnl_memory_t weights, bias;                    // bias: NULL without one
    dnnl_memory_desc_t input_md, output_md;         // plain NCHW
    dnnl_memory_desc_t src_md, dst_md;              // oneDNN's layouts (equal to the plain ones when plain)
    dnnl_memory_desc_t scratchpad_mds[3];           // of primitive, to_src, from_dst (zero size when none)
    size_t src_offset, dst_offset, scratchpad_offset, workspace;  // in the workspace, 64-byte aligned
    size_t bytes;
    char implementation[64];
};

static size_t aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

static const char *status_name(dnnl_status_t s) {
    return s == dnnl_out_of_memory ? "out of memory" : s == dnnl_invalid_arguments ? "invalid arguments"
           : s == dnnl_unimplemented ? "no implementation" : s == dnnl_runtime_error ? "runtime error" : "failure";
}

// The bottom (right) padding that gives `out` rows (columns), or -1 when
// oneDNN's formula (in + near + far - span) / stride + 1 then gives another
// count. All inputs are ints, so no product exceeds 2^62 nor any sum 2^63.
static int64_t far_padding(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation, int64_t near) {
    int64_t span = (kernel - 1) * dilation + 1, far = (out - 1) * stride + span - in - near;
    if (far < 0) far = 0;  // rows past the last window are simply not read
    int64_t extent = in + near + far - span;
    return extent < 0 || extent / stride + 1 != out || far > INT_MAX ? -1 : far;
}

// Whether a float array of a*b*c*d*e elements fits a size_t and oneDNN's int64
// offsets, with room for the products oneDNN makes of it (per-thread buffers).
static int addressable(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e) {
    uint64_t n = a, limit = (SIZE_MAX < INT64_MAX ? SIZE_MAX : INT64_MAX) / 64 / sizeof(float);
    return !(__builtin_mul_overflow(n, b, &n) || __builtin_mul_overflow(n, c, &n) ||
             __builtin_mul_overflow(n, d, &n) || __builtin_mul_overflow(n, e, &n)) && n <= limit;
}

static uint64_t blocks(int channels) { return ((uint64_t)channels + 63) / 64 * 64; }  // oneDNN pads to 8 or 16

// A memory object that owns its buffer, counted in *bytes.
static dnnl_status_t allocate(dnnl_memory_t *m, const dnnl_memory_desc_t *md, size_t *bytes) {
    *bytes += dnnl.memory_desc_get_size(md);
    return dnnl.memory_create(m, md, engine, DNNL_MEMORY_ALLOCATE);
}

// The primitive of a descriptor, and the scratchpad it needs (zero size for none).
static dnnl_status_t make(const_dnnl_primitive_desc_t pd, dnnl_primitive_t *p, dnnl_memory_desc_t *scratchpad) {
    *scratchpad = *dnnl.primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    return dnnl.primitive_create(p, pd);
}

static dnnl_status_t reorder(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to,
                             const_dnnl_primitive_attr_t attr, dnnl_primitive_t *r, dnnl_memory_desc_t *scratchpad) {
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = dnnl.reorder_primitive_desc_create(&pd, from, engine, to, engine, attr);
    if (s != dnnl_success) return s;
    s = make(pd, r, scratchpad);
    dnnl.primitive_desc_destroy(pd);
    return s;
}

// Runs a primitive on the shared stream, with its scratchpad (a memory
// object over `scratch` made for the call) after the `n` arguments in `args`.
static dnnl_status_t execute(dnnl_primitive_t p, const dnnl_memory_desc_t *scratchpad, void *scratch, int n,
                             dnnl_exec_arg_t *args) {
    dnnl_memory_t memory = NULL;
    if (dnnl.memory_desc_get_size(scratchpad) > 0) {
        dnnl_status_t s = dnnl.memory_create(&memory, scratchpad, engine, scratch);
        if (s != dnnl_success) return s;
        args[n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, memory};
    }
    dnnl_status_t s = dnnl.primitive_execute(p, stream, n, args);
    if (memory) dnnl.memory_destroy(memory);
    return s;
}

convolution *convolution_create(const struct convolution_geometry *g, const float *weights, const float *bias, int relu,
                                char *message, size_t size) {
    if (convolution_load(message, size) != 0) return NULL;
    int positive = g->channels > 0 && g->height > 0 && g->width > 0 && g->output_channels > 0 && g->groups > 0 &&
                   g->output_height > 0 && g->output_width > 0 && g->kernel_height > 0 && g->kernel_width > 0 &&
                   g->stride_height > 0 && g->stride_width > 0 && g->dilation_height > 0 && g->dilation_width > 0;
    if (!positive || g->pad_top < 0 || g->pad_left < 0 || g->channels % g->groups || g->output_channels % g->groups) {
        snprintf(message, size, "invalid convolution: sizes must be positive, paddings not negative, channels "
                 "divisible by the groups");
        return NULL;
    }
    int64_t bottom = far_padding(g->height, g->output_height, g->kernel_height, g->stride_height, g->dilation_height,
                                 g->pad_top);
    int64_t right = far_padding(g->width, g->output_width, g->kernel_width, g->stride_width, g->dilation_width,
                                g->pad_left);
    if (bottom < 0 || right < 0) {
        snprintf(message, size, "output %dx%d does not follow from input %dx%d, kernel %dx%d, stride %dx%d, dilation "
                 "%dx%d, padding %d top, %d left", g->output_height, g->output_width, g->height, g->width,
                 g->kernel_height, g->kernel_width, g->stride_height, g->stride_width, g->dilation_height,
                 g->dilation_width, g->pad_top, g->pad_left);
        return NULL;
    }
    int64_t C = g->channels, O = g->output_channels, G = g->groups, KH = g->kernel_height, KW = g->kernel_width;
    if (!addressable(blocks(g->channels), g->height, g->width, 1, 1) ||
        !addressable(blocks(g->output_channels), g->output_height, g->output_width, 1, 1) ||
        !addressable(G, blocks(C / G), blocks(O / G), KH, KW) ||
        !addressable(blocks(C / G), KH, KW, g->output_height, g->output_width)) {  // im2col, if oneDNN uses it
        snprintf(message, size, "convolution too large to address");
        return NULL;
    }
    convolution *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(message, size, "out of memory");
        return NULL;
    }
    dnnl_memory_desc_t input_md, output_md, src_any, dst_any, weights_md, weights_any, bias_md;
    dnnl_dims_t input_dims = {1, C, g->height, g->width}, output_dims = {1, O, g->output_height, g->output_width};
    dnnl_dims_t grouped = {G, O / G, C / G, KH, KW}, plain = {O, C, KH, KW}, bias_dims = {O};
    dnnl_dims_t strides = {g->stride_height, g->stride_width}, near = {g->pad_top, g->pad_left}, far = {bottom, right};
    dnnl_dims_t dilates = {g->dilation_height - 1, g->dilation_width - 1};
    dnnl_convolution_desc_t operation;
    dnnl_primitive_attr_t attr = NULL, reorder_attr = NULL;
    dnnl_post_ops_t post_ops = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t weights_reorder = NULL;
    dnnl_memory_t given_weights = NULL;
    dnnl_memory_desc_t weights_scratchpad_md;
    void *weights_scratch = NULL;
    const dnnl_memory_desc_t *src_md, *dst_md, *chosen_weights_md;
    const char *info = NULL, *step = "";
    dnnl_status_t s;
#define TRY(call) if ((s = (call)) != dnnl_success) { step = #call; goto fail; }
    TRY(dnnl.memory_desc_init_by_tag(&input_md, 4, input_dims, dnnl_f32, dnnl_nchw))
    TRY(dnnl.memory_desc_init_by_tag(&output_md, 4, output_dims, dnnl_f32, dnnl_nchw))
    TRY(dnnl.memory_desc_init_by_tag(&src_any, 4, input_dims, dnnl_f32, dnnl_format_tag_any))
    TRY(dnnl.memory_desc_init_by_tag(&dst_any, 4, output_dims, dnnl_f32, dnnl_format_tag_any))
    // Our OIHW is GOIHW with G outermost: the same bytes.
    TRY(dnnl.memory_desc_init_by_tag(&weights_md, G > 1 ? 5 : 4, G > 1 ? grouped : plain, dnnl_f32,
                                     G > 1 ? dnnl_goihw : dnnl_oihw))
    TRY(dnnl.memory_desc_init_by_tag(&weights_any, G > 1 ? 5 : 4, G > 1 ? grouped : plain, dnnl_f32,
                                     dnnl_format_tag_any))
    TRY(dnnl.memory_desc_init_by_tag(&bias_md, 1, bias_dims, dnnl_f32, dnnl_x))
    TRY(dnnl.dilated_convolution_forward_desc_init(&operation, dnnl_forward_inference, dnnl_convolution_direct,
                                                   &src_any, &weights_any, bias ? &bias_md : NULL, &dst_any, strides,
                                                   dilates, near, far))
    // User scratchpads: the caller's workspace holds them, rather than oneDNN
    // growing one per thread that no object accounts for.
    TRY(dnnl.primitive_attr_create(&reorder_attr))
    TRY(dnnl.primitive_attr_set_scratchpad_mode(reorder_attr, dnnl_scratchpad_mode_user))
    TRY(dnnl.primitive_attr_create(&attr))
    TRY(dnnl.primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user))
    if (relu) {
        TRY(dnnl.post_ops_create(&post_ops))
        TRY(dnnl.post_ops_append_eltwise(post_ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f))
        TRY(dnnl.primitive_attr_set_post_ops(attr, post_ops))
    }
    TRY(dnnl.primitive_desc_create(&pd, &operation, attr, engine, NULL))
    TRY(dnnl.primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &info))
    snprintf(c->implementation, sizeof c->implementation, "%s", info ? info : "");
    src_md = dnnl.primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    dst_md = dnnl.primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    chosen_weights_md = dnnl.primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    TRY(make(pd, &c->primitive, &c->scratchpad_mds[0]))

    // The weights and bias, copied now (the weights into oneDNN's layout).
    TRY(allocate(&c->weights, chosen_weights_md, &c->bytes))
    TRY(dnnl.memory_create(&given_weights, &weights_md, engine, (void *)weights))  // only read
    TRY(reorder(&weights_md, chosen_weights_md, reorder_attr, &weights_reorder, &weights_scratchpad_md))
    weights_scratch = malloc(dnnl.memory_desc_get_size(&weights_scratchpad_md) + 1);
    if (weights_scratch == NULL) TRY(dnnl_out_of_memory)
    dnnl_exec_arg_t weights_args[3] = {{DNNL_ARG_FROM, given_weights}, {DNNL_ARG_TO, c->weights}};
    TRY(execute(weights_reorder, &weights_scratchpad_md, weights_scratch, 2, weights_args))
    TRY(dnnl.stream_wait(stream))
    if (bias) {
        void *data = NULL;
        TRY(allocate(&c->bias, &bias_md, &c->bytes))
        TRY(dnnl.memory_get_data_handle(c->bias, &data))
        memcpy(data, bias, (size_t)O * sizeof(float));
    }

    // Input and output: plain NCHW over the caller's arrays, reordered from
    // and to oneDNN's layouts (in the workspace) unless those are plain.
    c->input_md = input_md;
    c->output_md = output_md;
    c->src_md = *src_md;
    c->dst_md = *dst_md;
    if (!dnnl.memory_desc_equal(src_md, &input_md))
        TRY(reorder(&input_md, src_md, reorder_attr, &c->to_src, &c->scratchpad_mds[1]))
    if (!dnnl.memory_desc_equal(dst_md, &output_md))
        TRY(reorder(dst_md, &output_md, reorder_attr, &c->from_dst, &c->scratchpad_mds[2]))
    size_t scratchpad = 0;
    for (int i = 0; i < 3; i++) {
        size_t bytes = dnnl.memory_desc_get_size(&c->scratchpad_mds[i]);
        if (bytes > scratchpad) scratchpad = bytes;
    }
    c->src_offset = 0;
    c->dst_offset = c->to_src ? aligned(dnnl.memory_desc_get_size(src_md)) : 0;
    c->scratchpad_offset = c->dst_offset + (c->from_dst ? aligned(dnnl.memory_desc_get_size(dst_md)) : 0);
    c->workspace = c->scratchpad_offset + aligned(scratchpad) + 64;  // + 64: room to align the start
    goto done;
fail:
    step += strncmp(step, "dnnl.", 5) == 0 ? 5 : 0;
    snprintf(message, size, "oneDNN cannot run this convolution (%.*s: %s)", (int)strcspn(step, "("), step,
             status_name(s));
    convolution_destroy(c);
    c = NULL;
done:
    if (weights_reorder) dnnl.primitive_destroy(weights_reorder);
    free(weights_scratch);
    if (given_weights) dnnl.memory_destroy(given_weights);
    if (pd) dnnl.primitive_desc_destroy(pd);
    if (post_ops) dnnl.post_ops_destroy(post_ops);
    if (attr) dnnl.primitive_attr_destroy(attr);
    if (reorder_attr) dnnl.primitive_attr_destroy(reorder_attr);
    return c;
}

const char *convolution_implementation(const convolution *c) { return c->implementation; }

size_t convolution_bytes(const convolution *c) { return c->bytes; }

size_t convolution_workspace(const convolution *c) { return c->workspace; }

void convolution_set_threads(int threads) {
    if (status == 0 && dnnl.set_threads && threads > 0) dnnl.set_threads(threads);
}

int convolution_default_threads(void) { return status == 0 ? default_threads : 0; }

int convolution_run(const convolution *c, const float *input, float *output, void *workspace) {
    char *base = (char *)(((uintptr_t)workspace + 63) / 64 * 64);
    dnnl_memory_t memories[4] = {NULL, NULL, NULL, NULL};  // input, output, src, dst
    dnnl_status_t s = dnnl.memory_create(&memories[0], &c->input_md, engine, (void *)input);  // only read
    if (s == dnnl_success) s = dnnl.memory_create(&memories[1], &c->output_md, engine, output);
    if (s == dnnl_success && c->to_src) s = dnnl.memory_create(&memories[2], &c->src_md, engine, base + c->src_offset);
    if (s == dnnl_success && c->from_dst) s = dnnl.memory_create(&memories[3], &c->dst_md, engine, base + c->dst_offset);
    dnnl_memory_t src = c->to_src ? memories[2] : memories[0], dst = c->from_dst ? memories[3] : memories[1];
    void *scratch = base + c->scratchpad_offset;
    if (s == dnnl_success && c->to_src) {
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, memories[0]}, {DNNL_ARG_TO, src}};
        s = execute(c->to_src, &c->scratchpad_mds[1], scratch, 2, args);
    }
    if (s == dnnl_success) {
        dnnl_exec_arg_t args[5] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, c->weights}, {DNNL_ARG_DST, dst},
                                   {DNNL_ARG_BIAS, c->bias}};
        s = execute(c->primitive, &c->scratchpad_mds[0], scratch, c->bias ? 4 : 3, args);
    }
    if (s == dnnl_success && c->from_dst) {
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, memories[1]}};
        s = execute(c->from_dst, &c->scratchpad_mds[2], scratch, 2, args);
    }
    if (s == dnnl_success) s = dnnl.stream_wait(stream);
    for (int i = 0; i < 4; i++)
        if (memories[i]) dnnl.memory_destroy(memories[i]);
    return s == dnnl_success ? 0 : -1;
}

void convolution_destroy(convolution *c) {
    if (c == NULL) return;
    dnnl_primitive_t primitives[] = {c->primitive, c->to_src, c->from_dst};
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
        if (primitives[i]) dnnl.primitive_destroy(primitives[i]);
    if (c->weights) dnnl.memory_destroy(c->weights);
    if (c->bias) dnnl.memory_destroy(c->bias);
    free(c);
}

#else  // no oneDNN 2 headers: every convolution falls back to the caller's kernels

static const char missing[] = "built without oneDNN 2 headers (Debian: libdnnl-dev)";
int convolution_load(char *message, size_t size) { return snprintf(message, size, "%s", missing), -1; }
const char *convolution_library(void) { return ""; }
convolution *convolution_create(const struct convolution_geometry *g, const float *weights, const float *bias, int relu,
                                char *message, size_t size) {
    (void)g, (void)weights, (void)bias, (void)relu;
    return snprintf(message, size, "%s", missing), NULL;
}
const char *convolution_implementation(const convolution *c) { return (void)c, ""; }
size_t convolution_bytes(const convolution *c) { return (void)c, 0; }
size_t convolution_workspace(const convolution *c) { return (void)c, 0; }
void convolution_set_threads(int threads) { (void)threads; }
int convolution_default_threads(void) { return 0; }
int convolution_run(const convolution *c, const float *input, float *output, void *workspace) {
    return (void)c, (void)input, (void)output, (void)workspace, -1;
}
void convolution_destroy(convolution *c) { (void)c; }

#endif
