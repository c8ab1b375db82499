// how many clusters of the tensor-core update kernel's shape (512 threads, 2 blocks an SM,
// 38.9 KB static shared memory) the GPU runs at once, by cluster size
#include <cstdio>
#include <cuda_runtime.h>
__global__ void __launch_bounds__ (512, 2) k (float *p)
{
  __shared__ float s[9728];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads ();
  p[threadIdx.x] = s[511 - threadIdx.x];
}
int main ()
{
  cudaFuncSetAttribute ((const void *) k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  int sms = 0;
  cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0);
  printf ("SMs %d\n", sms);
  for (int c : { 1, 2, 4, 8, 10, 12, 16 })
    {
      cudaLaunchAttribute a;
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = c; a.val.clusterDim.y = 1; a.val.clusterDim.z = 1;
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3 (c, 16); cfg.blockDim = dim3 (512); cfg.attrs = &a; cfg.numAttrs = 1;
      int n = -1;
      cudaError_t e = cudaOccupancyMaxActiveClusters (&n, (const void *) k, &cfg);
      printf ("cluster %2d: max active clusters %d (%d blocks) %s\n", c, n, n * c, cudaGetErrorString (e));
    }
  return 0;
}
