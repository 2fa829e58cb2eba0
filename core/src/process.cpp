// SPDX-License-Identifier: MIT
#include "ks/core/process.h"
#include "ks/core/taskspec.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

std::string transparentHugePageMode() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    const auto a = std::getline(f, line) ? line.find('[') : std::string::npos;
    const auto b = a == std::string::npos ? a : line.find(']', a);
    return b == std::string::npos ? std::string() : line.substr(a + 1, b - a - 1);
}

std::vector<std::string> hugePageEnv() {
    if (std::getenv("THP_MEM_ALLOC_ENABLE") || transparentHugePageMode().empty()) return {};
    return {"THP_MEM_ALLOC_ENABLE=1"};
}

std::vector<std::string> environmentWith(const std::vector<std::string>& extra) {
    std::vector<std::string> env;
    auto nameOf = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        bool replaced = false;
        for (const auto& x : extra) replaced = replaced || nameOf(x) == nameOf(kv);
        if (!replaced) env.push_back(kv);
    }
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
}

namespace {
// NULL-terminated pointers into `env` (which must outlive them); environ when `env` is empty.
std::vector<char*> envPointers(std::vector<std::string>& env) {
    std::vector<char*> p;
    for (auto& s : env) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
}
} // namespace

ProcessResult runProcess(const std::vector<std::string>& argvIn, const std::string& outputPath, double timeoutSeconds,
                         const std::atomic<bool>* cancel, const std::string& workDir, bool append,
                         const std::vector<std::string>& extraEnv) {
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
    std::vector<std::string> envS = extraEnv.empty() ? std::vector<std::string>{} : environmentWith(extraEnv);
    std::vector<char*> envP = envPointers(envS);
    char** envp = extraEnv.empty() ? environ : envP.data();
    const int rc = argvS[0].find('/') == std::string::npos
                       ? posix_spawnp(&pid, argvS[0].c_str(), &fa, &attr, argv.data(), envp)
                       : posix_spawn(&pid, argvS[0].c_str(), &fa, &attr, argv.data(), envp);
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

ChildProcess::ChildProcess(const std::vector<std::string>& argvIn, int stdoutFd, Protocol where,
                           const std::vector<std::string>& extraEnv, bool inputPipe) {
    if (argvIn.empty()) throw Error("no command");
    std::vector<std::string> argvS = argvIn;
    std::vector<char*> argv;
    for (auto& s : argvS) argv.push_back(s.data());
    argv.push_back(nullptr);
    // Built before fork: the child may only make async-signal-safe calls.
    std::vector<std::string> envS = extraEnv.empty() ? std::vector<std::string>{} : environmentWith(extraEnv);
    std::vector<char*> envP = envPointers(envS);
    char** envp = extraEnv.empty() ? environ : envP.data();
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
    int in[2] = {-1, -1};
    if (inputPipe && ::pipe2(in, O_CLOEXEC) != 0) {
        const int err = errno;
        ::close(p[0]);
        ::close(p[1]);
        throw Error(std::string("cannot create a pipe: ") + std::strerror(err));
    }
    const int devnull = inputPipe ? in[0] : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int err = errno;
        ::close(p[0]);
        ::close(p[1]);
        if (devnull >= 0) ::close(devnull);
        if (in[1] >= 0) ::close(in[1]);
        throw Error("cannot start " + argvS[0] + ": " + std::strerror(err));
    }
    if (pid == 0) {
        // The child: async-signal-safe calls only until exec (the parent may have threads).
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127); // the parent died before the line above
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::signal(SIGPIPE, SIG_DFL);
        if (devnull >= 0) ::dup2(devnull, 0);
        if (where == Protocol::Stdout) {
            ::dup2(p[1], 1);
            ::syscall(SYS_close_range, 3U, ~0U, 0U); // nothing else of ours (locks, journals) leaks in
        } else {
            if (stdoutFd >= 0) ::dup2(stdoutFd, 1);
            ::dup2(p[1], 3);
            ::syscall(SYS_close_range, 4U, ~0U, 0U);
        }
        if (std::strchr(argv[0], '/')) ::execve(argv[0], argv.data(), envp);
        else ::execvpe(argv[0], argv.data(), envp);
        const char msg[] = "kernelsieve: cannot exec the worker\n";
        [[maybe_unused]] auto n = ::write(2, msg, sizeof msg - 1);
        ::_exit(127);
    }
    ::close(p[1]);
    if (devnull >= 0) ::close(devnull);
    m_pid = pid;
    m_fd = p[0];
    m_in = in[1];
}

