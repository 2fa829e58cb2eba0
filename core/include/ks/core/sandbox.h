// SPDX-License-Identifier: MIT
#pragma once
// Untrusted code (the Python exporter on a task file, a ModelNew capture, the workers that run
// imported tasks and external kernels) runs inside kernelsieve-sandbox (docs/sandbox.md): its own
// user, mount, PID and network namespaces, a read-only view of the system, write access to the
// folders named here only, resource limits, and nothing of it left when it ends.

#include <cstdint>
#include <string>
#include <vector>

namespace ks {

struct SandboxSpec {
    std::vector<std::string> writable; // folders it may write (created if missing)
    double cpuSeconds = 0;             // RLIMIT_CPU, 0 for none
    int64_t memoryBytes = 0;           // RLIMIT_AS, 0 for none (CUDA reserves huge address ranges)
    bool network = false;
};

enum class SandboxMode {
    Required, // the default: untrusted code runs sandboxed, and a machine without one is an error
    Off,      // --no-sandbox / KS_SANDBOX=off: it runs with the user's rights
    Auto,     // KS_SANDBOX=auto (the tests): sandboxed where possible, else a warning
};

// Process-wide; the CLI sets it once from --no-sandbox and KS_SANDBOX before running anything.
void setSandboxMode(SandboxMode m);
SandboxMode sandboxMode();
// KS_SANDBOX (on|off|auto, default on), overridden by --no-sandbox. Throws ks::Error on an unknown value.
SandboxMode sandboxModeFromEnvironment(bool noSandboxFlag);

// kernelsieve-sandbox: $KS_SANDBOX_HELPER, else next to this executable, else on PATH.
std::string sandboxHelperPath();
// Empty when the sandbox works on this machine, else why not (from `kernelsieve-sandbox --check`,
// run once per process).
std::string sandboxProblem();
// Whether sandboxed() wraps: the mode is Required or Auto, and the sandbox works.
bool sandboxActive();

// `argv` to run through the sandbox (when active), or as is.
std::vector<std::string> sandboxed(const std::vector<std::string>& argv, const SandboxSpec& spec);

// What a command that runs untrusted code says before it starts: empty when it may go on, else
// the error (the sandbox is required and missing). Prints nothing itself.
std::string sandboxRefusal();
// The warning for Auto without a sandbox, or Off: empty when sandboxed.
std::string sandboxWarning();

} // namespace ks
