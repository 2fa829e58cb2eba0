// SPDX-License-Identifier: MIT
// kernelsieve-cli as installed (bin/kernelsieve-cli): finds LibTorch, checks that every library the
// real program needs resolves, then runs the real program (libexec/kernelsieve-cli) in its place.
// (That program links no LibTorch; what it runs, libexec/kernelsieve-engine, does: its libraries
// are the ones checked.)
//
// The package does not ship LibTorch: the torch wheel with its CUDA libraries is about 3.9 GB
// installed, a 2 GB download the package would repeat on every release, and the importer needs a
// Python with torch anyway (README "Install"). So the installed program has no run path to
// LibTorch; this launcher finds the torch of a Python installation and puts its libraries on
// LD_LIBRARY_PATH, which the filter's workers, the sandbox and the GUI's runs inherit.
//
// Where it looks, in order; the first whose torch has this build's LibTorch version (major.minor)
// and whose libraries all resolve wins:
//   $KS_TORCH_DIR   a torch package folder (.../site-packages/torch): only it, when set
//   $KS_PYTHON      a python3 whose torch is used: only it, when set
//   ${XDG_DATA_HOME:-~/.local/share}/kernelsieve/venv/bin/python3   the documented per-user venv
//   /opt/kernelsieve/venv/bin/python3                                a system-wide one
//   python3 on PATH
// It exports KS_PYTHON (the importer's and ModelNew capture's Python) and KS_TORCH_DIR (the headers
// external kernels compile against) unless they are set. When nothing works it says what it tried
// and what to install, and exits 6, instead of the loader's "cannot open shared object file".
// KS_LAUNCHER_LOG=FILE appends one line saying what was used (FILE may be /dev/stderr).
//
// libc and the standard library only: it must start where LibTorch is missing.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <pwd.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef KS_VERSION
#define KS_VERSION "0.0.0"
#endif
#ifndef KS_TORCH_VERSION
#define KS_TORCH_VERSION "2.11.0"
#endif

