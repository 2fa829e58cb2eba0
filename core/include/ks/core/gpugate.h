// SPDX-License-Identifier: MIT
#pragma once
// Several filter workers on one GPU (filter --workers-per-gpu): what they may do at the same time.
#include <functional>
#include <memory>
#include <string>

namespace ks {

// A reader-writer lock between processes, on a file (flock), that prefers writers: a writer
// waiting holds a second file (path + ".turn") that every new reader passes through first, so
// readers that come and go never starve it. Each object has its own descriptors, and flock locks
// of different descriptors exclude one another even in one process: one object per thread that
// takes the lock. A process that dies loses its locks (the kernel's doing). Throws ks::Error when
// a file cannot be opened.
class FileRwLock {
public:
    enum class Held { None, Shared, Exclusive };
    explicit FileRwLock(const std::string& path);
    ~FileRwLock();
    FileRwLock(const FileRwLock&) = delete;
    FileRwLock& operator=(const FileRwLock&) = delete;

    // Each returns the seconds it waited; taking the lock held already is free, and the other
    // kind is taken after letting go of the one held (flock cannot convert atomically).
    // `beforeWaiting`, when set, is called once if the lock is not free at once, before waiting.
    double lockShared(const std::function<void()>& beforeWaiting = {});
    double lockExclusive(const std::function<void()>& beforeWaiting = {});
    void unlock();
    Held held() const { return m_held; }

private:
    double take(Held kind, const std::function<void()>& beforeWaiting);
    int m_fd = -1, m_turn = -1;
    Held m_held = Held::None;
};

// The lock of one GPU, in the folder the driver made for it (it creates the files; the workers
// only open them, read-only, so the folder may be read-only in their sandbox): held shared by a
// worker's engine thread while it does untimed GPU work, exclusive while it times (filter 5, the
// device ceilings), so no timing shares the GPU with another worker. The workers' host threads
// go on drawing meanwhile: pausing them made short timings slower, not faster
// (bench/engine/RESULTS.md).
class GpuGate {
public:
    explicit GpuGate(const std::string& dir);
    // Creates the lock files in `dir` (which must exist); throws ks::Error when it cannot.
    static void createFiles(const std::string& dir);
    // Removes them again (what is not there is skipped).
    static void removeFiles(const std::string& dir);
    FileRwLock& gpu() { return m_gpu; } // the engine's thread only

private:
    FileRwLock m_gpu;
};

// The phase a task is in while it waits for another worker's timing (filter --workers-per-gpu):
// announced through EngineOptions::onPhase, and the phase before it is announced again after.
inline constexpr const char* kPhaseWaitingForGpu = "waiting for the GPU";

} // namespace ks
