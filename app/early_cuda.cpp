// SPDX-License-Identifier: MIT
// A filter worker's CUDA context, made while LibTorch initialises itself. Loading kernelsieve-engine
// takes about 0.3 s on the H200, nearly all of it LibTorch's static initialisers (its operator
// registrations; the dynamic loader's own work is a few milliseconds), and the CUDA driver's
// initialisation and the device's primary context another 0.2 s after that (bench/engine/
// RESULTS.md). A function in .preinit_array runs before any library's initialiser: it starts a
// thread that initialises the driver and retains device 0's primary context, the one the CUDA
// runtime (and so LibTorch) then uses. The driver is reached through libcuda.so.1 opened at run
// time, so a machine without one loses nothing; only a filter worker not told `--device cpu`
// does this. KS_EARLY_CUDA=0 turns it off; KS_TRACE_START prints its time.

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

namespace {

bool g_trace = false;

double now() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void* makeContext(void*) {
    const double t0 = now();
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); // kept: the runtime opens it too
    if (!cuda) {
        if (g_trace) std::fprintf(stderr, "[trace] early CUDA context: no libcuda.so.1 here\n");
        return nullptr;
    }
    using InitFn = int (*)(unsigned);
    using DeviceGetFn = int (*)(int*, int);
    using RetainFn = int (*)(void**, int);
    const auto init = reinterpret_cast<InitFn>(::dlsym(cuda, "cuInit"));
    const auto deviceGet = reinterpret_cast<DeviceGetFn>(::dlsym(cuda, "cuDeviceGet"));
    const auto retain = reinterpret_cast<RetainFn>(::dlsym(cuda, "cuDevicePrimaryCtxRetain"));
    int device = 0;
    void* context = nullptr; // retained for the process's life, as the runtime's own use keeps it
    const bool made = init && deviceGet && retain && init(0) == 0 && deviceGet(&device, 0) == 0 &&
                      retain(&context, device) == 0;
    if (g_trace)
        std::fprintf(stderr, "[trace] early CUDA context: %s in %.3f s\n", made ? "made" : "not made", now() - t0);
    return nullptr;
}

bool isWorkerOnCuda(int argc, char** argv) {
    if (argc < 3 || std::strcmp(argv[1], "filter") != 0) return false;
    bool worker = false, cpu = false;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--worker-fd") == 0) worker = true;
        if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc && std::strcmp(argv[i + 1], "cpu") == 0) cpu = true;
        if (std::strcmp(argv[i], "--device=cpu") == 0) cpu = true;
    }
    return worker && !cpu;
}

const char* envValue(char** envp, const char* name) {
    const size_t n = std::strlen(name);
    for (char** e = envp; e && *e; ++e)
        if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return nullptr;
}

void startEarlyContext(int argc, char** argv, char** envp) {
    if (!isWorkerOnCuda(argc, argv)) return;
    if (const char* off = envValue(envp, "KS_EARLY_CUDA"); off && std::strcmp(off, "0") == 0) return;
    g_trace = envValue(envp, "KS_TRACE_START") != nullptr;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    (void)pthread_create(&thread, &attr, makeContext, nullptr); // on failure the runtime does it later
    pthread_attr_destroy(&attr);
}

} // namespace

// Before every shared library's initialiser (ELF .preinit_array, executables only).
__attribute__((section(".preinit_array"), used)) static void (*const ks_early_cuda)(int, char**, char**) =
    startEarlyContext;
