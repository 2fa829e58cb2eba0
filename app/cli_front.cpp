// SPDX-License-Identifier: MIT
// kernelsieve-cli: the command line. `filter` (the command that only plans, starts workers and
// saves: cli_filter.cpp) runs in this program, which links no LibTorch: LibTorch's loading and
// static initialisation took 0.25-0.3 s of every filter run's start on the H200, before the
// worker could even start (bench/engine/RESULTS.md). Everything else (the other commands, the
// filter's worker, --version, --help) is kernelsieve-engine's, beside this program, which this
// program becomes (execv, the same arguments; its argv[0] is kept, so it names itself as this).

#include "cli_common.h"
#include "cli_filter.h"

#include "ks/core/sandbox.h"
#include "ks/core/taskspec.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<bool> g_kill{false};
std::atomic<int> g_signals{0};

// As kernelsieve-engine's: the first Ctrl-C stops after the current seed, the second (or a SIGTERM,
// as the GUI's cancel sends) kills the worker at once; both keep the finished tasks. A third ends us.
extern "C" void onFilterSignal(int sig) {
    const int n = ++g_signals;
    g_cancel = true;
    if (sig == SIGTERM || n >= 2) g_kill = true;
    if (n >= 3) std::_Exit(130);
}

// `[--no-sandbox ...] filter ...` that is not a worker's command line: the command runs here.
bool runsHere(int argc, char** argv) {
    int i = 1;
    while (i < argc && std::strcmp(argv[i], "--no-sandbox") == 0) ++i;
    if (i >= argc || std::strcmp(argv[i], "filter") != 0) return false;
    for (int j = i + 1; j < argc; ++j)
        if (std::strcmp(argv[j], "--worker-fd") == 0 || std::strncmp(argv[j], "--worker-fd=", 12) == 0) return false;
    return true;
}

int runFilter(int argc, char** argv) {
    CLI::App app{"KernelSieve: audit GPU-kernel benchmark tasks for flaws (headless engine)"};
    app.require_subcommand(1, 1);
    bool noSandbox = false;
    app.add_flag("--no-sandbox", noSandbox,
                 "Run task files and kernels WITHOUT the sandbox (with your full rights); only where the sandbox "
                 "is not available (docs/sandbox.md)");
    std::function<int()> action;
    ks::cli::addFilterCommand(app, action, g_cancel, g_kill, /*worker=*/nullptr);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    try {
        ks::setSandboxMode(ks::sandboxModeFromEnvironment(noSandbox));
    } catch (const ks::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 2;
    }
    std::signal(SIGINT, onFilterSignal);
    std::signal(SIGTERM, onFilterSignal);
    return action();
}

} // namespace

int main(int argc, char** argv) {
    // The filter's workers are kernelsieve-engine too: without it nothing can run.
    const std::string engine = ks::cli::engineBeside();
    if (::access(engine.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "kernelsieve-cli: the program %s is missing (it is built and installed beside "
                             "kernelsieve-cli); rebuild or reinstall kernelsieve\n",
                     engine.c_str());
        return 127;
    }
    if (!runsHere(argc, argv)) {
        ::execv(engine.c_str(), argv);
        std::fprintf(stderr, "kernelsieve-cli: cannot run %s: %s (it is built and installed beside kernelsieve-cli)\n",
                     engine.c_str(), std::strerror(errno));
        return 127;
    }
    ks::cli::traceStart("main of the CLI");
    const int rc = runFilter(argc, argv);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(rc);
}
