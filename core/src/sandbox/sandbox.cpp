// SPDX-License-Identifier: MIT
#include "ks/core/sandbox.h"
#include "ks/core/process.h"
#include "ks/core/taskspec.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <unistd.h>

namespace ks {
namespace {
namespace fs = std::filesystem;

SandboxMode g_mode = SandboxMode::Off; // library default: callers that embed us opt in
std::once_flag g_checked;
std::string g_problem;

std::string selfDir() {
    std::error_code ec;
    const auto self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : self.parent_path().string();
}

} // namespace

void setSandboxMode(SandboxMode m) { g_mode = m; }
SandboxMode sandboxMode() { return g_mode; }

SandboxMode sandboxModeFromEnvironment(bool noSandboxFlag) {
    if (noSandboxFlag) return SandboxMode::Off;
    const char* v = std::getenv("KS_SANDBOX");
    const std::string s = v ? v : "";
    if (s.empty() || s == "on" || s == "1") return SandboxMode::Required;
    if (s == "off" || s == "0") return SandboxMode::Off;
    if (s == "auto") return SandboxMode::Auto;
    throw Error("KS_SANDBOX='" + s + "': expected on, off or auto");
}

std::string sandboxHelperPath() {
    if (const char* p = std::getenv("KS_SANDBOX_HELPER"); p && *p) return p;
    const std::string dir = selfDir();
    std::error_code ec;
    if (!dir.empty() && fs::exists(dir + "/kernelsieve-sandbox", ec)) return dir + "/kernelsieve-sandbox";
    return "kernelsieve-sandbox";
}

std::string sandboxProblem() {
    std::call_once(g_checked, [] {
        const std::string helper = sandboxHelperPath();
        char tmpl[] = "/tmp/kernelsieve-sandbox-check-XXXXXX";
        const int fd = ::mkstemp(tmpl);
        if (fd < 0) {
            g_problem = "cannot create a temporary file to check the sandbox";
            return;
        }
        ::close(fd);
        const ProcessResult r = runProcess({helper, "--host-tmp", "--check"}, tmpl, 30);
        std::string out = fileTail(tmpl, 2000);
        ::unlink(tmpl);
        while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
        if (r.ok()) return;
        if (!r.startError.empty() || r.exitCode == 127)
            g_problem = "the helper " + helper + " cannot be run (" + (r.startError.empty() ? r.describe() : r.startError) +
                        "); it is built and installed next to kernelsieve-cli";
        else
            g_problem = out.empty() ? helper + " --check failed (" + r.describe() + ")" : out;
    });
    return g_problem;
}

bool sandboxActive() { return g_mode != SandboxMode::Off && sandboxProblem().empty(); }

std::vector<std::string> sandboxed(const std::vector<std::string>& argv, const SandboxSpec& spec) {
    if (!sandboxActive()) return argv;
    // --host-tmp: our tools, suites and scratch folders may live in /tmp (a CI clone does).
    std::vector<std::string> out{sandboxHelperPath(), "--host-tmp"};
    for (const auto& w : spec.writable) {
        std::error_code ec;
        fs::create_directories(w, ec);
        out.insert(out.end(), {"--rw", w});
    }
    if (spec.cpuSeconds > 0) out.insert(out.end(), {"--cpu", std::to_string(static_cast<long long>(spec.cpuSeconds))});
    if (spec.memoryBytes > 0) out.insert(out.end(), {"--mem", std::to_string(spec.memoryBytes)});
    if (spec.network) out.push_back("--net");
    out.push_back("--");
    // LibTorch's jiterator caches compiled kernels in ~/.cache/torch/kernels, read-only here; a
    // cache the program could write and a later process would load is what the sandbox must not
    // allow, so it gets a private one.
    out.insert(out.end(), {"env", "PYTORCH_KERNEL_CACHE_PATH=/dev/shm/tmp/torch-kernels"});
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

std::string sandboxRefusal() {
    if (g_mode != SandboxMode::Required) return "";
    const std::string p = sandboxProblem();
    if (p.empty()) return "";
    return "the sandbox is not available here: " + p +
           ".\nTask files and kernels are someone else's code: without the sandbox they run with your full rights "
           "(your files, the network, processes that outlive the run). Pass --no-sandbox (or set KS_SANDBOX=off) "
           "to run them anyway; docs/sandbox.md says what the sandbox does";
}

std::string sandboxWarning() {
    if (g_mode == SandboxMode::Off)
        return "running WITHOUT the sandbox (--no-sandbox): task files and kernels run with your full rights";
    if (g_mode == SandboxMode::Auto && !sandboxProblem().empty())
        return "running WITHOUT the sandbox (KS_SANDBOX=auto, and it is not available: " + sandboxProblem() + ")";
    return "";
}

} // namespace ks
