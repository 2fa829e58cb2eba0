// SPDX-License-Identifier: MIT
#pragma once
// Linux's memory counts as /proc gives them: the "Key:   N kB" lines of /proc/meminfo and
// /proc/self/status.

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

// The values of `keys` ("MemTotal", "RssAnon", ...) in the file `path`, in bytes, in the order
// asked; 0 for a key the file lacks or a file that cannot be read.
std::vector<int64_t> procBytes(const std::string& path, const std::vector<std::string>& keys);

} // namespace ks
