import torch, time, os
t0=time.time(); torch.cuda.init(); torch.empty(1,device='cuda'); torch.cuda.synchronize(); print('cuda init %.3f'%(time.time()-t0))
x=torch.randn(16,256,256,device='cuda'); a=torch.randn(8192,4096,device='cuda'); b=torch.randn(128,256,512,device='cuda'); c=torch.randn(128,512,384,device='cuda')
m=torch.randn(2048,2048,device='cuda')
torch.cuda.synchronize()
tests=[('prod dim',lambda: x.prod(1)),('mul scalar',lambda: a*3.5),('bmm',lambda: torch.bmm(b,c)),('matmul',lambda: m@m),
 ('maxpool2d',lambda: torch.nn.functional.max_pool2d(torch.randn(16,32,128,128,device='cuda'),2)),
 ('std',lambda: a.std()),('histc',lambda: a.histc(64)),('amax',lambda: a.amax(0)),('isfinite sum',lambda: (~a.isfinite()).sum()),
 ('sort',lambda: a.flatten()[:1000000].sort()), ('quantile', lambda: a.flatten()[:1000000].quantile(0.5)), ('var_mean dim', lambda: torch.var_mean(a, dim=0)),
 ('cumsum', lambda: a.cumsum(1)), ('leaky', lambda: torch.nn.functional.leaky_relu(a,0.01))]
for name,f in tests:
    t=time.time(); f(); torch.cuda.synchronize(); t1=time.time()-t
    t=time.time(); f(); torch.cuda.synchronize(); t2=time.time()-t
    print('%-14s first %.4f s  second %.4f s'%(name,t1,t2))
print(os.environ.get('CUDA_MODULE_LOADING'))
