// SPDX-License-Identifier: MIT
// kernelsieve-sandbox: runs one untrusted program (the Python exporter on a task file, a compiled
// external kernel's worker) in new user, mount, PID, IPC, UTS and network namespaces, with a
// read-only view of the system, private /tmp and /dev/shm, resource limits and no capabilities.
// docs/sandbox.md says what this protects against and what it does not.
//
// Direct syscalls rather than bubblewrap or unshare(1): bubblewrap is not installed where we run
// (the GPU machine cannot install packages), and unshare(1) can neither remount every mount
// read-only nor tell the caller which step the kernel refused.
//
// Three processes: the helper (outside the new PID namespace) forks init, PID 1 inside it, which
// sets up the mounts and forks the program as PID 2. When PID 1 exits the kernel kills every
// process left in the namespace; that is what ends daemons the program leaves behind.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000 // Linux 5.10; glibc 2.36's <sys/statvfs.h> does not name it yet
#endif

namespace {

struct Options {
    std::vector<std::string> rw, ro;
    uint64_t cpu = 0, mem = 0, nproc = 4096, fsize = 64ull << 30;
    bool net = false, verbose = false, check = false, hostTmp = false;
    std::string chdir;
    char** argv = nullptr; // the program and its arguments
};

Options g_opt;
std::vector<std::string> g_done;    // what was set up, in order, for --check's summary
std::vector<std::string> g_skipped; // what was not; --check and --verbose list each
volatile sig_atomic_t g_target = 0; // where forwarded signals go: PID 1 (from the helper), PID 2
const int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
struct sigaction g_origAction[_NSIG];
sigset_t g_origMask;

void writeAll(int fd, const std::string& s) {
    for (size_t off = 0; off < s.size();) {
        ssize_t n = write(fd, s.data() + off, s.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        off += size_t(n);
    }
}

void verbose(const std::string& msg) {
    if (g_opt.verbose) writeAll(2, "kernelsieve-sandbox: " + msg + "\n");
}

void skipped(const std::string& msg) {
    g_skipped.push_back(msg);
    verbose("skipped: " + msg);
}

// Setup failures: exit 125 like env(1) does for its own errors, or --check's "unavailable".
[[noreturn]] void fail(const std::string& what, int err, const std::string& hint = {}) {
    std::string reason = what + ": " + std::strerror(err) + (hint.empty() ? "" : " — " + hint);
    if (g_opt.check) {
        writeAll(1, "sandbox: unavailable: " + reason + "\n");
        _exit(1);
    }
    writeAll(2, "kernelsieve-sandbox: " + reason + "\n");
    _exit(125);
}

[[noreturn]] void usage(const std::string& msg) {
    writeAll(2, "kernelsieve-sandbox: " + msg + "\nRun 'kernelsieve-sandbox --help' for usage.\n");
    _exit(125);
}

std::string readSmall(const char* path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    std::string s;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);)
        if (n > 0) s.append(buf, size_t(n));
    close(fd);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

std::string sizeText(uint64_t v) {
    if (v == 0) return "none";
    for (auto [shift, suffix] : {std::pair{30, "G"}, {20, "M"}, {10, "K"}})
        if (v % (1ull << shift) == 0) return std::to_string(v >> shift) + suffix;
    return std::to_string(v);
}

uint64_t parseNumber(const char* opt, const std::string& text, bool sizes) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    int shift = 0;
    if (sizes && *end && !end[1]) {
        switch (*end | 0x20) {
        case 'k':
            shift = 10, ++end;
            break;
        case 'm':
            shift = 20, ++end;
            break;
        case 'g':
            shift = 30, ++end;
            break;
        }
    }
    if (text.empty() || text[0] == '-' || *end || errno || v > (UINT64_MAX >> shift))
        usage(std::string(opt) + ": '" + text + "' is not " +
              (sizes ? "a size (bytes, or a number with K, M or G)" : "a whole number"));
    return uint64_t(v) << shift;
}

bool under(const std::string& path, const std::string& dir) {
    return path == dir || dir == "/" ||
           (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
            path[dir.size()] == '/');
}