namespace {
namespace fs = std::filesystem;

constexpr int NoTorch = 6; // as import-kernelbench's "no Python with torch"
constexpr const char* RealProgram = "../libexec/kernelsieve-cli"; // relative to this program's folder
constexpr const char* EngineProgram = "../libexec/kernelsieve-engine"; // what links LibTorch

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// "2.11.0+cu130" -> "2.11"
std::string majorMinor(const std::string& v) {
    const size_t a = v.find('.');
    if (a == std::string::npos) return v;
    const size_t b = v.find_first_not_of("0123456789", a + 1);
    return v.substr(0, b);
}

// Runs argv with `extraEnv` added, stdout captured, stderr discarded. Returns the exit status
// (-1 when it could not start, 128 + signal when killed).
int capture(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& extraEnv,
            std::string& out) {
    int fds[2];
    if (::pipe(fds) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        ::dup2(fds[1], 1);
        ::close(fds[0]);
        ::close(fds[1]);
        if (FILE* devnull = std::fopen("/dev/null", "w")) ::dup2(fileno(devnull), 2);
        for (const auto& [k, v] : extraEnv) ::setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string onPath(const std::string& name) {
    std::stringstream path(env("PATH"));
    std::string dir;
    while (std::getline(path, dir, ':')) {
        if (dir.empty()) continue;
        const std::string c = dir + "/" + name;
        if (::access(c.c_str(), X_OK) == 0) return c;
    }
    return "";
}

// __version__ from torch/version.py, read rather than imported: importing torch takes seconds.
std::string torchVersion(const fs::path& torchDir) {
    std::ifstream in(torchDir / "version.py");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("__version__", 0) != 0) continue;
        const size_t a = line.find_first_of("'\"");
        const size_t b = a == std::string::npos ? a : line.find(line[a], a + 1);
        if (b != std::string::npos) return line.substr(a + 1, b - a - 1);
    }
    return "";
}

// torch/lib, and the CUDA libraries the wheel depends on (site-packages/nvidia/*/lib): torch's
// own libraries find those through their run path, our program links libcudart directly.
std::vector<std::string> libraryDirs(const fs::path& torchDir) {
    std::vector<std::string> dirs{(torchDir / "lib").string()};
    std::vector<std::string> nvidia;
    std::error_code ec;
    for (fs::directory_iterator it(torchDir.parent_path() / "nvidia", ec), end; !ec && it != end; it.increment(ec))
        if (fs::is_directory(it->path() / "lib", ec)) nvidia.push_back((it->path() / "lib").string());
    std::sort(nvidia.begin(), nvidia.end());
    dirs.insert(dirs.end(), nvidia.begin(), nvidia.end());
    return dirs;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

struct Found {
    std::string python; // empty when KS_TORCH_DIR gave the torch folder
    std::string torchDir, version, libraryPath;
};

class Search {
public:
    explicit Search(std::string real) : m_real(std::move(real)) {}

    // A torch package folder: right version, every library of the real program resolves.
    std::optional<Found> tryTorch(const std::string& label, const std::string& python, const fs::path& given) {
        std::error_code ec;
        const fs::path torchDir = fs::absolute(given, ec).lexically_normal();
        const std::string version = torchVersion(torchDir);
        if (version.empty()) {
            note(label, torchDir.string() + " is not a torch package folder (no version.py)");
            return std::nullopt;
        }
        if (majorMinor(version) != majorMinor(KS_TORCH_VERSION)) {
            note(label, "torch " + version + " at " + torchDir.string() + ", but this KernelSieve is built for torch " +
                            majorMinor(KS_TORCH_VERSION));
            return std::nullopt;
        }
        std::string ld = join(libraryDirs(torchDir), ":");
        if (const std::string old = env("LD_LIBRARY_PATH"); !old.empty()) ld += ":" + old;
        // The loader resolves every library and runs nothing of the program: ldd without ldd.
        std::string trace;
        const int rc = capture({m_real}, {{"LD_TRACE_LOADED_OBJECTS", "1"}, {"LD_LIBRARY_PATH", ld}}, trace);
        std::vector<std::string> missing;
        std::istringstream lines(trace);
        std::string line;
        while (std::getline(lines, line)) {
            const size_t arrow = line.find(" => not found");
            if (arrow == std::string::npos) continue;
            const size_t start = line.find_first_not_of(" \t");
            // Each library that needs it reports it again.
            const std::string name = line.substr(start, arrow - start);
            if (std::find(missing.begin(), missing.end(), name) == missing.end()) missing.push_back(name);
        }
        if (!missing.empty()) {
            const bool cuda = std::any_of(missing.begin(), missing.end(), [](const std::string& m) {
                return m.find("cuda") != std::string::npos || m.find("cublas") != std::string::npos;
            });
            const fs::path site = torchDir.parent_path();
            note(label, "torch " + version + " at " + torchDir.string() + ", but " + join(missing, ", ") +
                            (missing.size() == 1 ? " is" : " are") + " not found in " + (torchDir / "lib").string() +
                            " or " + (site / "nvidia/*/lib").string() +
                            (cuda ? " (KernelSieve needs the CUDA build of torch " + majorMinor(KS_TORCH_VERSION) +
                                        ", the default on the Python registry; a +cpu build lacks the CUDA libraries)"
                                  : " (an incomplete torch installation: reinstall it)"));
            return std::nullopt;
        }
        if (rc != 0 || trace.empty()) {
            note(label, "could not check the libraries of " + m_real + " (the loader's check exited " +
                            std::to_string(rc) + ")");
            return std::nullopt;
        }
        return Found{python, torchDir.string(), version, ld};
    }

    std::optional<Found> tryPython(const std::string& label, std::string python) {
        if (python.find('/') == std::string::npos) {
            const std::string resolved = onPath(python);
            if (resolved.empty()) {
                note(label, "not on PATH");
                return std::nullopt;
            }
            python = resolved;
        }
        std::error_code ec;
        if (!fs::exists(python, ec)) {
            note(label, "not there");
            return std::nullopt;
        }
        // find_spec locates torch without importing it (milliseconds, not seconds).
        std::string out;
        const int rc = capture({python, "-c",
                                "import importlib.util as u\n"
                                "s = u.find_spec('torch')\n"
                                "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')"},
                               {}, out);
        out = trim(out);
        if (rc != 0) {
            note(label, "cannot be run (exit " + std::to_string(rc) + ")");
            return std::nullopt;
        }
        if (out.empty()) {
            note(label, "has no torch");
            return std::nullopt;
        }
        return tryTorch(label, python, out);
    }

    const std::vector<std::string>& tried() const { return m_tried; }

private:
    void note(const std::string& label, const std::string& why) { m_tried.push_back(label + ": " + why); }
    std::string m_real;
    std::vector<std::string> m_tried;
};

std::string dataHome() {
    if (const std::string x = env("XDG_DATA_HOME"); !x.empty() && x[0] == '/') return x;
    std::string home = env("HOME");
    if (home.empty())
        if (const passwd* pw = ::getpwuid(::getuid())) home = pw->pw_dir;
    return home + "/.local/share";
}

void log(const std::string& line) {
    const std::string file = env("KS_LAUNCHER_LOG");
    if (file.empty()) return;
    // fd 2 itself: a second open file description of a redirected stderr would write over it.
    if (file == "/dev/stderr") std::fprintf(stderr, "kernelsieve-cli: %s\n", line.c_str());
    else std::ofstream(file, std::ios::app) << "kernelsieve-cli: " << line << "\n";
}

} // namespace

int main(int, char** argv) {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    const std::string real = (self.parent_path() / RealProgram).lexically_normal().string();
    const std::string engine = (self.parent_path() / EngineProgram).lexically_normal().string();
    for (const std::string& program : {real, engine})
        if (ec || ::access(program.c_str(), X_OK) != 0) {
            std::fprintf(stderr, "kernelsieve-cli: the program %s is missing; reinstall kernelsieve\n", program.c_str());
            log("error: " + program + " missing");
            return 127;
        }

    Search search(engine);
    std::optional<Found> found;
    const std::string venv = dataHome() + "/kernelsieve/venv/bin/python3";
    if (const std::string dir = env("KS_TORCH_DIR"); !dir.empty()) {
        found = search.tryTorch("KS_TORCH_DIR=" + dir, "", dir);
    } else if (const std::string py = env("KS_PYTHON"); !py.empty()) {
        found = search.tryPython("KS_PYTHON=" + py, py);
    } else {
        for (const std::string& py : {venv, std::string("/opt/kernelsieve/venv/bin/python3")})
            if ((found = search.tryPython(py, py))) break;
        const std::string pathPython = onPath("python3");
        if (!found)
            found = search.tryPython("python3 on PATH" + (pathPython.empty() ? "" : " (" + pathPython + ")"), "python3");
    }
    if (!found) {
        const std::string want = majorMinor(KS_TORCH_VERSION);
        std::fprintf(stderr,
                     "kernelsieve-cli: no usable LibTorch. KernelSieve %s runs on the LibTorch of a Python torch %s "
                     "installation (the CUDA build, the default on the Python registry), which the package does not "
                     "include. Tried:\n",
                     KS_VERSION, want.c_str());
        for (const auto& t : search.tried()) std::fprintf(stderr, "  %s\n", t.c_str());
        std::fprintf(stderr,
                     "Install it once (about 4 GB with its CUDA libraries):\n"
                     "  python3 -m venv ~/.local/share/kernelsieve/venv\n"
                     "  ~/.local/share/kernelsieve/venv/bin/pip install torch==%s numpy\n"
                     "or set KS_PYTHON to a python3 that has torch %s (KS_TORCH_DIR to its torch folder).\n",
                     KS_TORCH_VERSION, want.c_str());
        log("error: no usable LibTorch: " + join(search.tried(), "; "));
        return NoTorch;
    }

    ::setenv("LD_LIBRARY_PATH", found->libraryPath.c_str(), 1);
    if (env("KS_TORCH_DIR").empty()) ::setenv("KS_TORCH_DIR", found->torchDir.c_str(), 1);
    if (env("KS_PYTHON").empty() && !found->python.empty()) ::setenv("KS_PYTHON", found->python.c_str(), 1);
    log("torch " + found->version + " at " + found->torchDir + "; python " +
        (found->python.empty() ? std::string("(none: KS_TORCH_DIR)") : found->python) + "; running " + real);
    ::execv(real.c_str(), argv);
    std::fprintf(stderr, "kernelsieve-cli: cannot run %s: %s\n", real.c_str(), std::strerror(errno));
    return 126;
}
