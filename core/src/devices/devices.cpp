// SPDX-License-Identifier: MIT
#include "ks/core/devices.h"
#include "ks/core/taskspec.h"

#include <charconv>
#include <cstdlib>
#include <set>

namespace ks {
namespace {

std::vector<std::string> splitCommas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t comma = s.find(',', start);
        std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        out.push_back(item);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

} // namespace

std::vector<GpuSlot> parseDeviceList(const std::string& spec, int count, const char* parentVisible) {
    std::vector<std::string> visible;
    if (parentVisible) visible = splitCommas(parentVisible);
    auto slot = [&](int ordinal) {
        GpuSlot g;
        g.ordinal = ordinal;
        g.visibleId = parentVisible && static_cast<size_t>(ordinal) < visible.size() ? visible[static_cast<size_t>(ordinal)]
                                                                                    : std::to_string(ordinal);
        return g;
    };
    if (count <= 0)
        throw Error("--devices " + spec + ": no CUDA device is visible here" +
                    (parentVisible ? " (CUDA_VISIBLE_DEVICES='" + std::string(parentVisible) + "')" : std::string()));
    std::vector<GpuSlot> out;
    if (spec == "all") {
        for (int i = 0; i < count; ++i) out.push_back(slot(i));
        return out;
    }
    std::set<int> seen;
    for (const auto& item : splitCommas(spec)) {
        int v = -1;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 0)
            throw Error("--devices '" + spec + "': expected 'all' or device ordinals like 0,1,3 ('" + item +
                        "' is not one)");
        if (v >= count)
            throw Error("--devices '" + spec + "': device " + item + " does not exist (" + std::to_string(count) +
                        " visible: 0-" + std::to_string(count - 1) + ")");
        if (!seen.insert(v).second) throw Error("--devices '" + spec + "': device " + item + " is given twice");
        out.push_back(slot(v));
    }
    return out;
}

int fakeDeviceCount() {
    const char* v = std::getenv("KS_FAKE_DEVICES");
    if (!v || !*v) return -1;
    int n = -1;
    const std::string s = v;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || end != s.data() + s.size() || n < 0)
        throw Error("KS_FAKE_DEVICES='" + s + "': expected a device count (it is for tests only)");
    return n;
}

std::vector<GpuSlot> resolveDevices(const std::string& spec) {
    if (fakeDeviceCount() >= 0) return parseDeviceList(spec, fakeDeviceCount(), nullptr);
    return parseDeviceList(spec, visibleCudaDeviceCount(), std::getenv("CUDA_VISIBLE_DEVICES"));
}

} // namespace ks