void parseArgs(int argc, char** argv) {
    int i = 1;
    for (; i < argc; ++i) {
        std::string a = argv[i], value;
        if (a == "--") {
            ++i;
            break;
        }
        if (a.rfind("--", 0) != 0) break; // the program, like env(1) without "--"
        bool inlineValue = false;
        if (auto eq = a.find('='); eq != std::string::npos)
            value = a.substr(eq + 1), a.resize(eq), inlineValue = true;
        auto takesValue = [&] {
            if (inlineValue) return value;
            if (i + 1 >= argc) usage(a + " needs a value");
            return std::string(argv[++i]);
        };
        if (a == "--rw")
            g_opt.rw.push_back(takesValue());
        else if (a == "--ro")
            g_opt.ro.push_back(takesValue());
        else if (a == "--cpu")
            g_opt.cpu = parseNumber("--cpu", takesValue(), false);
        else if (a == "--mem")
            g_opt.mem = parseNumber("--mem", takesValue(), true);
        else if (a == "--nproc")
            g_opt.nproc = parseNumber("--nproc", takesValue(), false);
        else if (a == "--fsize")
            g_opt.fsize = parseNumber("--fsize", takesValue(), true);
        else if (a == "--chdir")
            g_opt.chdir = takesValue();
        else if (a == "--net")
            g_opt.net = true;
        else if (a == "--host-tmp")
            g_opt.hostTmp = true;
        else if (a == "--verbose")
            g_opt.verbose = true;
        else if (a == "--check")
            g_opt.check = true;
        else if (a == "--help") {
            writeAll(1,
                     "Usage: kernelsieve-sandbox [options] -- PROGRAM [ARGS...]\n"
                     "Runs PROGRAM in new user/mount/PID/IPC/UTS/network namespaces with a\n"
                     "read-only view of the system and private /tmp and /dev/shm.\n"
                     "  --rw DIR        DIR (existing) stays writable; repeatable\n"
                     "  --ro DIR        DIR stays visible read-only, even under /tmp, /dev/shm or\n"
                     "                  a --rw folder; repeatable\n"
                     "  --cpu SECONDS   CPU time per process (RLIMIT_CPU); default none\n"
                     "  --mem BYTES     address space per process (RLIMIT_AS); 0 = none (default)\n"
                     "  --nproc N       processes of the user (RLIMIT_NPROC); default 4096\n"
                     "  --fsize BYTES   largest file written (RLIMIT_FSIZE); default 64G\n"
                     "  --net           keep the host's network\n"
                     "  --host-tmp      keep the host's /tmp visible (read-only, but for --rw\n"
                     "                  folders in it); TMPDIR is a private folder instead\n"
                     "  --chdir DIR     working directory of PROGRAM\n"
                     "  --verbose       print each setup step and what was skipped\n"
                     "  --check         set everything up, run nothing, say whether it works\n"
                     "Sizes take K, M or G suffixes. Exit status: PROGRAM's (or its signal);\n"
                     "125 setup failed, 126 PROGRAM cannot run, 127 PROGRAM not found.\n");
            _exit(0);
        } else
            usage("unknown option '" + a + "'");
        if (inlineValue && (a == "--net" || a == "--verbose" || a == "--check" || a == "--host-tmp"))
            usage(a + " takes no value");
    }
    if (i >= argc && !g_opt.check)
        usage("no program given (kernelsieve-sandbox [options] -- PROGRAM)");
    g_opt.argv = argv + i;
    for (auto* list : {&g_opt.rw, &g_opt.ro}) {
        const std::string opt = list == &g_opt.rw ? "--rw " : "--ro ";
        for (auto& dir : *list) {
            char buf[PATH_MAX];
            struct stat st {};
            // Usage errors, not "unavailable" under --check: the caller's mistake, not the
            // kernel's.
            if (!realpath(dir.c_str(), buf))
                usage(opt + dir + ": " + std::strerror(errno) + " (the folder must exist)");
            if (stat(buf, &st) || !S_ISDIR(st.st_mode)) usage(opt + dir + ": not a folder");
            if (std::string(buf) == "/" && list == &g_opt.rw)
                usage("--rw /: refusing to make the whole filesystem writable");
            dir = buf;
        }
    }
}

