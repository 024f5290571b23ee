// The measurement behind the runtime's choice of convolution kernels (issue
// 18): im2col + OpenBLAS sgemm (the runtime's generic kernel) against
// oneDNN's convolution primitive, float32, batch 1, on eleven shapes of
// Inception-ResNet-v2 and age_net, plus a 1024^3 sgemm of each library.
// (A) im2col (single-threaded) + cblas_sgemm on 2 OpenBLAS threads + bias
// and ReLU; (B1) oneDNN's primitive alone on inputs already in its layout;
// (B2) the same with the reorders from and to plain NCHW that a runtime
// keeping NCHW between layers pays. Checks that A and B agree first.
// Results and the decision: BENCHMARKS.md, "Convolution kernels".
//
// Build (Debian 12: libdnnl-dev, libopenblas-dev):
//   g++ -O3 -march=native -std=c++17 scripts/bench/conv_kernels.cpp -o /tmp/conv_kernels \
//       -I/usr/include/x86_64-linux-gnu/openblas-pthread -ldnnl -lopenblas -lm
// Run:   OMP_NUM_THREADS=2 /tmp/conv_kernels            (A phase, then B)
//        ORDER=BA OMP_NUM_THREADS=2 /tmp/conv_kernels   (B phase first)
//        OMP_NUM_THREADS=2 ONEDNN_VERBOSE=1 /tmp/conv_kernels verbose   (implementation names)
#include <dnnl.hpp>
#include <cblas.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
void openblas_set_num_threads(int);
char *openblas_get_corename(void);
char *openblas_get_config(void);
int openblas_get_parallel(void);
}

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

struct Shape {
    const char *name;
    int O, C, H, W, KH, KW, S, PH, PW;  // PH/PW = symmetric padding
    int OH() const { return (H + 2 * PH - KH) / S + 1; }
    int OW() const { return (W + 2 * PW - KW) / S + 1; }
    double gflop() const { return 2.0 * O * C * KH * KW * OH() * OW() / 1e9; }
};

static const Shape shapes[] = {
    {"1 O32 C320 35x35 1x1", 32, 320, 35, 35, 1, 1, 1, 0, 0},
    {"2 O48 C32 35x35 3x3", 48, 32, 35, 35, 3, 3, 1, 1, 1},
    {"3 O320 C128 35x35 1x1", 320, 128, 35, 35, 1, 1, 1, 0, 0},
    {"4 O160 C128 17x17 1x7", 160, 128, 17, 17, 1, 7, 1, 0, 3},
    {"5 O192 C160 17x17 7x1", 192, 160, 17, 17, 7, 1, 1, 3, 0},
    {"6 O1088 C384 17x17 1x1", 1088, 384, 17, 17, 1, 1, 1, 0, 0},
    {"7 O192 C2080 8x8 1x1", 192, 2080, 8, 8, 1, 1, 1, 0, 0},
    {"8 O224 C192 8x8 1x3", 224, 192, 8, 8, 1, 3, 1, 0, 1},
    {"9 O384 C256 17x17 3x3 s2 valid", 384, 256, 17, 17, 3, 3, 2, 0, 0},
    {"10 O96 C3 227x227 7x7 s4 valid", 96, 3, 227, 227, 7, 7, 4, 0, 0},
    {"11 O256 C96 28x28 5x5 p2", 256, 96, 28, 28, 5, 5, 1, 2, 2},
};
static const int NS = sizeof(shapes) / sizeof(shapes[0]);

static int WARM = 5, REPS = 30;

static double now_ms() {
    return std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
}

static double median_time(const std::function<void()> &f) {
    for (int i = 0; i < WARM; i++) f();
    std::vector<double> t(REPS);
    for (int i = 0; i < REPS; i++) {
        double t0 = now_ms();
        f();
        t[i] = now_ms() - t0;
    }
    std::sort(t.begin(), t.end());
    return REPS % 2 ? t[REPS / 2] : 0.5 * (t[REPS / 2 - 1] + t[REPS / 2]);
}

// ---------------- (A) OpenBLAS path ----------------
// im2col (single-threaded): col[(c*KH+kh)*KW+kw][oh*OW+ow]
static void im2col(const Shape &s, const float *src, float *col) {
    const int OH = s.OH(), OW = s.OW();
    for (int c = 0; c < s.C; c++)
        for (int kh = 0; kh < s.KH; kh++)
            for (int kw = 0; kw < s.KW; kw++) {
                float *dst = col + (size_t)((c * s.KH + kh) * s.KW + kw) * OH * OW;
                const float *sc = src + (size_t)c * s.H * s.W;
                for (int oh = 0; oh < OH; oh++) {
                    int ih = oh * s.S - s.PH + kh;
                    float *d = dst + oh * OW;
                    if (ih < 0 || ih >= s.H) {
                        memset(d, 0, sizeof(float) * OW);
                        continue;
                    }
                    const float *row = sc + (size_t)ih * s.W;
                    for (int ow = 0; ow < OW; ow++) {
                        int iw = ow * s.S - s.PW + kw;
                        d[ow] = (iw >= 0 && iw < s.W) ? row[iw] : 0.f;
                    }
                }
            }
}

