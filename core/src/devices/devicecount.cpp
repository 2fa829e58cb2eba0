// SPDX-License-Identifier: MIT
// The CUDA runtime's device count, apart from devices.cpp so that ks_core_base stays free of CUDA.
#include "ks/core/devices.h"

#ifdef KS_TORCH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace ks {

int visibleCudaDeviceCount() {
    if (const int fake = fakeDeviceCount(); fake >= 0) return fake;
#ifdef KS_TORCH_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    return n;
#else
    return 0;
#endif
}

} // namespace ks
