// SPDX-License-Identifier: MIT
#include "ks/core/process.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace ks {

std::string ProcessResult::describe() const {
    if (!startError.empty()) return startError;
    if (timedOut) return "killed: it ran past its time limit";
    if (cancelled) return "killed: cancelled";
    if (signal) return std::string("crashed with signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit status " + std::to_string(exitCode);
}

ProcessResult runProcess(const std::vector<std::string>& argvIn, const std::string& outputPath, double timeoutSeconds,
                         const std::atomic<bool>* cancel, const std::string& workDir, bool append) {
    ProcessResult res;
    if (argvIn.empty()) {
        res.startError = "no command";
        return res;
    }
    std::vector<std::string> argvS = argvIn;
    std::vector<char*> argv;
    for (auto& s : argvS) argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, outputPath.c_str(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    if (!workDir.empty()) posix_spawn_file_actions_addchdir_np(&fa, workDir.c_str());
#endif
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Its own process group, so a timeout kills whatever it started as well.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid = 0;
    const int rc = argvS[0].find('/') == std::string::npos
                       ? posix_spawnp(&pid, argvS[0].c_str(), &fa, &attr, argv.data(), environ)
                       : posix_spawn(&pid, argvS[0].c_str(), &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        res.startError = "cannot start " + argvS[0] + ": " + std::strerror(rc);
        return res;
    }
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    while (true) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        const bool late = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeoutSeconds;
        const bool stop = cancel && cancel->load();
        if (late || stop) {
            res.timedOut = late;
            res.cancelled = stop && !late;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(-pid, SIGKILL); // leftovers of the group (daemons it spawned)
    if (WIFEXITED(status)) res.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
    return res;
}

std::string fileTail(const std::string& path, size_t maxBytes) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return "";
    f.seekg(0, std::ios::end);
    const auto size = static_cast<size_t>(f.tellg());
    const size_t start = size > maxBytes ? size - maxBytes : 0;
    f.seekg(static_cast<std::streamoff>(start));
    std::string s(size - start, '\0');
    f.read(s.data(), static_cast<std::streamsize>(s.size()));
    return (start ? "..." : "") + s;
}

void removeTree(const std::string& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        if (DIR* d = opendir(path.c_str())) {
            while (const dirent* e = readdir(d)) {
                const std::string name = e->d_name;
                if (name != "." && name != "..") removeTree(path + "/" + name);
            }
            closedir(d);
        }
        ::rmdir(path.c_str());
    } else {
        ::unlink(path.c_str());
    }
}

} // namespace ks
