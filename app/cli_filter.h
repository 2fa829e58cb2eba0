// SPDX-License-Identifier: MIT
#pragma once
// kernelsieve-cli filter: the six criteria over a suite. The command itself never loads a task:
// it starts a worker (this program, `filter --worker-fd 3`) that runs the tasks and reports on a
// pipe, kills it when a task runs past --task-timeout or crashes it, records that task and starts
// another worker for the rest. Results go through ks::ResultsSink (lock, journal, resume).

#include <atomic>
#include <functional>

namespace CLI {
class App;
}

namespace ks::cli {

// Registers the subcommand. `cancel` is set by the first Ctrl-C / SIGTERM, `kill` by the second.
void addFilterCommand(CLI::App& app, std::function<int()>& action, std::atomic<bool>& cancel,
                      std::atomic<bool>& kill);

} // namespace ks::cli
