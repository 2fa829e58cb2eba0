// SPDX-License-Identifier: MIT
#include "ks/core/procinfo.h"

#include <fstream>
#include <sstream>

namespace ks {

std::vector<int64_t> procBytes(const std::string& path, const std::vector<std::string>& keys) {
    std::vector<int64_t> out(keys.size(), 0);
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        for (size_t i = 0; i < keys.size(); ++i)
            if (line.compare(0, colon, keys[i]) == 0) {
                int64_t kb = 0;
                std::istringstream(line.substr(colon + 1)) >> kb;
                out[i] = kb * 1024;
            }
    }
    return out;
}

} // namespace ks
