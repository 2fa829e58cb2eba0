// SPDX-License-Identifier: MIT
#pragma once
// Child processes for work that may crash or hang (compilers, capture scripts, harness workers):
// started in their own process group, output to a file, killed with the whole group on a
// timeout or a cancel.

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace ks {

struct ProcessResult {
    int exitCode = -1; // -1 when it did not exit normally
    int signal = 0;    // the signal that ended it
    bool timedOut = false, cancelled = false;
    std::string startError; // non-empty: it could not be started
    bool ok() const { return startError.empty() && exitCode == 0 && !timedOut && !cancelled; }
    std::string describe() const; // "exit status 2", "killed after 600 s (timeout)", ...
};

// Runs argv[0] (searched on PATH when it has no slash) with stdout and stderr to `outputPath`
// (appended to when `append`), in `workDir` when set. Never throws.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& outputPath, double timeoutSeconds,
                         const std::atomic<bool>* cancel = nullptr, const std::string& workDir = {},
                         bool append = false, const std::vector<std::string>& env = {});

// What a child that runs LibTorch on large CPU tensors (a filter worker, the importer's exporter)
// gets beyond our environment: THP_MEM_ALLOC_ENABLE=1, LibTorch's CPU allocator then advising
// transparent huge pages on allocations of 2 MiB and more, unless the variable is set here or the
// kernel has no transparent huge pages (then nothing). Fresh operands fault in 2 MiB pages instead
// of 4 KiB ones: KernelBench level 1's six criteria took 22-28 % less time on an H100 host
// (bench/engine/RESULTS.md, lease 12). LibTorch reads it once, at its first allocation; a worker
// that set it for itself from .preinit_array (before any library starts) still ran without it
// (`cli.end_to_end` caught that), so the parent sets it.
std::vector<std::string> hugePageEnv();
// The kernel's transparent-huge-page mode (always, madvise or never: the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled); empty where the kernel has none.
std::string transparentHugePageMode();

// This process's environment with `extra` ("NAME=VALUE", e.g. CUDA_VISIBLE_DEVICES=1 for a worker
// of one GPU) replacing or adding variables, as an exec's environment.
std::vector<std::string> environmentWith(const std::vector<std::string>& extra);

// A worker that talks over a pipe on its fd 3 (its "protocol"), so nothing the code it runs prints
// on stdout can pass for a protocol line. Started with fork + exec in its own process group; it
// dies with us (PR_SET_PDEATHSIG), and the destructor kills its whole group.
class ChildProcess {
public:
    // Where the protocol pipe is in the child: fd 3 (its stdout stays ours, or `stdoutFd`), or its
    // stdout (programs that speak on stdout, like the Python exporter, which keeps the tasks' own
    // prints off it).
    enum class Protocol { Fd3, Stdout };
    // Starts argv[0] (searched on PATH when it has no slash) with stdin from /dev/null and stderr
    // on ours. Throws ks::Error when it cannot start.
    // `env`: variables set for it ("NAME=VALUE", over ours). `inputPipe`: its stdin is a pipe that
    // writeInput() feeds (a worker handed its tasks one at a time) instead of /dev/null.
    explicit ChildProcess(const std::vector<std::string>& argv, int stdoutFd = -1, Protocol where = Protocol::Fd3,
                          const std::vector<std::string>& env = {}, bool inputPipe = false);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    enum class Read { Line, Timeout, Eof };
    // The next whole line of the protocol, waiting at most `seconds` (a signal ends the wait early
    // with Timeout). Lines longer than `maxLine` bytes are an error (ks::Error).
    Read readLine(std::string& line, double seconds, size_t maxLine = size_t{1} << 28);
    // To the child only (a sandbox helper forwards it; its whole group would get it twice).
    void signal(int sig);
    void signalGroup(int sig);
    void kill(); // SIGKILL to the whole group
    // Waits for it to end (after Eof or kill()); the exit code or signal.
    ProcessResult wait();
    // Whether it has ended, without waiting (its result is then wait()'s).
    bool exited();
    // Lets it end on its own: for a worker past its last protocol line, in its exit (a CUDA
    // worker's teardown took 0.3-0.5 s on the H200). The destructor then neither kills nor waits
    // for it; if we end first, PR_SET_PDEATHSIG ends it.
    void letGo() { m_letGo = true; }
    int pid() const { return m_pid; }
    // With `inputPipe`: writes `text` to its stdin (false when it cannot: it is gone); closeInput()
    // gives it end-of-file.
    bool writeInput(const std::string& text);
    void closeInput();

private:
    void reaped(int status);
    int m_pid = -1;
    int m_fd = -1;
    int m_in = -1;
    bool m_reaped = false;
    bool m_letGo = false;
    ProcessResult m_result;
    std::string m_buf;
};

// The last `maxBytes` of a file ("" if unreadable), for messages.
std::string fileTail(const std::string& path, size_t maxBytes = 4000);

// Removes a folder and everything below it without std::filesystem::remove_all (libtorch.so
// exports its own copy of that symbol, which the dynamic linker may bind and which crashed).
void removeTree(const std::string& path);

// Calls work(i) for every i < count on min(jobs, count) threads (at least one), each taking the
// next index; returns when all are done.
void forEachParallel(size_t count, int jobs, const std::function<void(size_t)>& work);

// A cache folder of ours: $ENV when `envOverride` names a set variable, else
// $XDG_CACHE_HOME/kernelsieve/SUB, ~/.cache/kernelsieve/SUB, or TMPDIR/kernelsieve-SUB.
std::string userCacheDir(const char* envOverride, const std::string& sub);

} // namespace ks
