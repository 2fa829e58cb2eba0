// SPDX-License-Identifier: MIT
#pragma once
// kernelsieve-cli import-kernelbench / export-robust-kbench: KernelBench task folders in (through
// the Python exporter, run as a child process), robust-kbench filter_results.json files out.

#include <functional>

namespace CLI {
class App;
}

namespace ks::cli {

// Registers both subcommands on `app`. When one of them is parsed, `action` is set to the code
// that runs it and returns the process exit code.
void addImportCommands(CLI::App& app, std::function<int()>& action);

} // namespace ks::cli
