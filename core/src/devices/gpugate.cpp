// SPDX-License-Identifier: MIT
#include "ks/core/gpugate.h"
#include "ks/core/taskspec.h" // ks::Error

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ks {
namespace {

int openLockFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot open the lock file " + path + ": " + std::strerror(errno));
    return fd;
}

// flock, restarted after a signal (a worker's SIGINT sets a flag and returns).
void flockOrThrow(int fd, int op, const char* what) {
    while (::flock(fd, op) != 0) {
        if (errno == EINTR) continue;
        throw Error(std::string("flock (") + what + "): " + std::strerror(errno));
    }
}

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Takes `op` on `fd`, first without blocking: when that fails, calls `beforeWaiting` (once per
// lock call: `*told`), then blocks.
void flockTelling(int fd, int op, const char* what, const std::function<void()>& beforeWaiting, bool* told) {
    for (;;) {
        if (::flock(fd, op | LOCK_NB) == 0) return;
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) throw Error(std::string("flock (") + what + "): " + std::strerror(errno));
        break;
    }
    if (beforeWaiting && !*told) {
        *told = true;
        beforeWaiting();
    }
    flockOrThrow(fd, op, what);
}

} // namespace

FileRwLock::FileRwLock(const std::string& path) : m_fd(openLockFile(path)) {
    try {
        m_turn = openLockFile(path + ".turn");
    } catch (...) {
        ::close(m_fd);
        throw;
    }
}

FileRwLock::~FileRwLock() {
    ::close(m_turn); // closing drops the locks
    ::close(m_fd);
}

double FileRwLock::lockShared(const std::function<void()>& beforeWaiting) { return take(Held::Shared, beforeWaiting); }

double FileRwLock::lockExclusive(const std::function<void()>& beforeWaiting) {
    return take(Held::Exclusive, beforeWaiting);
}

double FileRwLock::take(Held kind, const std::function<void()>& beforeWaiting) {
    if (m_held == kind) return 0;
    unlock();
    const auto t0 = std::chrono::steady_clock::now();
    bool told = false;
    // Through the turnstile: a writer waiting holds it, so a reader waits behind the writer and
    // the writer keeps it until it has the lock, so that no new reader gets in first.
    flockTelling(m_turn, LOCK_EX, "turnstile", beforeWaiting, &told);
    if (kind == Held::Shared) {
        flockOrThrow(m_turn, LOCK_UN, "turnstile");
        flockTelling(m_fd, LOCK_SH, "shared", beforeWaiting, &told);
    } else {
        try {
            flockTelling(m_fd, LOCK_EX, "exclusive", beforeWaiting, &told);
        } catch (...) {
            ::flock(m_turn, LOCK_UN);
            throw;
        }
        flockOrThrow(m_turn, LOCK_UN, "turnstile");
    }
    m_held = kind;
    return since(t0);
}

void FileRwLock::unlock() {
    if (m_held == Held::None) return;
    ::flock(m_fd, LOCK_UN);
    m_held = Held::None;
}

GpuGate::GpuGate(const std::string& dir) : m_gpu(dir + "/gpu.lock") {}

namespace {
constexpr const char* kLockFiles[] = {"gpu.lock", "gpu.lock.turn"};
}

void GpuGate::removeFiles(const std::string& dir) {
    for (const char* name : kLockFiles) ::unlink((dir + "/" + name).c_str());
}

void GpuGate::createFiles(const std::string& dir) {
    for (const char* name : kLockFiles) {
        const std::string path = dir + "/" + name;
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) throw Error("cannot create the lock file " + path + ": " + std::strerror(errno));
        ::close(fd);
    }
}

} // namespace ks