// Why unshare(CLONE_NEWUSER) was refused, from the knobs that distributions use to refuse it.
std::string userNsHint(int err) {
    std::string maxNs = readSmall("/proc/sys/user/max_user_namespaces");
    std::string clone = readSmall("/proc/sys/kernel/unprivileged_userns_clone");
    std::string apparmor = readSmall("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
    std::string here;
    if (maxNs == "0") here += "; here user.max_user_namespaces = 0";
    if (clone == "0") here += "; here kernel.unprivileged_userns_clone = 0";
    if (apparmor == "1") here += "; here kernel.apparmor_restrict_unprivileged_userns = 1";
    std::string fix = ". Ask the administrator to allow them, or pass --no-sandbox to "
                      "kernelsieve-cli to run untrusted code without a sandbox";
    if (err == ENOSPC || err == EUSERS)
        return "the limit on user namespaces is reached (sysctl user.max_user_namespaces = " +
               maxNs + ")" + fix;
    if (err == EINVAL) return "the kernel was built without user namespaces (CONFIG_USER_NS)" + fix;
    return "unprivileged user namespaces are disabled (sysctl user.max_user_namespaces, "
           "kernel.unprivileged_userns_clone, or AppArmor's restrict_unprivileged_userns), or a "
           "seccomp filter (a container's default profile) forbids unshare" +
           here + fix;
}

void writeProcFile(const char* path, const std::string& text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && std::strcmp(path, "/proc/self/setgroups") == 0)
        return; // kernels before 3.19 have no setgroups file and need no "deny"
    if (fd < 0 || write(fd, text.data(), text.size()) != ssize_t(text.size())) {
        int err = errno;
        std::string hint =
            readSmall("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1"
                ? "AppArmor's restrict_unprivileged_userns leaves new user "
                  "namespaces without capabilities"
                : "";
        std::string line = text.substr(0, text.find('\n'));
        fail("writing '" + line + "' to " + path, err, hint);
    }
    close(fd);
}

// New namespaces one at a time, so that a refusal names the one the kernel refused.
void enterNamespaces() {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER)) fail("unshare(CLONE_NEWUSER) failed", errno, userNsHint(errno));
    // The caller's own ids, so files written in --rw folders belong to the caller.
    writeProcFile("/proc/self/setgroups", "deny");
    writeProcFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
    writeProcFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
    verbose("user namespace: uid " + std::to_string(uid) + ", gid " + std::to_string(gid));
    struct {
        int flag;
        const char *call, *word, *config;
    } const spaces[] = {{CLONE_NEWNS, "CLONE_NEWNS", "mount", ""},
                        {CLONE_NEWPID, "CLONE_NEWPID", "pid", "CONFIG_PID_NS"},
                        {CLONE_NEWIPC, "CLONE_NEWIPC", "ipc", "CONFIG_IPC_NS"},
                        {CLONE_NEWUTS, "CLONE_NEWUTS", "uts", "CONFIG_UTS_NS"},
                        {CLONE_NEWNET, "CLONE_NEWNET", "net", "CONFIG_NET_NS"}};
    std::string names = "user";
    for (auto& ns : spaces) {
        if (ns.flag == CLONE_NEWNET && g_opt.net) continue;
        if (unshare(ns.flag))
            fail(std::string("unshare(") + ns.call + ") failed", errno,
                 errno == EINVAL ? std::string("the kernel lacks ") + ns.config
                                 : "a seccomp filter or security module forbids it");
        names += std::string(", ") + ns.word;
    }
    g_done.push_back(names + " namespaces" +
                     (g_opt.net ? " (network shared with the host: --net)" : ""));
    verbose(g_done.back());
    if (!g_opt.net) {
        // A new network namespace has only a down loopback; up, it lets the program talk to
        // itself (servers on localhost) while the host stays unreachable.
        int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct ifreq ifr {};
        std::strcpy(ifr.ifr_name, "lo");
        if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) ||
            (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr)))
            skipped(std::string("loopback left down: ") + std::strerror(errno));
        if (s >= 0) close(s);
    }
}

