// SPDX-License-Identifier: MIT
#pragma once
// kernelsieve-cli merge: the results files of `filter --shard K/N` runs as one (resultsmerge.h).

#include <functional>

namespace CLI {
class App;
}

namespace ks::cli {

void addMergeCommand(CLI::App& app, std::function<int()>& action);

} // namespace ks::cli
