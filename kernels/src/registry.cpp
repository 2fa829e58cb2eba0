// SPDX-License-Identifier: MIT
// The variant table and per-op metadata. Data, not a switch: the UI and CLI list variants from
// here, and adding a variant is one row.
#include "ks/kernels/registry.h"

#include "ks/kernels/launch_config.h"
#include "variants.h"

#include <algorithm>
#include <array>

namespace ks::kernels {
namespace {

constexpr const char* kDiag = "diag_matmul";
constexpr const char* kSoftmax = "softmax";
constexpr const char* kRms = "rmsnorm";
constexpr const char* kConv = "convtranspose3d_mean_add_softmax_tanh_scale";

const Variant kVariants[] = {
    {kDiag, "diag_matmul_kernel1", 1,
     "naive diag(A) @ B: per element a loop over k with a (k == i) branch, O(N^2 M)", false,
     diag_matmul::launch1, diag_matmul::supports},
    {kDiag, "diag_matmul_kernel2", 2, "broadcast form: one thread per element, C = A[i] * B[i,j]",
     false, diag_matmul::launch2, diag_matmul::supports},
    {kDiag, "diag_matmul_kernel3", 3,
     "float4 loads/stores, 4 in flight per thread, grid-stride; scalar head/tail per row", false,
     diag_matmul::launch3, diag_matmul::supports},

    {kSoftmax, "softmax_kernel1", 1, "naive: one thread per row, three passes", false,
     softmax::launch1, softmax::supports},
    {kSoftmax, "softmax_kernel2", 2, "one block per row, shared-memory tree reductions", false,
     softmax::launch2, softmax::supports},
    {kSoftmax, "softmax_kernel3", 3,
     "one pass with online max/sum, warp-shuffle reductions, float4 loads", false, softmax::launch3,
     softmax::supports},
    {kSoftmax, "softmax_kernel4", 4,
     "row split over a thread-block cluster, kept in shared memory: HBM read once", false,
     softmax::launch4, softmax::supports4},
    {kSoftmax, "softmax_kernel5", 5,
     "row split over a cluster, streamed: HBM read once, write pass re-reads from L2", false,
     softmax::launch5, softmax::supports},
    {kSoftmax, "softmax_kernel6", 6,
     "persistent row-over-cluster in shared memory: next row's loads overlap this row's writes",
     false, softmax::launch6, softmax::supports6},

    {kRms, "rmsnorm_kernel1", 1, "naive: one thread per (b,h,w) column, loops C twice", false,
     rmsnorm::launch1, rmsnorm::supports},
    {kRms, "rmsnorm_kernel2", 2,
     "one pass: float4 columns, channels in registers, shared-memory reduction over groups", false,
     rmsnorm::launch2, rmsnorm::supports},

    {kConv, "convtranspose3d_mean_add_softmax_tanh_scale_kernel1", 1,
     "six-kernel chain as PyTorch runs it: gather-form conv, mean, add, softmax, tanh, scale",
     false, conv_task::launch1, conv_task::supports, nullptr, conv_task::workspace1},
    {kConv, "convtranspose3d_mean_add_softmax_tanh_scale_kernel2", 2,
     "fused: all channels in registers from shared-memory weights, epilogue in registers", false,
     conv_task::launch2, conv_task::supports2},
    {kConv, "convtranspose3d_mean_add_softmax_tanh_scale_kernel3", 3,
     "SHORTCUT: writes tanh(1) * scale without reading the input (softmax over a size-1 axis)",
     true, conv_task::launch3, conv_task::supports, "L2-13"},
};

constexpr double kF = sizeof(float);

double diagBytes(const Args& a) {
    const double N = static_cast<double>(a.dims[0]), M = static_cast<double>(a.dims[1]);
    return kF * (N + 2.0 * N * M);
}
double diagFlops(const Args& a) {
    return static_cast<double>(a.dims[0]) * static_cast<double>(a.dims[1]);
}

double softmaxBytes(const Args& a) {
    return kF * 2.0 * static_cast<double>(a.dims[0]) * static_cast<double>(a.dims[1]);
}
double softmaxFlops(const Args& a) {
    return 5.0 * static_cast<double>(a.dims[0]) * static_cast<double>(a.dims[1]);
}

double rmsElems(const Args& a) {
    return static_cast<double>(a.dims[0]) * static_cast<double>(a.dims[1]) *
           static_cast<double>(a.dims[2]) * static_cast<double>(a.dims[3]);
}
double rmsBytes(const Args& a) {
    return kF * 2.0 * rmsElems(a);
}
double rmsFlops(const Args& a) {
    const double columns = static_cast<double>(a.dims[0]) * static_cast<double>(a.dims[2]) *
                           static_cast<double>(a.dims[3]);
    return 3.0 * rmsElems(a) + 3.0 * columns;
}

double convBytes(const Args& a) {
    const auto s = plan::convTaskShape(a.dims);
    if (s.error) return 0.0;
    return kF * static_cast<double>(s.xElems + s.wElems + s.Cout + s.biasElems + s.outElems);
}
double convFlops(const Args& a) {
    const auto s = plan::convTaskShape(a.dims);
    if (s.error || s.convElems == 0) return 0.0;
    const double taps =
        static_cast<double>(plan::convTransposeValidPairs(s.D, s.Do, s.K, s.stride, s.pad)) *
        static_cast<double>(plan::convTransposeValidPairs(s.H, s.Ho, s.K, s.stride, s.pad)) *
        static_cast<double>(plan::convTransposeValidPairs(s.W, s.Wo, s.K, s.stride, s.pad));
    const double macs =
        taps * static_cast<double>(s.N) * static_cast<double>(s.Cin) * static_cast<double>(s.Cout);
    return 2.0 * macs + 2.0 * static_cast<double>(s.convElems) +
           8.0 * static_cast<double>(s.outElems);
}

const std::array<OpInfo, 4>& opTable() {
    static const std::array<OpInfo, 4> table{{
        {kDiag,
         "C = diag(A) @ B, A [N], B [N, M]",
         {"L1-12"},
         "4 * (N + 2*N*M): read A and B, write C",
         "N*M: one multiply per output element (the diag @ B baseline does 2*N*N*M)",
         diagBytes,
         diagFlops},
        {kSoftmax,
         "softmax over the last dim of x [rows, cols]",
         {"L1-23"},
         "4 * 2*rows*cols: read x, write y",
         "5*rows*cols: max, subtract, exp, sum, divide per element",
         softmaxBytes,
         softmaxFlops},
        {kRms,
         "x / sqrt(mean(x^2, dim=1) + eps) for x [B, C, H, W], no weight",
         {"L1-36"},
         "4 * 2*B*C*H*W: read x, write y",
         "3*B*C*H*W + 3*B*H*W: square-add and scale per element, mean/eps/sqrt per column",
         rmsBytes,
         rmsFlops},
        {kConv,
         "ConvTranspose3d -> mean -> + bias -> softmax -> tanh -> * scale; dims[10] = 1 is the "
         "broken task (mean over channels, softmax over a size-1 axis), 2 the repaired one",
         {"L2-13", "L2-13r"},
         "4 * (x + weight + conv_bias + bias + out): every operand once, no intermediate",
         "2 * MACs of the transposed conv over taps that land inside the output, + 2 per conv "
         "value (bias, mean) + 8 per output (add, softmax, tanh, scale); the broken task's true "
         "floor is 0 because its output is constant",
         convBytes,
         convFlops},
    }};
    return table;
}

} // namespace

std::span<const Variant> registry() {
    return kVariants;
}

std::vector<const Variant*> variantsFor(std::string_view op) {
    std::vector<const Variant*> out;
    for (const Variant& v : kVariants)
        if (op == v.op) out.push_back(&v);
    std::stable_sort(out.begin(), out.end(),
                     [](const Variant* a, const Variant* b) { return a->version < b->version; });
    return out;
}

const Variant* findVariant(std::string_view name) {
    for (const Variant& v : kVariants)
        if (name == v.name) return &v;
    return nullptr;
}

std::span<const OpInfo> ops() {
    return opTable();
}

const OpInfo* findOp(std::string_view op) {
    for (const OpInfo& o : opTable())
        if (op == o.op) return &o;
    return nullptr;
}

double minBytes(std::string_view op, const Args& args) {
    const OpInfo* o = findOp(op);
    return o ? o->minBytes(args) : 0.0;
}

double flops(std::string_view op, const Args& args) {
    const OpInfo* o = findOp(op);
    return o ? o->flops(args) : 0.0;
}

} // namespace ks::kernels