// Mount points in /proc/self/mountinfo (field 5, octal escapes decoded), each once, in order.
std::vector<std::string> mountPoints() {
    std::string text = readSmall("/proc/self/mountinfo");
    if (text.empty()) fail("reading /proc/self/mountinfo", errno ? errno : ENODATA);
    std::vector<std::string> points;
    for (size_t pos = 0; pos < text.size();) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string::npos) eol = text.size();
        std::string line = text.substr(pos, eol - pos), field, path;
        pos = eol + 1;
        size_t start = 0;
        for (int f = 0; f < 5 && start != std::string::npos; ++f) {
            size_t end = line.find(' ', start);
            field = line.substr(start, end == std::string::npos ? end : end - start);
            start = end == std::string::npos ? end : end + 1;
        }
        for (size_t i = 0; i < field.size(); ++i) {
            if (field[i] == '\\' && i + 3 < field.size()) {
                path += char(std::strtol(field.substr(i + 1, 3).c_str(), nullptr, 8));
                i += 3;
            } else
                path += field[i];
        }
        bool seen = false;
        for (auto& p : points)
            seen = seen || p == path;
        if (!path.empty() && !seen) points.push_back(path);
    }
    return points;
}

void mkdirs(const std::string& path) {
    for (size_t slash = 1; slash != std::string::npos;) {
        slash = path.find('/', slash + 1);
        std::string prefix = path.substr(0, slash);
        struct stat st {};
        if (stat(prefix.c_str(), &st) && mkdir(prefix.c_str(), 0755) && errno != EEXIST)
            fail("mkdir " + prefix, errno);
    }
}