// bias + ReLU (single-threaded), NCHW
static void bias_relu(const Shape &s, const float *bias, float *dst) {
    const int P = s.OH() * s.OW();
    for (int o = 0; o < s.O; o++) {
        float b = bias[o];
        float *d = dst + (size_t)o * P;
        for (int i = 0; i < P; i++) {
            float v = d[i] + b;
            d[i] = v > 0.f ? v : 0.f;
        }
    }
}

struct APath {
    const Shape &s;
    const float *src, *wei, *bias;
    float *dst;
    std::vector<float> col;
    bool skip;
    APath(const Shape &s_, const float *src_, const float *wei_, const float *bias_, float *dst_)
        : s(s_), src(src_), wei(wei_), bias(bias_), dst(dst_) {
        skip = (s.KH == 1 && s.KW == 1 && s.S == 1 && s.PH == 0 && s.PW == 0);
        if (!skip) col.resize((size_t)s.C * s.KH * s.KW * s.OH() * s.OW());
    }
    void im2col_only() {
        if (!skip) im2col(s, src, col.data());
    }
    void run() {
        const int K = s.C * s.KH * s.KW, N = s.OH() * s.OW();
        const float *B = src;
        if (!skip) {
            im2col(s, src, col.data());
            B = col.data();
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.O, N, K, 1.f, wei, K, B, N, 0.f,
                dst, N);
        bias_relu(s, bias, dst);
    }
};

// ---------------- (B) oneDNN path ----------------
struct BPath {
    engine &eng;
    stream &strm;
    convolution_forward::primitive_desc pd;
    convolution_forward conv;
    memory usr_src, usr_wei, usr_bias, usr_dst;  // plain NCHW / OIHW
    memory src, wei, dst;                        // chosen formats
    bool src_re, dst_re;
    reorder r_src, r_dst;
    std::string impl;
    std::string fmt_src, fmt_wei, fmt_dst;

    static std::string fmt(const memory::desc &md) {
        // summarize blocking: strides + inner blocks
        const dnnl_memory_desc_t &d = md.data;
        std::string r;
        if (d.format_kind != dnnl_blocked) return "non-blocked";
        const auto &b = d.format_desc.blocking;
        char buf[64];
        r += "strides[";
        for (int i = 0; i < d.ndims; i++) {
            snprintf(buf, sizeof buf, "%s%ld", i ? "," : "", (long)b.strides[i]);
            r += buf;
        }
        r += "]";
        for (int i = 0; i < b.inner_nblks; i++) {
            snprintf(buf, sizeof buf, " blk%d:%ld", (int)b.inner_idxs[i], (long)b.inner_blks[i]);
            r += buf;
        }
        return r;
    }