bool ChildProcess::writeInput(const std::string& text) {
    size_t off = 0;
    while (m_in >= 0 && off < text.size()) {
        // A reader that is gone raises SIGPIPE: callers that feed workers ignore it, and get EPIPE.
        const ssize_t n = ::write(m_in, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += static_cast<size_t>(n);
    }
    return m_in >= 0;
}

void ChildProcess::closeInput() {
    if (m_in >= 0) ::close(m_in);
    m_in = -1;
}

ChildProcess::~ChildProcess() {
    if (m_letGo && !m_reaped && !exited()) {
        // ending on its own
    } else if (!m_reaped) {
        kill();
        wait();
    } else if (m_pid > 0) {
        ::kill(-m_pid, SIGKILL); // leftovers of the group
    }
    if (m_fd >= 0) ::close(m_fd);
    closeInput();
}

ChildProcess::Read ChildProcess::readLine(std::string& line, double seconds, size_t maxLine) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::max(0.0, seconds));
    for (;;) {
        if (const size_t nl = m_buf.find('\n'); nl != std::string::npos) {
            line = m_buf.substr(0, nl);
            m_buf.erase(0, nl + 1);
            return Read::Line;
        }
        if (m_buf.size() > maxLine)
            throw Error("the worker wrote a protocol line longer than " + std::to_string(maxLine) + " bytes");
        if (m_fd < 0) return Read::Eof;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd pfd{m_fd, POLLIN, 0};
        const int r = ::poll(&pfd, 1, static_cast<int>(std::max<long long>(0, left.count())));
        if (r < 0 && errno == EINTR) return Read::Timeout; // a signal: let the caller look at its flags
        if (r == 0) return Read::Timeout;
        char buf[1 << 16];
        const ssize_t n = ::read(m_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) return Read::Timeout;
        if (n <= 0) {
            ::close(m_fd);
            m_fd = -1;
            m_buf.clear(); // a last line without its newline: the worker died writing it
            return Read::Eof;
        }
        m_buf.append(buf, static_cast<size_t>(n));
    }
}

void ChildProcess::signal(int sig) {
    if (m_pid > 0 && !m_reaped) ::kill(m_pid, sig);
}

void ChildProcess::signalGroup(int sig) {
    if (m_pid > 0 && !m_reaped) ::kill(-m_pid, sig);
}

void ChildProcess::kill() {
    if (m_pid <= 0 || m_reaped) return;
    ::kill(-m_pid, SIGKILL);
    ::kill(m_pid, SIGKILL);
}

bool ChildProcess::exited() {
    if (m_reaped || m_pid <= 0) return true;
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(m_pid, &status, WNOHANG)) < 0 && errno == EINTR) {
    }
    if (r == 0) return false;
    reaped(status);
    return true;
}

ProcessResult ChildProcess::wait() {
    if (m_reaped || m_pid <= 0) return m_result;
    int status = 0;
    while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    reaped(status);
    return m_result;
}

void ChildProcess::reaped(int status) {
    m_reaped = true;
    ::kill(-m_pid, SIGKILL); // what it started and left behind
    if (WIFEXITED(status)) m_result.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) m_result.signal = WTERMSIG(status);
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

std::string userCacheDir(const char* envOverride, const std::string& sub) {
    if (envOverride)
        if (const char* d = std::getenv(envOverride); d && *d) return d;
    const std::string tail = sub.empty() ? "" : "/" + sub;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/kernelsieve" + tail;
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/kernelsieve" + tail;
    return (std::filesystem::temp_directory_path() / ("kernelsieve" + (sub.empty() ? "" : "-" + sub))).string();
}

void forEachParallel(size_t count, int jobs, const std::function<void(size_t)>& work) {
    const size_t n = std::min<size_t>(std::max(1, jobs), std::max<size_t>(1, count));
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i = next++; i < count; i = next++) work(i);
    };
    std::vector<std::thread> pool;
    for (size_t j = 0; j < n; ++j) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
}

} // namespace ks