// A mount's flags that the kernel locked when it copied the mount into our user namespace; it
// refuses a remount that would clear them, so every remount repeats them.
unsigned long lockedFlags(const struct statvfs& sv) {
    unsigned long flags = 0;
    if (sv.f_flag & ST_NOSUID) flags |= MS_NOSUID;
    if (sv.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    if (sv.f_flag & ST_NOSYMFOLLOW) flags |= MS_NOSYMFOLLOW;
    // Any atime flag makes the kernel default the rest to relatime; strictatime must be said.
    if ((flags & MS_NODIRATIME) && !(flags & (MS_NOATIME | MS_RELATIME))) flags |= MS_STRICTATIME;
    return flags;
}

void setupMounts() {
    // Private first: nothing below may propagate back to the host's mount namespace.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr))
        fail("mount(/, MS_REC|MS_PRIVATE)", errno);
    // The --rw folders become mounts of their own before the read-only pass, which skips them.
    std::vector<int> rwFds;
    for (auto& dir : g_opt.rw) {
        if (mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr))
            fail("bind-mounting --rw " + dir + " onto itself", errno);
        // Kept so a folder under /tmp or /dev/shm can be bound back after the tmpfs hides it.
        rwFds.push_back(open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        verbose("writable: " + dir);
    }
    // Opened now, while /tmp is still the host's, so that they can be bound back after the tmpfs.
    std::vector<int> roFds;
    for (auto& dir : g_opt.ro)
        roFds.push_back(open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    int readOnly = 0;
    bool rootDone = false;
    for (auto& point : mountPoints()) {
        bool isRw = false;
        for (auto& dir : g_opt.rw)
            isRw = isRw || under(point, dir);
        if (isRw) continue;
        struct statvfs sv {};
        if (statvfs(point.c_str(), &sv)) {
            skipped(point + " not remounted read-only (" + std::strerror(errno) + ")");
            continue;
        }
        unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | lockedFlags(sv);
        if (mount(nullptr, point.c_str(), nullptr, flags, nullptr)) {
            if (point == "/") fail("remounting / read-only", errno);
            skipped(point + " not remounted read-only (" + std::strerror(errno) + ")");
            continue;
        }
        rootDone = rootDone || point == "/";
        ++readOnly;
    }
    if (!rootDone)
        fail("remounting / read-only", ENOENT, "/ is not a mount point in /proc/self/mountinfo");
    g_done.push_back("read-only / and " + std::to_string(readOnly - 1) + " other mounts");
    verbose(g_done.back());
    std::string writable;
    for (auto& dir : g_opt.rw)
        writable += (writable.empty() ? "" : ", ") + dir;
    g_done.push_back("writable: " + (writable.empty() ? std::string(g_opt.hostTmp ? "only TMPDIR and /dev/shm" : "only /tmp and /dev/shm") : writable));

    std::string tmpfsDone;
    for (const char* dir : {"/tmp", "/dev/shm"}) {
        // --host-tmp: what callers pass in the host's /tmp (their tools, suites, scratch folders)
        // stays where it is, read-only unless --rw; the program's own temporary files go to TMPDIR.
        if (g_opt.hostTmp && std::string(dir) == "/tmp") continue;
        struct stat st {};
        if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
            skipped(std::string("no private tmpfs on ") + dir + ": it does not exist");
            continue;
        }
        if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"))
            fail(std::string("mounting a tmpfs on ") + dir, errno);
        tmpfsDone += (tmpfsDone.empty() ? "" : ", ") + std::string(dir);
        for (size_t i = 0; i < g_opt.rw.size(); ++i) {
            if (!under(g_opt.rw[i], dir)) continue;
            std::string from = "/proc/self/fd/" + std::to_string(rwFds[i]);
            if (rwFds[i] < 0) fail("opening --rw " + g_opt.rw[i], EBADF);
            mkdirs(g_opt.rw[i]);
            if (mount(from.c_str(), g_opt.rw[i].c_str(), nullptr, MS_BIND | MS_REC, nullptr))
                fail("binding --rw " + g_opt.rw[i] + " back over the private " + dir, errno);
        }
    }
    if (!tmpfsDone.empty())
        g_done.push_back("private tmpfs on " + tmpfsDone), verbose(g_done.back());
    for (int fd : rwFds)
        if (fd >= 0) close(fd);

    // --ro folders: bound over themselves (which shows them again under the private /tmp and
    // /dev/shm) and made read-only (which matters under a --rw folder).
    for (size_t i = 0; i < g_opt.ro.size(); ++i) {
        const std::string& dir = g_opt.ro[i];
        std::string from = "/proc/self/fd/" + std::to_string(roFds[i]);
        struct statvfs sv {};
        if (roFds[i] < 0) fail("opening --ro " + dir, EBADF);
        mkdirs(dir);
        if (mount(from.c_str(), dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr))
            fail("bind-mounting --ro " + dir, errno);
        if (statvfs(dir.c_str(), &sv) ||
            mount(nullptr, dir.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | lockedFlags(sv),
                  nullptr))
            fail("remounting --ro " + dir + " read-only", errno);
        close(roFds[i]);
        verbose("read-only: " + dir);
    }
    if (!g_opt.ro.empty()) {
        std::string dirs;
        for (auto& dir : g_opt.ro)
            dirs += (dirs.empty() ? "" : ", ") + dir;
        g_done.push_back("read-only folders: " + dirs);
    }

    // A procfs of the new PID namespace shows only the sandbox's processes. Containers that mask
    // parts of their /proc make the kernel refuse it; the old one stays (read-only, host PIDs).
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr))
        skipped(std::string("kept the host's /proc (read-only, shows host processes): mounting a "
                            "new procfs failed: ") +
                std::strerror(errno));
    else
        g_done.push_back("fresh /proc"), verbose(g_done.back());
}

void setLimit(int resource, const char* name, rlim_t soft, rlim_t hard) {
    rlimit now{};
    getrlimit(resource, &now);
    rlimit want{std::min(soft, now.rlim_max), std::min(hard, now.rlim_max)};
    if (setrlimit(resource, &want)) fail(std::string("setrlimit(") + name + ")", errno);
}

