// SPDX-License-Identifier: MIT
// The interface between a compiled external kernel (a torch-extension .cu built by KernelSieve
// with its own torch/extension.h) and the harness worker that calls it. Both sides are compiled
// against the same LibTorch headers by the same host compiler, so at::Tensor and c10::IValue
// cross it safely; a version number guards against a stale cached kernel.so.
#pragma once

#include <ATen/core/ivalue.h>

#include <string>

#define KS_EXT_ABI_VERSION 1

struct KsExtFunction {
    const char* name;      // as bound by m.def("name", ...)
    const char* signature; // "Tensor(Tensor, double)", for messages
    int arity;             // number of parameters
    int firstDefault;      // index of the first parameter with a py::arg default (arity if none)
    const c10::IValue* defaults; // arity - firstDefault default values
    void* callable;
    // Calls the function with `nargs` arguments (missing trailing ones take their defaults).
    // Returns true and sets *out, or false and sets *error (the message of a thrown exception,
    // an argument that cannot be converted, or a result that is not one Tensor).
    bool (*call)(void* callable, const c10::IValue* args, int nargs, at::Tensor* out, std::string* error);
};

// Exported by every kernel.so: the ABI version, and the functions the module bound.
extern "C" int ks_ext_abi_version();
extern "C" int ks_ext_functions(const KsExtFunction** out);
