# Does loading a CUDA kernel module on first use (lazy loading) block other threads' launches, and
# does warming it on a background thread overlap with host work? (bench/engine/RESULTS.md)
import threading, time, torch, sys
torch.empty(1, device="cuda"); torch.cuda.synchronize()
mode = sys.argv[1]
x = torch.randn(16, 256, 256, device="cuda"); torch.cuda.synchronize()
if mode == "block":
    lat = []
    def warm():
        t = time.time(); torch.ones(4, 4, device="cuda").prod(1); torch.cuda.synchronize(); print("warm prod %.3f" % (time.time() - t))
    th = threading.Thread(target=warm); th.start()
    t0 = time.time()
    while th.is_alive():
        t = time.time(); y = x * 2.0; torch.cuda.synchronize(); lat.append(time.time() - t)
    th.join()
    print("launches while warming: %d, max latency %.4f s, total %.3f s" % (len(lat), max(lat), time.time() - t0))
    t = time.time(); x.prod(1); torch.cuda.synchronize(); print("prod after warm %.4f" % (time.time() - t))
else:
    g = torch.Generator().manual_seed(0)
    t0 = time.time()
    th = None
    if mode == "overlap":
        th = threading.Thread(target=lambda: (torch.ones(4, 4, device="cuda").prod(1), torch.cuda.synchronize())); th.start()
    h = torch.randn(50_000_000, generator=g)  # host work, as drawing a task's first seed
    y = h[:16 * 256 * 256].view(16, 256, 256).cuda().prod(1); torch.cuda.synchronize()
    if th: th.join()
    print("%s: draw + first prod %.3f s" % (mode, time.time() - t0))
