// SPDX-License-Identifier: MIT
// ks::FileRwLock / ks::GpuGate (filter --workers-per-gpu): the locks between the processes that
// share a GPU, tested with forked processes and counters in shared memory.
#include "ks/core/gpugate.h"
#include "ks/core/taskspec.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <poll.h>
#include <csignal>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;

struct Shared {
    std::atomic<int> readers{0}, writers{0}, maxReaders{0}, violations{0}, writerGot{0}, stop{0};
};

class GpuGateTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/ks-gate-test-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir = tmpl;
        ks::GpuGate::createFiles(dir);
        void* p = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(p, MAP_FAILED);
        sh = new (p) Shared();
    }
    void TearDown() override {
        ::munmap(sh, sizeof(Shared));
        std::filesystem::remove_all(dir);
    }
    // Runs `body` in a child process; its exit status is 0 unless it throws.
    template <class F> pid_t spawn(F body) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            int rc = 0;
            try {
                body();
            } catch (...) {
                rc = 3;
            }
            ::_exit(rc);
        }
        return pid;
    }
    static int waitFor(pid_t pid) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    void bumpMax(int now) {
        int m = sh->maxReaders.load();
        while (now > m && !sh->maxReaders.compare_exchange_weak(m, now)) {
        }
    }
    std::string dir;
    Shared* sh = nullptr;
};

TEST_F(GpuGateTest, ExclusiveExcludesEveryoneAndSharedHoldersOverlap) {
    std::vector<pid_t> kids;
    for (int k = 0; k < 4; ++k)
        kids.push_back(spawn([&, k] {
            ks::FileRwLock lock(dir + "/gpu.lock");
            for (int i = 0; i < 40; ++i) {
                if ((i + k) % 5 == 0) {
                    lock.lockExclusive();
                    if (++sh->writers != 1 || sh->readers.load() != 0) ++sh->violations;
                    std::this_thread::sleep_for(2ms);
                    --sh->writers;
                } else {
                    lock.lockShared();
                    bumpMax(++sh->readers);
                    if (sh->writers.load() != 0) ++sh->violations;
                    std::this_thread::sleep_for(3ms);
                    --sh->readers;
                }
                lock.unlock();
            }
        }));
    for (pid_t p : kids) EXPECT_EQ(waitFor(p), 0);
    EXPECT_EQ(sh->violations.load(), 0);
    EXPECT_GE(sh->maxReaders.load(), 2) << "shared holders never overlapped";
}

TEST_F(GpuGateTest, AWaitingWriterIsNotStarvedByReadersThatComeAndGo) {
    // Three readers whose holds overlap, so the file is never free of a shared lock: without the
    // turnstile a writer would wait until they stop.
    std::vector<pid_t> kids;
    for (int k = 0; k < 3; ++k)
        kids.push_back(spawn([&, k] {
            ks::FileRwLock lock(dir + "/gpu.lock");
            std::this_thread::sleep_for(std::chrono::milliseconds(7 * k));
            while (!sh->stop.load()) {
                lock.lockShared();
                ++sh->readers;
                std::this_thread::sleep_for(20ms);
                --sh->readers;
                lock.unlock();
            }
        }));
    std::this_thread::sleep_for(200ms);
    ks::FileRwLock writer(dir + "/gpu.lock");
    const auto t0 = std::chrono::steady_clock::now();
    const double waited = writer.lockExclusive();
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(sh->readers.load(), 0);
    EXPECT_LT(took, 1.0) << "the writer waited " << took << " s";
    EXPECT_NEAR(waited, took, 0.05);
    EXPECT_EQ(writer.held(), ks::FileRwLock::Held::Exclusive);
    writer.unlock();
    sh->stop = 1;
    for (pid_t p : kids) EXPECT_EQ(waitFor(p), 0);
}

TEST_F(GpuGateTest, ADeadHolderLeavesNoLock) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t holder = spawn([&] {
        ks::FileRwLock lock(dir + "/gpu.lock");
        lock.lockExclusive();
        char c = 1;
        (void)!::write(fds[1], &c, 1);
        ::pause(); // killed holding it
    });
    char c = 0;
    ASSERT_EQ(::read(fds[0], &c, 1), 1);
    ::close(fds[0]);
    ::close(fds[1]);
    ks::FileRwLock lock(dir + "/gpu.lock");
    auto got = std::async(std::launch::async, [&] { return lock.lockShared(); });
    EXPECT_EQ(got.wait_for(200ms), std::future_status::timeout) << "shared while another process held it exclusive";
    ::kill(holder, SIGKILL);
    waitFor(holder);
    EXPECT_EQ(got.wait_for(5s), std::future_status::ready) << "the dead process's lock was not released";
    lock.unlock();
}

// The engine announces a wait for the GPU (kPhaseWaitingForGpu) through this callback: only when
// the lock is not free, once, before waiting.
TEST_F(GpuGateTest, BeforeWaitingIsCalledOnlyWhenTheLockIsBusy) {
    ks::FileRwLock mine(dir + "/gpu.lock");
    int calls = 0;
    auto count = [&] { ++calls; };
    mine.lockExclusive(count);
    mine.lockShared(count);
    mine.unlock();
    EXPECT_EQ(calls, 0) << "called although the lock was free";
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t holder = spawn([&] {
        ks::FileRwLock lock(dir + "/gpu.lock");
        lock.lockShared();
        char c = 1;
        (void)!::write(fds[1], &c, 1);
        std::this_thread::sleep_for(300ms);
    });
    char c = 0;
    ASSERT_EQ(::read(fds[0], &c, 1), 1);
    ::close(fds[0]);
    ::close(fds[1]);
    mine.lockShared(count); // shared beside shared: free
    EXPECT_EQ(calls, 0);
    const double waited = mine.lockExclusive(count); // waits for the holder
    EXPECT_EQ(calls, 1);
    EXPECT_GT(waited, 0.1);
    mine.unlock();
    EXPECT_EQ(waitFor(holder), 0);
}

TEST_F(GpuGateTest, MissingLockFilesAreAnErrorNamingThePath) {
    const std::string none = dir + "/none";
    try {
        ks::GpuGate gate(none);
        FAIL() << "opened a gate without its files";
    } catch (const ks::Error& e) {
        EXPECT_NE(std::string(e.what()).find(none + "/gpu.lock"), std::string::npos) << e.what();
    }
    EXPECT_THROW(ks::GpuGate::createFiles(none), ks::Error);
}

} // namespace
