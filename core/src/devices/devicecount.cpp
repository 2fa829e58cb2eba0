// SPDX-License-Identifier: MIT
// The CUDA driver's device count, through libcuda.so.1 opened at run time: the filter's driver
// (kernelsieve-cli, no LibTorch and no CUDA runtime) counts the GPUs of --devices with it. The
// driver API sees what the runtime sees, CUDA_VISIBLE_DEVICES included.
#include "ks/core/devices.h"

#include <dlfcn.h>

namespace ks {

int visibleCudaDeviceCount() {
    if (const int fake = fakeDeviceCount(); fake >= 0) return fake;
    // Kept open: the CUDA runtime of this process (if any) uses the same library.
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) return 0; // no NVIDIA driver here
    using InitFn = int (*)(unsigned);
    using CountFn = int (*)(int*);
    const auto init = reinterpret_cast<InitFn>(::dlsym(cuda, "cuInit"));
    const auto count = reinterpret_cast<CountFn>(::dlsym(cuda, "cuDeviceGetCount"));
    int n = 0;
    if (!init || !count || init(0) != 0 || count(&n) != 0) return 0; // 0: CUDA_SUCCESS
    return n;
}

} // namespace ks
