// SPDX-License-Identifier: MIT
#pragma once
// Child processes for work that may crash or hang (compilers, capture scripts, harness workers):
// started in their own process group, output to a file, killed with the whole group on a
// timeout or a cancel.

#include <atomic>
#include <string>
#include <vector>

namespace ks {

struct ProcessResult {
    int exitCode = -1; // -1 when it did not exit normally
    int signal = 0;    // the signal that ended it
    bool timedOut = false, cancelled = false;
    std::string startError; // non-empty: it could not be started
    bool ok() const { return startError.empty() && exitCode == 0 && !timedOut && !cancelled; }
    std::string describe() const; // "exit status 2", "killed after 600 s (timeout)", ...
};

// Runs argv[0] (searched on PATH when it has no slash) with stdout and stderr to `outputPath`
// (appended to when `append`), in `workDir` when set. Never throws.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& outputPath, double timeoutSeconds,
                         const std::atomic<bool>* cancel = nullptr, const std::string& workDir = {},
                         bool append = false);

// The last `maxBytes` of a file ("" if unreadable), for messages.
std::string fileTail(const std::string& path, size_t maxBytes = 4000);

// Removes a folder and everything below it without std::filesystem::remove_all (libtorch.so
// exports its own copy of that symbol, which the dynamic linker may bind and which crashed).
void removeTree(const std::string& path);

} // namespace ks
