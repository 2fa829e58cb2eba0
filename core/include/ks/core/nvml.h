// SPDX-License-Identifier: MIT
#pragma once
// The SM clock and the clock-event (throttle) reasons of one GPU, read through NVML from the
// driver's own library (libnvidia-ml.so.1, opened at run time: no new package, no link-time
// dependency). $KS_NVML_LIBRARY names another library (the tests use a scripted one).

#include "ks/core/benchresults.h"

#include <cstdint>
#include <string>

namespace ks::nvml {

struct Reading {
    double smMhz = NaN;
    uint64_t reasons = 0;
    bool ok = false;
};

class Clocks {
public:
    // The GPU with this PCI bus id (cudaDeviceGetPCIBusId's "0000:19:00.0"), else NVML device 0
    // when `pciBusId` is empty. Never throws: problem() says why nothing can be read.
    explicit Clocks(const std::string& pciBusId);
    ~Clocks();
    Clocks(const Clocks&) = delete;
    Clocks& operator=(const Clocks&) = delete;

    bool available() const { return m_device != nullptr; }
    const std::string& problem() const { return m_problem; }
    // "nvml" or "unavailable: <why>", for the bench file.
    std::string source() const { return available() ? "nvml" : "unavailable: " + m_problem; }
    Reading read() const;

private:
    void* m_lib = nullptr;
    void* m_device = nullptr;
    std::string m_problem;
    int (*m_clockInfo)(void*, int, unsigned*) = nullptr;
    int (*m_reasons)(void*, unsigned long long*) = nullptr;
    int (*m_shutdown)() = nullptr;
};

// The record of one timed block from the readings before and after it.
ClockBlock blockOf(const Reading& before, const Reading& after, double limit = ClockDriftLimit);

} // namespace ks::nvml
