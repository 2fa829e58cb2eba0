// SPDX-License-Identifier: MIT
/* A stand-in for libnvidia-ml.so.1 on machines without a GPU (KS_NVML_LIBRARY): the SM clock
   of each nvmlDeviceGetClockInfo call comes from FAKE_NVML_CLOCKS ("1980,1980,1500", the last
   value repeats); the clock-event reasons are SwPowerCap (0x4) once the clock is below 1900
   MHz. FAKE_NVML_FAIL=init makes nvmlInit_v2 fail. */
#include <cstdlib>
#include <cstring>

extern "C" {

static int calls = 0;
static unsigned last = 0;
static int device_token = 1;

int nvmlInit_v2(void) {
    const char* f = getenv("FAKE_NVML_FAIL");
    return f && strcmp(f, "init") == 0 ? 9 /* NVML_ERROR_DRIVER_NOT_LOADED */ : 0;
}
int nvmlShutdown(void) { return 0; }
const char* nvmlErrorString(int rc) { return rc == 9 ? "Driver Not Loaded" : "Unknown Error"; }
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** dev) {
    if (index != 0) return 2;
    *dev = &device_token;
    return 0;
}
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus, void** dev) {
    if (!bus || strncmp(bus, "0000:", 5) != 0) return 6; /* NVML_ERROR_NOT_FOUND */
    *dev = &device_token;
    return 0;
}
int nvmlDeviceGetClockInfo(void* dev, int type, unsigned* mhz) {
    (void)dev;
    if (type != 1) return 2;
    const char* list = getenv("FAKE_NVML_CLOCKS");
    unsigned value = 1980;
    if (list && *list) {
        int i = 0;
        const char* p = list;
        value = (unsigned)strtoul(p, NULL, 10);
        while (i < calls) {
            const char* comma = strchr(p, ',');
            if (!comma) break;
            p = comma + 1;
            value = (unsigned)strtoul(p, NULL, 10);
            ++i;
        }
    }
    ++calls;
    last = value;
    *mhz = value;
    return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void* dev, unsigned long long* reasons) {
    (void)dev;
    *reasons = last < 1900 ? 0x4ull : 0ull;
    return 0;
}

} // extern "C"