    BPath(engine &e, stream &st, const Shape &s, float *src_p, float *wei_p, float *bias_p,
            float *dst_p, algorithm alg)
        : eng(e), strm(st) {
        memory::dims src_d = {1, s.C, s.H, s.W}, wei_d = {s.O, s.C, s.KH, s.KW},
                     bias_d = {s.O}, dst_d = {1, s.O, s.OH(), s.OW()};
        memory::dims strides = {s.S, s.S}, pad = {s.PH, s.PW};
        auto src_md = memory::desc(src_d, dt::f32, tag::any);
        auto wei_md = memory::desc(wei_d, dt::f32, tag::any);
        auto bias_md = memory::desc(bias_d, dt::f32, tag::any);
        auto dst_md = memory::desc(dst_d, dt::f32, tag::any);
        auto cd = convolution_forward::desc(prop_kind::forward_inference, alg, src_md, wei_md,
                bias_md, dst_md, strides, pad, pad);
        post_ops po;
        po.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
        primitive_attr attr;
        attr.set_post_ops(po);
        pd = convolution_forward::primitive_desc(cd, attr, eng);
        conv = convolution_forward(pd);
        impl = pd.impl_info_str();

        usr_src = memory({src_d, dt::f32, tag::nchw}, eng, src_p);
        usr_wei = memory({wei_d, dt::f32, tag::oihw}, eng, wei_p);
        usr_bias = memory({bias_d, dt::f32, tag::x}, eng, bias_p);
        usr_dst = memory({dst_d, dt::f32, tag::nchw}, eng, dst_p);

        fmt_src = fmt(pd.src_desc());
        fmt_wei = fmt(pd.weights_desc());
        fmt_dst = fmt(pd.dst_desc());

        src_re = pd.src_desc() != usr_src.get_desc();
        dst_re = pd.dst_desc() != usr_dst.get_desc();
        src = src_re ? memory(pd.src_desc(), eng) : usr_src;
        dst = dst_re ? memory(pd.dst_desc(), eng) : usr_dst;
        // weights: reordered once (load time), not timed
        if (pd.weights_desc() != usr_wei.get_desc()) {
            wei = memory(pd.weights_desc(), eng);
            reorder(usr_wei, wei).execute(strm, usr_wei, wei);
        } else
            wei = usr_wei;
        if (pd.bias_desc() != usr_bias.get_desc()) {
            fprintf(stderr, "unexpected bias format\n");
            exit(1);
        }
        if (src_re) r_src = reorder(usr_src, src);
        if (dst_re) r_dst = reorder(dst, usr_dst);
        // prepare reordered src for B1
        if (src_re) r_src.execute(strm, usr_src, src);
        strm.wait();
    }
    void run_prim() {  // B1
        conv.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei},
                                   {DNNL_ARG_BIAS, usr_bias}, {DNNL_ARG_DST, dst}});
        strm.wait();
    }
    void run_full() {  // B2: NCHW in -> NCHW out
        if (src_re) r_src.execute(strm, usr_src, src);
        conv.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei},
                                   {DNNL_ARG_BIAS, usr_bias}, {DNNL_ARG_DST, dst}});
        if (dst_re) r_dst.execute(strm, dst, usr_dst);
        strm.wait();
    }
};

struct Data {
    std::vector<float> src, wei, bias, dstA, dstB;
};

static void fill(std::vector<float> &v, std::mt19937 &g, float scale) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto &x : v) x = u(g) * scale;
}

