// SPDX-License-Identifier: MIT
#pragma once
// kernelsieve-cli inefficiency: filter 5 (baseline inefficiency, measured) on its own, per task:
// roofline floor against the eager time, and the rewrite rules with their measured effect
// (docs/inefficiency.md).

#include <functional>

namespace CLI {
class App;
}

namespace ks::cli {

// Registers the subcommand on `app`. When it is parsed, `action` is set to the code that runs it
// and returns the process exit code.
void addInefficiencyCommand(CLI::App& app, std::function<int()>& action);

} // namespace ks::cli
