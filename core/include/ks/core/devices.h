// SPDX-License-Identifier: MIT
#pragma once
// `--devices all|0,1,...`: the GPUs of one host a run spreads over. Each gets its own workers,
// started with CUDA_VISIBLE_DEVICES set to that GPU alone, so a worker's `cuda:0` is its GPU.

#include <string>
#include <vector>

namespace ks {

struct GpuSlot {
    int ordinal = 0;       // CUDA's ordinal in this process (what --devices names)
    std::string visibleId; // what the worker's CUDA_VISIBLE_DEVICES is set to
    std::string env() const { return "CUDA_VISIBLE_DEVICES=" + visibleId; }
    std::string label() const { return "gpu " + std::to_string(ordinal); }
};

// Parses `spec` ("all", or ordinals "0,2,3") against the `count` CUDA devices this process sees.
// `parentVisible` is this process's own CUDA_VISIBLE_DEVICES (null when unset): ordinal i is its
// i-th entry, so a run inside a Slurm allocation (CUDA_VISIBLE_DEVICES=4,5) hands worker 0 GPU 4.
// Throws ks::Error naming the bad value (no device, an ordinal out of range, one given twice).
std::vector<GpuSlot> parseDeviceList(const std::string& spec, int count, const char* parentVisible);

// KS_FAKE_DEVICES=N, for tests only: `all` means N devices (ordinals 0..N-1, passed on as they
// are) without asking CUDA, so the scheduling runs on a machine without a GPU. -1 when unset.
int fakeDeviceCount();

// The CUDA devices this process sees: fakeDeviceCount() when set, else the CUDA driver's count
// (0 without a driver). Initialises the driver, creates no context; needs no CUDA runtime.
int visibleCudaDeviceCount();

// parseDeviceList over visibleCudaDeviceCount() and $CUDA_VISIBLE_DEVICES (ordinals as they are
// under KS_FAKE_DEVICES).
std::vector<GpuSlot> resolveDevices(const std::string& spec);

} // namespace ks