// No capabilities for the program, not even in its own user namespace: with them it could
// remount our read-only mounts writable (they are ours, not locked by the kernel).
void dropCapabilities() {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) fail("prctl(PR_SET_NO_NEW_PRIVS)", errno);
    for (int cap = 0; cap < 64; ++cap)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
            fail("prctl(PR_CAPBSET_DROP, " + std::to_string(cap) + ")", errno);
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
        fail("prctl(PR_CAP_AMBIENT_CLEAR_ALL)", errno);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (syscall(SYS_capset, &header, data)) fail("capset (dropping all capabilities)", errno);
}

void restoreSignals() {
    for (int sig : kForwarded)
        sigaction(sig, &g_origAction[sig], nullptr);
    sigaction(SIGCHLD, &g_origAction[SIGCHLD], nullptr);
    sigprocmask(SIG_SETMASK, &g_origMask, nullptr);
}

[[noreturn]] void runProgram(const std::string& cwd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != 1) _exit(125); // init is already gone
    if (g_opt.cpu)
        setLimit(RLIMIT_CPU, "RLIMIT_CPU", g_opt.cpu, g_opt.cpu + 1); // SIGXCPU, then SIGKILL
    if (g_opt.mem) setLimit(RLIMIT_AS, "RLIMIT_AS", g_opt.mem, g_opt.mem);
    if (g_opt.nproc) setLimit(RLIMIT_NPROC, "RLIMIT_NPROC", g_opt.nproc, g_opt.nproc);
    if (g_opt.fsize) setLimit(RLIMIT_FSIZE, "RLIMIT_FSIZE", g_opt.fsize, g_opt.fsize);
    // The inherited working directory is the mount under our binds and tmpfs; enter it again by
    // name so that it resolves to what the program should see.
    if (!g_opt.chdir.empty()) {
        if (chdir(g_opt.chdir.c_str())) fail("--chdir " + g_opt.chdir, errno);
    } else if (cwd.empty() || chdir(cwd.c_str())) {
        verbose("the working directory '" + cwd + "' is not visible in the sandbox; using /");
        if (chdir("/")) fail("chdir /", errno);
    }
    if (g_opt.hostTmp) {
        // In the private /dev/shm tmpfs: writable, and gone with the sandbox.
        if (mkdir("/dev/shm/tmp", 01777) && errno != EEXIST) fail("creating the private TMPDIR /dev/shm/tmp", errno);
        chmod("/dev/shm/tmp", 01777);
        setenv("TMPDIR", "/dev/shm/tmp", 1);
    }
    dropCapabilities();
    if (g_opt.check) _exit(0);
    restoreSignals();
    execvp(g_opt.argv[0], g_opt.argv);
    int err = errno;
    writeAll(2, std::string("kernelsieve-sandbox: cannot run '") + g_opt.argv[0] +
                    "': " + std::strerror(err) + "\n");
    _exit(err == ENOENT ? 127 : 126);
}

// Signals from the terminal (si_code SI_KERNEL) already reached the whole foreground process
// group, the program included; forwarding them too would deliver them twice.
void forward(int sig, siginfo_t* info, void*) {
    int savedErrno = errno;
    if (info->si_code != SI_KERNEL && g_target > 0) kill(pid_t(g_target), sig);
    errno = savedErrno;
}

