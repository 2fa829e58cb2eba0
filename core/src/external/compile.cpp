// SPDX-License-Identifier: MIT
// Compiling external kernels: nvcc against the LibTorch headers (with KernelSieve's
// torch/extension.h first), into a cache keyed by SHA-256 of everything that shapes the binary.
#include "ks/core/external.h"
#include "ks/core/process.h"
#include "ks/core/results.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

namespace ks {
namespace fs = std::filesystem;
using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4), enough for cache keys without a crypto library.
std::string sha256Hex(const std::string& data) {
    static constexpr std::array<uint32_t, 64> K{
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::array<uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    std::string msg = data;
    const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
    msg.push_back(static_cast<char>(0x80));
    while (msg.size() % 64 != 56) msg.push_back('\0');
    for (int i = 7; i >= 0; --i) msg.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
    for (size_t off = 0; off < msg.size(); off += 64) {
        std::array<uint32_t, 64> w{};
        for (int i = 0; i < 16; ++i)
            w[i] = (uint32_t(uint8_t(msg[off + 4 * i])) << 24) | (uint32_t(uint8_t(msg[off + 4 * i + 1])) << 16) |
                   (uint32_t(uint8_t(msg[off + 4 * i + 2])) << 8) | uint32_t(uint8_t(msg[off + 4 * i + 3]));
        for (int i = 16; i < 64; ++i) {
            const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        auto v = h;
        for (int i = 0; i < 64; ++i) {
            const uint32_t S1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
            const uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
            const uint32_t t1 = v[7] + S1 + ch + K[i] + w[i];
            const uint32_t S0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
            const uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            const uint32_t t2 = S0 + maj;
            v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
        }
        for (int i = 0; i < 8; ++i) h[i] += v[i];
    }
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (uint32_t x : h)
        for (int i = 28; i >= 0; i -= 4) out.push_back(hex[(x >> i) & 0xf]);
    return out;
}

namespace {

std::string envOr(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

// Where the LibTorch headers and libraries are: $KS_TORCH_DIR (a torch package folder) or what
// this build was configured with.
struct TorchPaths {
    std::vector<std::string> includes;
    std::string libDir;
};

TorchPaths torchPaths() {
    TorchPaths p;
    if (const char* d = std::getenv("KS_TORCH_DIR"); d && *d) {
        p.includes = {std::string(d) + "/include", std::string(d) + "/include/torch/csrc/api/include"};
        p.libDir = std::string(d) + "/lib";
        return p;
    }
#ifdef KS_TORCH_PACKAGE_DIR
    const std::string d = KS_TORCH_PACKAGE_DIR;
    p.includes = {d + "/include", d + "/include/torch/csrc/api/include"};
    p.libDir = d + "/lib";
#endif
    return p;
}

// KernelSieve's torch/extension.h: installed beside the binary, else in the source tree.
std::string extensionIncludeDir() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    std::vector<fs::path> candidates;
    if (!ec) candidates.push_back(self.parent_path().parent_path() / "share/kernelsieve/extension");
#ifdef KS_SOURCE_DIR
    candidates.push_back(fs::path(KS_SOURCE_DIR) / "resources/extension");
#endif
    for (const auto& c : candidates)
        if (fs::exists(c / "torch/extension.h", ec)) return c.string();
    std::string looked;
    for (const auto& c : candidates) looked += (looked.empty() ? "" : ", ") + c.string();
    throw Error("KernelSieve's torch/extension.h was not found (looked at " + looked + "); reinstall kernelsieve");
}

std::string findNvcc(const std::string& given) {
    if (!given.empty()) return given;
    if (const char* e = std::getenv("KS_NVCC"); e && *e) return e;
    std::error_code ec;
#ifdef KS_NVCC
    if (fs::exists(KS_NVCC, ec)) return KS_NVCC;
#endif
    if (const char* path = std::getenv("PATH")) {
        std::string p = path;
        size_t start = 0;
        while (start <= p.size()) {
            const size_t colon = p.find(':', start);
            const fs::path cand = fs::path(p.substr(start, colon == std::string::npos ? std::string::npos : colon - start)) / "nvcc";
            if (::access(cand.c_str(), X_OK) == 0) return cand.string();
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
    }
    if (::access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
    throw Error("nvcc was not found (not on PATH, not in /usr/local/cuda/bin); install the CUDA toolkit or set KS_NVCC");
}

// `nvcc --version`, once per process: part of the cache key.
std::string nvccVersion(const std::string& nvcc) {
    static std::mutex m;
    static std::map<std::string, std::string> cache;
    std::lock_guard<std::mutex> lock(m);
    auto it = cache.find(nvcc);
    if (it != cache.end()) return it->second;
    const std::string out = (fs::temp_directory_path() / ("ks-nvcc-version-" + std::to_string(::getpid()))).string();
    const ProcessResult r = runProcess({nvcc, "--version"}, out, 60);
    std::string v = r.ok() ? fileTail(out, 2000) : "";
    ::unlink(out.c_str());
    if (!r.ok()) throw Error("nvcc (" + nvcc + ") does not run: " + r.describe());
    return cache[nvcc] = v;
}

std::vector<std::string> baseFlags(const CompileOptions& opt) {
    return {"-shared", "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden", "-O3", "-std=c++17",
            "-gencode", "arch=compute_" + opt.arch + ",code=sm_" + opt.arch, "--expt-relaxed-constexpr",
            // The flags torch.utils.cpp_extension gives every CUDA source.
            "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
            "-D__CUDA_NO_HALF2_OPERATORS__", "-DTORCH_API_INCLUDE_EXTENSION_H", "-D_GLIBCXX_USE_CXX11_ABI=1",
            "--cudart", "shared"};
}

CompileResult compileOne(const ExternalKernel& k, const CompileOptions& opt, const std::string& cacheDir,
                         const std::atomic<bool>* cancel) {
    CompileResult r;
    try {
        const std::string nvcc = findNvcc(opt.nvcc);
        const std::string extDir = extensionIncludeDir();
        const TorchPaths torch = torchPaths();
        if (torch.includes.empty())
            throw Error("the LibTorch headers are unknown to this build; set KS_TORCH_DIR to a torch package folder");
        std::vector<std::string> flags = baseFlags(opt);
        flags.insert(flags.end(), k.nvccFlags.begin(), k.nvccFlags.end());
        // The key: everything that shapes kernel.so.
        std::string keyText = "ks-ext-abi-1\n" + nvccVersion(nvcc) + "\narch " + opt.arch + "\n";
#ifdef KS_LIBTORCH_VERSION
        keyText += std::string("libtorch ") + KS_LIBTORCH_VERSION + "\n";
#endif
        for (const auto& f : flags) keyText += "flag " + f + "\n";
        for (const auto& inc : torch.includes) keyText += "inc " + inc + "\n";
        keyText += readFile(extDir + "/torch/extension.h") + readFile(extDir + "/kernelsieve/ext_abi.h");
        for (const auto& [name, text] : k.sources) keyText += "file " + name + "\n" + text + "\n";
        r.key = sha256Hex(keyText);
        const fs::path dir = fs::path(cacheDir) / r.key.substr(0, 2) / r.key;
        const fs::path status = dir / "status.json";
        std::error_code ec;
        if (fs::exists(status, ec)) {
            try {
                const json s = json::parse(readFile(status.string()));
                r.ok = s.value("ok", false);
                r.cacheHit = true;
                r.log = fileTail((dir / "compile.log").string());
                r.soPath = r.ok ? (dir / "kernel.so").string() : "";
                if (!r.ok || fs::exists(r.soPath, ec)) return r;
            } catch (const std::exception&) {
                // A damaged entry is compiled again.
            }
        }
        // Compile in a private folder, then rename it into place (atomic): parallel runs that
        // compile the same kernel never see half a kernel.so.
        static std::atomic<int> counter{0};
        const fs::path tmp = fs::path(cacheDir) / r.key.substr(0, 2) /
                             (r.key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++));
        fs::create_directories(tmp, ec);
        if (ec) throw Error("cannot create the kernel cache folder " + tmp.string() + ": " + ec.message());
        std::vector<std::string> argv{nvcc};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.push_back("-DTORCH_EXTENSION_NAME=ks_ext_" + r.key.substr(0, 16));
        argv.push_back("-I" + extDir);
        for (const auto& inc : torch.includes) argv.push_back("-I" + inc);
        for (const auto& [name, text] : k.sources) {
            writeFileAtomic((tmp / name).string(), text);
            argv.push_back((tmp / name).string());
        }
        argv.insert(argv.end(), {"-o", (tmp / "kernel.so").string(), "-L" + torch.libDir, "-lc10", "-lc10_cuda",
                                 "-ltorch_cpu", "-ltorch_cuda", "-ltorch", "-Xlinker", "-rpath", "-Xlinker", torch.libDir});
        const std::string log = (tmp / "compile.log").string();
        const auto t0 = std::chrono::steady_clock::now();
        const ProcessResult p = runProcess(argv, log, opt.timeoutSeconds, cancel, tmp.string());
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        r.log = fileTail(log);
        r.ok = p.ok() && fs::exists(tmp / "kernel.so", ec);
        if (!r.ok && r.log.empty()) r.log = "nvcc " + p.describe();
        else if (!r.ok && !p.ok()) r.log += "\nnvcc " + p.describe();
        if (p.timedOut || p.cancelled || !p.startError.empty()) { // not the source's fault: not cached
            removeTree(tmp.string());
            return r;
        }
        writeFileAtomic((tmp / "status.json").string(), json{{"ok", r.ok}, {"seconds", r.seconds}}.dump());
        std::error_code rec;
        fs::rename(tmp, dir, rec);
        if (rec) removeTree(tmp.string()); // another run put it there first: use theirs
        r.soPath = r.ok ? (dir / "kernel.so").string() : "";
        if (r.ok && !fs::exists(r.soPath, ec)) {
            r.ok = false;
            r.log += "\nthe compiled kernel.so is missing from the cache folder " + dir.string();
        }
    } catch (const Error& e) {
        r.ok = false;
        r.log = e.what();
    }
    return r;
}

} // namespace

std::string defaultKernelCacheDir() { return userCacheDir("KS_KERNEL_CACHE", "kernels"); }

std::vector<CompileResult> compileKernels(const std::vector<ExternalKernel>& kernels, const CompileOptions& opt,
                                          const CompileProgress& progress, const std::atomic<bool>* cancel) {
    std::vector<CompileResult> results(kernels.size());
    const std::string cacheDir = opt.cacheDir.empty() ? defaultKernelCacheDir() : opt.cacheDir;
    const int jobs = opt.jobs > 0 ? opt.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::atomic<int> done{0};
    std::mutex m;
    forEachParallel(kernels.size(), jobs, [&](size_t i) {
        CompileResult r;
        if (!kernels[i].error.empty()) {
            r.ok = false;
            r.log.clear(); // not a compiler message: the kernel was refused before compiling
        } else if (cancel && cancel->load()) {
            r.log = "cancelled before compiling";
        } else {
            r = compileOne(kernels[i], opt, cacheDir, cancel);
        }
        results[i] = r;
        const int d = ++done;
        std::lock_guard<std::mutex> lock(m);
        if (progress) progress(kernels[i], results[i], d, static_cast<int>(kernels.size()));
    });
    return results;
}

} // namespace ks
