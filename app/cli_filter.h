// SPDX-License-Identifier: MIT
#pragma once
// kernelsieve-cli filter: the six criteria over a suite. The command itself never loads a task:
// it starts a worker (kernelsieve-engine `filter --worker-fd 3`) that runs the tasks and reports on
// a pipe, kills it when a task runs past --task-timeout or crashes it, records that task and starts
// another worker for the rest. Results go through ks::ResultsSink (lock, journal, resume).
// The command links no LibTorch (kernelsieve-cli runs it without loading the engine, cli_front.cpp).

#include <atomic>
#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace ks::cli {

namespace filter {
struct FilterArgs;
}
// The worker's side, in the program that has the engine; null where it is not linked.
using FilterWorker = int (*)(const filter::FilterArgs&, std::atomic<bool>&);

// Registers the subcommand. `cancel` is set by the first Ctrl-C / SIGTERM, `kill` by the second.
void addFilterCommand(CLI::App& app, std::function<int()>& action, std::atomic<bool>& cancel,
                      std::atomic<bool>& kill, FilterWorker worker);

// The program the filter's workers run: kernelsieve-engine beside this program, else this one.
std::string engineProgram();
// Where kernelsieve-engine belongs: beside this program (whether it is there or not).
std::string engineBeside();
// This program's file (/proc/self/exe), empty when unknown.
std::string thisProgram();

} // namespace ks::cli
