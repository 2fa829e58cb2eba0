// SPDX-License-Identifier: MIT
#pragma once
// kernelsieve-cli diff A.json B.json: the tasks whose flags differ between two results files
// (two devices, two seed counts, two threshold profiles, before and after a fix), with the
// metric deltas; the workbench's compare view over the same ks::diffResults.

#include <functional>

namespace CLI {
class App;
}

namespace ks::cli {

// Registers the subcommand on `app`. When it is parsed, `action` is set to the code that runs it
// and returns the process exit code: 0 no flag differs, 1 some do, 2 bad usage, 3 a file that
// cannot be read as results, 5 the CSV cannot be written.
void addDiffCommand(CLI::App& app, std::function<int()>& action);

} // namespace ks::cli