[[noreturn]] void init(int statusFd, int aliveFd, const std::string& cwd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The helper may have died before the line above: its end of this pipe is then closed.
    pollfd alive{aliveFd, POLLIN, 0};
    if (poll(&alive, 1, 0) != 0) _exit(125);
    close(aliveFd);
    setupMounts();
    pid_t program = fork();
    if (program < 0) fail("fork (the program)", errno);
    if (program == 0) runProgram(cwd);
    g_target = program;
    sigset_t forwarded;
    sigemptyset(&forwarded);
    for (int sig : kForwarded)
        sigaddset(&forwarded, sig);
    sigprocmask(SIG_UNBLOCK, &forwarded, nullptr);
    int status = 0;
    for (;;) { // reap everything; orphans of the program are re-parented to us
        pid_t pid = wait(&status);
        if (pid == program) break;
        if (pid < 0 && errno != EINTR) fail("wait", errno);
    }
    if (g_opt.check && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        std::string summary;
        for (auto& done : g_done)
            summary += (summary.empty() ? "" : "; ") + done;
        summary += "; no capabilities; limits: cpu " +
                   (g_opt.cpu ? std::to_string(g_opt.cpu) + " s" : std::string("none")) + ", mem " +
                   sizeText(g_opt.mem) + ", nproc " +
                   (g_opt.nproc ? std::to_string(g_opt.nproc) : std::string("none")) + ", fsize " +
                   sizeText(g_opt.fsize) + ", core 0";
        std::string out = "sandbox: ok (" + summary + ")\n";
        for (auto& s : g_skipped)
            out += "sandbox: skipped: " + s + "\n";
        writeAll(1, out);
    }
    writeAll(statusFd, std::string(reinterpret_cast<const char*>(&status), sizeof status));
    _exit(0); // the kernel now kills whatever is left in the namespace
}

// Ends the helper the way the program ended, so the caller sees "crashed with signal 11".
[[noreturn]] void exitLike(int status) {
    if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    prctl(PR_SET_DUMPABLE, 0); // no core file of the helper; the program's own went by its limit
    raise(sig);
    _exit(128 + sig); // signals whose default is to be ignored
}

} // namespace

int main(int argc, char** argv) {
    parseArgs(argc, argv);
    pid_t parent = getppid();
    // If our caller dies, we die, and with us (PR_SET_PDEATHSIG of init) the whole sandbox.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);
    rlimit noCore{0, 0};
    setrlimit(RLIMIT_CORE, &noCore);

    // Signals are blocked until each process knows where to forward them; the program gets the
    // caller's dispositions and mask back before exec.
    sigset_t forwarded;
    sigemptyset(&forwarded);
    for (int sig : kForwarded)
        sigaddset(&forwarded, sig);
    sigaddset(&forwarded, SIGCHLD);
    sigprocmask(SIG_BLOCK, &forwarded, &g_origMask);
    struct sigaction act {};
    act.sa_sigaction = forward;
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&act.sa_mask);
    for (int sig : kForwarded)
        sigaction(sig, &act, &g_origAction[sig]);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL; // an inherited SIG_IGN would make the kernel reap our children
    sigaction(SIGCHLD, &dfl, &g_origAction[SIGCHLD]);

    char cwdBuf[PATH_MAX];
    std::string cwd = getcwd(cwdBuf, sizeof cwdBuf) ? cwdBuf : "";
    enterNamespaces();
    int statusPipe[2], alivePipe[2];
    if (pipe2(statusPipe, O_CLOEXEC) || pipe2(alivePipe, O_CLOEXEC)) fail("pipe2", errno);
    pid_t initPid = fork();
    if (initPid < 0) fail("fork (the sandbox's init)", errno);
    if (initPid == 0) {
        close(statusPipe[0]);
        close(alivePipe[1]);
        init(statusPipe[1], alivePipe[0], cwd);
    }
    close(statusPipe[1]);
    close(alivePipe[0]);
    g_target = initPid;
    sigprocmask(SIG_UNBLOCK, &forwarded, nullptr);

    int status = 0;
    while (waitpid(initPid, &status, 0) < 0)
        if (errno != EINTR) fail("waitpid (the sandbox's init)", errno);
    int programStatus = 0;
    ssize_t n;
    while ((n = read(statusPipe[0], &programStatus, sizeof programStatus)) < 0 && errno == EINTR) {
    }
    if (n == ssize_t(sizeof programStatus)) exitLike(programStatus);
    // Init ended without a report: a setup failure (it said what failed) or killed from outside.
    if (WIFSIGNALED(status))
        writeAll(2, "kernelsieve-sandbox: the sandbox's init was killed by signal " +
                        std::to_string(WTERMSIG(status)) + "\n");
    exitLike(status);
}