int main(int argc, char **argv) {
    bool verbose_only = argc > 1 && !strcmp(argv[1], "verbose");
    algorithm alg = algorithm::convolution_direct;
    if (getenv("CONV_AUTO")) alg = algorithm::convolution_auto;
    openblas_set_num_threads(2);

    printf("OpenBLAS config: %s | corename: %s | parallel=%d\n", openblas_get_config(),
            openblas_get_corename(), openblas_get_parallel());
    const dnnl_version_t *v = dnnl_version();
    printf("oneDNN %d.%d.%d (hash %s), cpu_runtime=%s, max threads(OMP)=%s, alg=%s\n", v->major,
            v->minor, v->patch, v->hash,
            v->cpu_runtime == DNNL_RUNTIME_OMP       ? "OMP"
                    : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                    : v->cpu_runtime == DNNL_RUNTIME_SEQ ? "SEQ"
                                                          : "other",
            getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "(unset)",
            alg == algorithm::convolution_auto ? "convolution_auto" : "convolution_direct");
    printf("oneDNN effective cpu isa: 0x%x\n", (unsigned)get_effective_cpu_isa());

    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    std::mt19937 g(12345);

    std::vector<Data> D(NS);
    std::vector<APath *> A(NS);
    std::vector<BPath *> B(NS);
    for (int i = 0; i < NS; i++) {
        const Shape &s = shapes[i];
        D[i].src.resize((size_t)s.C * s.H * s.W);
        D[i].wei.resize((size_t)s.O * s.C * s.KH * s.KW);
        D[i].bias.resize(s.O);
        D[i].dstA.assign((size_t)s.O * s.OH() * s.OW(), 0.f);
        D[i].dstB.assign((size_t)s.O * s.OH() * s.OW(), 0.f);
        fill(D[i].src, g, 1.f);
        fill(D[i].wei, g, 1.f / std::sqrt((float)s.C * s.KH * s.KW));
        fill(D[i].bias, g, 0.5f);
        A[i] = new APath(s, D[i].src.data(), D[i].wei.data(), D[i].bias.data(), D[i].dstA.data());
        B[i] = new BPath(eng, strm, s, D[i].src.data(), D[i].wei.data(), D[i].bias.data(),
                D[i].dstB.data(), alg);
    }

    if (verbose_only) {
        for (int i = 0; i < NS; i++) {
            printf("--- shape %s\n", shapes[i].name);
            fflush(stdout);
            B[i]->run_full();
        }
        return 0;
    }

    // ---- correctness check ----
    printf("\nCorrectness (A vs B2 output, NCHW, after bias+ReLU), impl & formats:\n");
    for (int i = 0; i < NS; i++) {
        A[i]->run();
        B[i]->run_full();
        double maxd = 0, maxv = 0;
        for (size_t k = 0; k < D[i].dstA.size(); k++) {
            maxd = std::max(maxd, (double)std::fabs(D[i].dstA[k] - D[i].dstB[k]));
            maxv = std::max(maxv, (double)std::fabs(D[i].dstA[k]));
        }
        printf("  %-32s max|A-B|=%.3g (max|A|=%.3g)  impl=%s\n", shapes[i].name, maxd, maxv,
                B[i]->impl.c_str());
        printf("      src %s%s | wei %s | dst %s%s\n", B[i]->fmt_src.c_str(),
                B[i]->src_re ? " (reorder)" : " (plain)", B[i]->fmt_wei.c_str(),
                B[i]->fmt_dst.c_str(), B[i]->dst_re ? " (reorder)" : " (plain)");
    }

    // ---- timing: phase A (OpenBLAS) for all shapes, then phase B (oneDNN) ----
    // Phases are separated so that idle-spinning OpenBLAS pthreads and OpenMP
    // threads do not steal the 2 cores from each other.
    // ORDER=BA env runs the oneDNN phase first (default: A then B).
    std::vector<double> tA(NS), tI(NS), tB1(NS), tB2(NS);
    auto phaseA = [&] {
        for (int i = 0; i < NS; i++) {
            tA[i] = median_time([&] { A[i]->run(); });
            tI[i] = median_time([&] { A[i]->im2col_only(); });
        }
    };
    auto phaseB = [&] {
        for (int i = 0; i < NS; i++) {
            tB1[i] = median_time([&] { B[i]->run_prim(); });
            tB2[i] = median_time([&] { B[i]->run_full(); });
        }
    };
    bool ba = getenv("ORDER") && !strcmp(getenv("ORDER"), "BA");
    printf("\nphase order: %s\n", ba ? "B then A" : "A then B");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    if (ba) phaseB(); else phaseA();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    if (ba) phaseA(); else phaseB();

    printf("\nmedian of %d runs after %d warm-ups, 2 threads; A im2col and bias+ReLU are single-threaded\n",
            REPS, WARM);
    printf("%-32s %7s | %8s %7s %7s | %8s %7s | %8s %7s | %6s\n", "shape", "GFLOP", "A ms",
            "(im2c)", "GF/s", "B1 ms", "GF/s", "B2 ms", "GF/s", "A/B2");
    for (int i = 0; i < NS; i++) {
        double gf = shapes[i].gflop();
        printf("%-32s %7.4f | %8.3f %7.3f %7.1f | %8.3f %7.1f | %8.3f %7.1f | %6.2f\n",
                shapes[i].name, gf, tA[i], A[i]->skip ? 0.0 : tI[i], gf / tA[i] * 1e3, tB1[i],
                gf / tB1[i] * 1e3, tB2[i], gf / tB2[i] * 1e3, tA[i] / tB2[i]);
    }
    double sA = 0, sB1 = 0, sB2 = 0;
    for (int i = 0; i < NS; i++) sA += tA[i], sB1 += tB1[i], sB2 += tB2[i];
    printf("%-32s %7s | %8.3f %7s %7s | %8.3f %7s | %8.3f %7s | %6.2f\n", "SUM", "", sA, "", "",
            sB1, "", sB2, "", sA / sB2);

    // ---- (C) 1024^3 sgemm ----
    {
        const int n = 1024;
        std::vector<float> a((size_t)n * n), b((size_t)n * n), c1((size_t)n * n),
                c2((size_t)n * n);
        fill(a, g, 1.f);
        fill(b, g, 1.f);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a.data(), n,
                b.data(), n, 0.f, c1.data(), n);
        dnnl_sgemm('N', 'N', n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c2.data(), n);
        double maxd = 0;
        for (size_t k = 0; k < c1.size(); k++)
            maxd = std::max(maxd, (double)std::fabs(c1[k] - c2[k]));
        double tc = median_time([&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a.data(), n,
                    b.data(), n, 0.f, c1.data(), n);
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        double td = median_time([&] {
            dnnl_sgemm('N', 'N', n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c2.data(), n);
        });
        double gf = 2.0 * n * n * n / 1e9;
        printf("\n(C) sgemm 1024^3 (%.3f GFLOP): cblas_sgemm %.3f ms (%.1f GF/s) | dnnl_sgemm %.3f ms (%.1f GF/s) | ratio cblas/dnnl %.2f | max|diff|=%.3g\n",
                gf, tc, gf / tc * 1e3, td, gf / td * 1e3, tc / td, maxd);
    }
    return 0;
}
