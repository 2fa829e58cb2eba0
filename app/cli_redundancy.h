// SPDX-License-Identifier: MIT
#pragma once
// kernelsieve-cli redundancy: filter 6 (redundant computation) on its own, per task, with the
// redundant nodes and the FLOP fraction they take (docs/redundancy.md).

#include <functional>

namespace CLI {
class App;
}

namespace ks::cli {

// Registers the subcommand on `app`. When it is parsed, `action` is set to the code that runs it
// and returns the process exit code.
void addRedundancyCommand(CLI::App& app, std::function<int()>& action);

} // namespace ks::cli
