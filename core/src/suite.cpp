// SPDX-License-Identifier: MIT
#include "ks/core/suite.h"
#include "ks/core/results.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <tuple>

namespace ks {
namespace fs = std::filesystem;

namespace {

bool looksLikeTask(const std::string& text) {
    return text.find("\"kernelsieve.task\"") != std::string::npos;
}

void addTask(Suite& s, std::set<std::string>& seen, TaskSpec t) {
    if (!seen.insert(t.id).second) {
        s.issues.push_back({t.specPath, "duplicate task id '" + t.id + "' (skipped)"});
        return;
    }
    s.tasks.push_back(std::move(t));
}

void sortTasks(Suite& s) {
    // Level, then KernelBench number, then id: the order researchers know from the benchmark.
    std::stable_sort(s.tasks.begin(), s.tasks.end(), [](const TaskSpec& a, const TaskSpec& b) {
        const int la = a.level == 0 ? 99 : a.level, lb = b.level == 0 ? 99 : b.level;
        const bool ka = a.id.rfind("KS-", 0) == 0, kb = b.id.rfind("KS-", 0) == 0;
        if (ka != kb) return kb;
        if (la != lb) return la < lb;
        if (a.number != b.number) return a.number < b.number;
        // Natural order on ids so KS-2 comes before KS-10. The digit tail is compared as a number
        // without converting it: stoll threw out_of_range on a 20-digit tail, out of the sort.
        auto numTail = [](const std::string& id) {
            size_t i = id.size();
            while (i > 0 && std::isdigit(static_cast<unsigned char>(id[i - 1]))) --i;
            size_t first = i; // leading zeros do not count
            while (first + 1 < id.size() && id[first] == '0')
                ++first;
            return std::make_tuple(id.substr(0, i), i < id.size(), id.size() - first,
                                   id.substr(first));
        };
        const auto na = numTail(a.id), nb = numTail(b.id);
        if (na != nb) return na < nb;
        return a.id < b.id;
    });
}

// Where `file` really is (symlinks resolved), if inside `root` (already canonical); else empty.
std::optional<fs::path> insideFolder(const fs::path& root, const std::string& file) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(file, ec);
    if (ec) return std::nullopt;
    const fs::path rel = real.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") return std::nullopt;
    return real;
}

} // namespace

std::string readSuiteFile(const std::string& suiteDir, const std::string& file) {
    std::error_code ec;
    const fs::path root = fs::canonical(suiteDir, ec);
    if (ec) throw Error(suiteDir + ": cannot resolve the suite folder: " + ec.message());
    const auto real = insideFolder(root, file);
    if (!real)
        throw Error(file + " is outside the suite folder " + root.string() +
                    " (after following '..' and symlinks); keep task sources inside the suite");
    return readFile(real->string(), MaxTaskFileBytes);
}

const TaskSpec* Suite::find(const std::string& id) const {
    for (const auto& t : tasks)
        if (t.id == id) return &t;
    return nullptr;
}

std::string embeddedFile(const std::string& path) {
    for (const auto& f : embeddedFiles())
        if (path == f.path) return std::string(f.data, f.size);
    throw Error("built-in resource '" + path + "' is missing from this build");
}

Suite loadBuiltinSuite() {
    Suite s;
    s.name = "builtin";
    std::set<std::string> seen;
    auto reader = [](const std::string& p) { return embeddedFile(p); };
    for (const auto& f : embeddedFiles()) {
        const std::string path = f.path;
        if (path.rfind("suite/", 0) != 0 || !path.ends_with(".json")) continue;
        const std::string text(f.data, f.size);
        if (!looksLikeTask(text)) continue;
        try {
            addTask(s, seen, parseTaskSpec(text, path, reader));
        } catch (const Error& e) {
            s.issues.push_back({path, e.what()});
        }
    }
    sortTasks(s);
    return s;
}

Suite loadSuiteDir(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error(dir + ": not a suite folder (does not exist or is not a directory)");
    Suite s;
    s.name = dir;
    std::set<std::string> seen;
    std::vector<fs::path> files;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) throw Error(dir + ": cannot read folder: " + ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) {
            s.issues.push_back({dir, "error while listing: " + ec.message()});
            break;
        }
        if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    const auto reader = [&dir](const std::string& f) { return readSuiteFile(dir, f); };
    for (const auto& p : files) {
        std::string text;
        try {
            text = reader(p.string());
        } catch (const Error& e) {
            s.issues.push_back({p.string(), e.what()});
            continue;
        }
        if (!looksLikeTask(text)) continue; // other JSON (results, profiles) may live beside tasks
        try {
            TaskSpec t = parseTaskSpec(text, p.string(), reader);
            // The artifact is loaded by LibTorch, not through `reader`: the same rule, checked
            // here.
            std::error_code ec;
            if (!t.artifactPath.empty() && !insideFolder(fs::canonical(dir, ec), t.artifactPath))
                throw Error(p.string() + " (task " + t.id + "): artifact " + t.artifactPath +
                            " is outside the suite folder (after following '..' and symlinks); "
                            "keep artifacts "
                            "inside the suite");
            addTask(s, seen, std::move(t));
        } catch (const Error& e) {
            s.issues.push_back({p.string(), e.what()});
        }
    }
    sortTasks(s);
    return s;
}

Suite loadSuite(const std::string& nameOrPath) {
    if (nameOrPath.empty() || nameOrPath == "builtin") return loadBuiltinSuite();
    return loadSuiteDir(nameOrPath);
}

TaskResult resultSkeleton(const TaskSpec& spec) {
    TaskResult r;
    r.id = spec.id;
    r.name = spec.name;
    r.level = spec.level;
    r.number = spec.number;
    r.category = spec.category;
    r.description = spec.description;
    r.tags = spec.tags;
    r.source = spec.source;
    r.specJson = spec.specText;
    return r;
}

TaskResult failedLoadResult(const LoadIssue& issue) {
    TaskResult r;
    r.id = fs::path(issue.file).filename().string();
    r.name = r.id;
    r.status = TaskStatus::Error;
    r.error = issue.message;
    return r;
}

bool globMatch(const std::string& pattern, const std::string& text) {
    // Iterative wildcard match with backtracking on the last '*'.
    size_t p = 0, t = 0, star = std::string::npos, mark = 0;
    auto eq = [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    };
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || eq(pattern[p], text[t]))) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (star != std::string::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

bool matchesAnyGlob(const std::string& patterns, const std::string& text) {
    size_t start = 0;
    while (start <= patterns.size()) {
        const size_t comma = patterns.find(',', start);
        const std::string g = patterns.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!g.empty() && globMatch(g, text)) return true;
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return false;
}

std::vector<TaskSpec> selectTasks(const Suite& suite, const std::string& pattern) {
    if (pattern.empty()) return suite.tasks;
    std::vector<TaskSpec> out;
    for (const auto& t : suite.tasks)
        if (matchesAnyGlob(pattern, t.id) || matchesAnyGlob(pattern, t.name)) out.push_back(t);
    return out;
}

} // namespace ks
