// SPDX-License-Identifier: MIT
#pragma once
// A suite: the task specs found in a folder (or the built-in suite embedded in the binary),
// plus the files that could not be loaded, each with its reason.

#include "ks/core/results.h"
#include "ks/core/taskspec.h"

#include <string>
#include <vector>

namespace ks {

struct LoadIssue {
    std::string file;
    std::string message;
};

struct Suite {
    std::string name; // "builtin" or the folder
    std::vector<TaskSpec> tasks;
    std::vector<LoadIssue> issues; // files that were skipped, with the reason

    const TaskSpec* find(const std::string& id) const;
};

// "builtin" loads the embedded suite; anything else is a folder. Throws ks::Error if the folder
// does not exist or cannot be read; bad task files are collected in Suite::issues instead.
Suite loadSuite(const std::string& nameOrPath);
Suite loadBuiltinSuite();
Suite loadSuiteDir(const std::string& dir);

// A task file or a source it names is a few KB (an imported KernelBench file at most ~100 KB); more
// than this is no task, and reading it is how a hostile suite would exhaust memory.
inline constexpr std::uintmax_t MaxTaskFileBytes = std::uintmax_t{16} << 20;
// Reads `file` for the suite in folder `suiteDir`: it must resolve (symlinks followed) to a
// regular file inside that folder and hold at most MaxTaskFileBytes. A spec's source_file of
// ../../etc/passwd, an absolute path or a symlink pointing out of the suite is refused, since its
// text would be shown and copied into results files. Throws ks::Error saying which rule it broke.
std::string readSuiteFile(const std::string& suiteDir, const std::string& file);

// Tasks whose id or name matches `pattern`: a comma-separated list of globs (`L1-*,*Softmax*`)
// matched case-insensitively against the id and the name. Empty pattern = all.
std::vector<TaskSpec> selectTasks(const Suite& suite, const std::string& pattern);
bool globMatch(const std::string& pattern, const std::string& text);
// True if `text` matches any glob of a comma-separated list (an empty list matches nothing).
bool matchesAnyGlob(const std::string& patterns, const std::string& text);

// A result row for a task that has not run yet: its identity, source and spec, status Ok.
TaskResult resultSkeleton(const TaskSpec& spec);
// A failed row for a file the loader rejected: id = the file name, error = the reason.
TaskResult failedLoadResult(const LoadIssue& issue);

// Built-in resources (suite files and profiles) embedded at build time.
struct EmbeddedFile {
    const char* path; // relative to resources/, e.g. "suite/level1/L1-023_softmax.json"
    const char* data;
    unsigned long size;
};
const std::vector<EmbeddedFile>& embeddedFiles();
std::string embeddedFile(const std::string& path); // throws ks::Error if missing

} // namespace ks
