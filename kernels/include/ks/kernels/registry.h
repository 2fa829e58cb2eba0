// SPDX-License-Identifier: MIT
// The kernel registry: every CUDA kernel variant the engine can validate and time, described by
// data so that the UI and the CLI list them without a switch. Plain C++ (no CUDA-C syntax), so
// g++-compiled code includes it; only <cuda_runtime_api.h> is needed for cudaError_t/cudaStream_t.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ks::kernels {

// Operand pack. All tensors are contiguous, row-major float32 in device memory, at least 4-byte
// aligned (16-byte alignment is not required: every variant has a scalar path). `out` must not
// overlap any input. Layout per op:
//
// "diag_matmul"  C = diag(A) @ B                                   (KernelBench L1-12)
//     in[0] = A [N], in[1] = B [N, M], out = C [N, M]; dims[0] = N, dims[1] = M.
// "softmax"      y = softmax(x, dim=-1)                            (KernelBench L1-23)
//     in[0] = x [rows, cols], out = y [rows, cols]; dims[0] = rows, dims[1] = cols.
//     NaN/Inf behave as in torch.softmax: a row holding NaN or +Inf, or only -Inf, becomes NaN.
// "rmsnorm"      y = x / sqrt(mean(x^2, dim=1, keepdim) + eps)     (KernelBench L1-36, no weight)
//     in[0] = x [B, C, H, W], out = y [B, C, H, W]; dims[0..3] = B, C, H, W; scalars[0] = eps.
// "convtranspose3d_mean_add_softmax_tanh_scale"                    (KernelBench L2-13)
//     v = ConvTranspose3d(x; weight, conv_bias, stride, padding, output_padding)
//     y = tanh(softmax(mean(v, dim=mean_dim, keepdim) + bias, dim=softmax_dim)) * scale
//     in[0] = x [N, Cin, D, H, W], in[1] = weight [Cin, Cout, K, K, K] (PyTorch's layout for
//     transposed convolutions), in[2] = conv_bias [Cout], in[3] = bias [Cb];
//     dims[0..5] = N, Cin, D, H, W, Cout; dims[6] = K; dims[7] = stride; dims[8] = padding;
//     dims[9] = output_padding; dims[10] = mean_dim; dims[11] = softmax_dim; scalars[0] = scale.
//     mean_dim 1 is the broken task as KernelBench shipped it (L2-13): mean over the channels,
//       bias (1,1,1,1,1) so Cb = 1, out [N, 1, Do, Ho, Wo], softmax_dim 1 has size 1 and the
//       output is the constant tanh(1) * scale whatever the input.
//     mean_dim 2 is the repaired task (L2-13r): mean over depth, bias (1,Cout,1,1,1) so
//       Cb = Cout, out [N, Cout, 1, Ho, Wo], softmax_dim 1 runs across the Cout channels.
//     Do = (D-1)*stride - 2*padding + K + output_padding, likewise Ho and Wo.
struct Args {
    const float* in[6] = {};
    float* out = nullptr;
    long long dims[12] = {};
    float scalars[4] = {};
    // Scratch memory for variants whose workspaceBytes() is non-zero. When it is missing or too
    // small the launcher takes stream-ordered memory itself (cudaMallocAsync/cudaFreeAsync),
    // which works but adds allocator time to what a timer sees.
    void* workspace = nullptr;
    std::size_t workspaceBytes = 0;
};

struct Variant {
    const char* op;      // "diag_matmul" | "softmax" | "rmsnorm" |
                         // "convtranspose3d_mean_add_softmax_tanh_scale"
    const char* name;    // "<op>_kernel<version>"
    int version;         // 1 = naive ... N = most optimized
    const char* summary; // one line: what it changes over the previous version
    bool shortcut;       // true = exploits a task flaw (output assumed constant)
    cudaError_t (*launch)(const Args&, cudaStream_t);
    const char* (*supports)(const Args&); // nullptr if supported, else the reason
    // Task ids (comma-separated) where a shortcut's assumption holds; nullptr for honest variants.
    const char* validOnly = nullptr;
    // Scratch bytes launch() wants in Args::workspace; nullptr means none.
    std::size_t (*workspaceBytes)(const Args&) = nullptr;
};

std::span<const Variant> registry();
std::vector<const Variant*> variantsFor(std::string_view op); // ascending version
const Variant* findVariant(std::string_view name);            // nullptr if unknown

struct OpInfo {
    const char* op;
    const char* description;
    std::vector<std::string> tasks; // ids of the built-in suite's tasks this op serves
    const char* bytesFormula;       // how minBytes() counts, for tooltips and reports
    const char* flopsFormula;       // how flops() counts
    double (*minBytes)(const Args&);
    double (*flops)(const Args&);
};

std::span<const OpInfo> ops();
const OpInfo* findOp(std::string_view op); // nullptr if unknown

// Fewest bytes an implementation must move through device memory (each input read once, the
// output written once) and the floating-point operations of the computation as the task states
// it, for roofline and GB/s reporting. 0 for an unknown op or an unsupported shape.
double minBytes(std::string_view op, const Args& args);
double flops(std::string_view op, const Args& args);

// Where the last launch on this thread failed: "file:line: call: error string", or "" if none.
// Launchers return the cudaError_t; this adds the context a user-facing message needs.
const char* lastErrorContext();

} // namespace ks::kernels
