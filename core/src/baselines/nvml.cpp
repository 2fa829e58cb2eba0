// SPDX-License-Identifier: MIT
#include "ks/core/nvml.h"

#include <cstdlib>
#include <dlfcn.h>

namespace ks::nvml {
namespace {
constexpr int NvmlSuccess = 0;
constexpr int NvmlClockSm = 1; // NVML_CLOCK_SM
} // namespace

Clocks::Clocks(const std::string& pciBusId) {
    const char* env = std::getenv("KS_NVML_LIBRARY");
    const std::string lib = env && *env ? env : "libnvidia-ml.so.1";
    m_lib = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m_lib) {
        const char* e = ::dlerror();
        m_problem = "cannot open " + lib + (e ? std::string(" (") + e + ")" : "");
        return;
    }
    auto sym = [&](const char* name) { return ::dlsym(m_lib, name); };
    using InitFn = int (*)();
    using ByBusFn = int (*)(const char*, void**);
    using ByIndexFn = int (*)(unsigned, void**);
    using ErrFn = const char* (*)(int);
    const auto init = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
    const auto byBus = reinterpret_cast<ByBusFn>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    const auto byIndex = reinterpret_cast<ByIndexFn>(sym("nvmlDeviceGetHandleByIndex_v2"));
    const auto err = reinterpret_cast<ErrFn>(sym("nvmlErrorString"));
    m_clockInfo = reinterpret_cast<int (*)(void*, int, unsigned*)>(sym("nvmlDeviceGetClockInfo"));
    // Renamed in CUDA 12.2's NVML; the old name stays as an alias in older drivers.
    m_reasons = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
    if (!m_reasons)
        m_reasons = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    m_shutdown = reinterpret_cast<int (*)()>(sym("nvmlShutdown"));
    auto message = [&](int rc) { return err ? std::string(err(rc)) : "NVML error " + std::to_string(rc); };
    if (!init || !byBus || !byIndex || !m_clockInfo) {
        m_problem = lib + " lacks the NVML functions KernelSieve reads";
        return;
    }
    if (const int rc = init(); rc != NvmlSuccess) {
        m_problem = "nvmlInit: " + message(rc);
        m_shutdown = nullptr;
        return;
    }
    void* dev = nullptr;
    const int rc = pciBusId.empty() ? byIndex(0, &dev) : byBus(pciBusId.c_str(), &dev);
    if (rc != NvmlSuccess || !dev) {
        m_problem = "no NVML device for " + (pciBusId.empty() ? std::string("index 0") : "PCI bus " + pciBusId) + ": " +
                    message(rc);
        return;
    }
    unsigned mhz = 0;
    if (const int c = m_clockInfo(dev, NvmlClockSm, &mhz); c != NvmlSuccess) {
        m_problem = "nvmlDeviceGetClockInfo: " + message(c);
        return;
    }
    m_device = dev;
}

Clocks::~Clocks() {
    if (m_shutdown) m_shutdown();
    if (m_lib) ::dlclose(m_lib);
}

Reading Clocks::read() const {
    Reading r;
    if (!m_device) return r;
    unsigned mhz = 0;
    if (m_clockInfo(m_device, NvmlClockSm, &mhz) != NvmlSuccess) return r;
    r.smMhz = mhz;
    unsigned long long reasons = 0;
    if (m_reasons && m_reasons(m_device, &reasons) == NvmlSuccess) r.reasons = reasons;
    r.ok = true;
    return r;
}

ClockBlock blockOf(const Reading& before, const Reading& after, double limit) {
    ClockBlock b;
    b.smMhzBefore = before.ok ? before.smMhz : NaN;
    b.smMhzAfter = after.ok ? after.smMhz : NaN;
    b.reasonsBefore = before.reasons;
    b.reasonsAfter = after.reasons;
    b.moved = clockMoved(b.smMhzBefore, b.smMhzAfter, limit);
    return b;
}

} // namespace ks::nvml
