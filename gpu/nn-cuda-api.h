/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nn-cuda-api.h: the NVIDIA libraries the CUDA module uses, loaded at run
 * time: the driver (libcuda.so.1, nvcuda.dll), cuBLAS and cuDNN.
 *
 * Nothing links them, nor the CUDA runtime, so the same host sources build
 * the Linux module with gcc and the Windows one with mingw-w64, and a
 * machine without them still loads the module and hears why its GPU is
 * unusable. Each function is called through a pointer in namespace nn_cu
 * with the API's own name and type (taken from the headers, so the
 * compiler checks every call): nn_cu::cuMemAlloc (&p, bytes),
 * nn_cu::cublasSgemm (...), nn_cu::cudnnCreate (&h). The driver's
 * functions come from cuGetProcAddress at the CUDA version the module was
 * built with, so a newer driver hands back the versions this code expects.
 */
#pragma once

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>

#include <stddef.h>

/* X (name) for every function of each library the module calls, by the
 * base name cuGetProcAddress takes: cuda.h's cuGraphInstantiate is
 * cuGraphInstantiateWithFlags, so that is the name asked for (the driver's
 * cuGraphInstantiate is the older call with an error log buffer). */
#define NN_CU_DRIVER_FUNCTIONS(X)                                                                  \
  X (cuInit)                                                                                       \
  X (cuDriverGetVersion)                                                                           \
  X (cuGetErrorName)                                                                               \
  X (cuGetErrorString)                                                                             \
  X (cuDeviceGetCount)                                                                             \
  X (cuDeviceGet)                                                                                  \
  X (cuDeviceGetName)                                                                              \
  X (cuDeviceTotalMem)                                                                             \
  X (cuDeviceGetAttribute)                                                                         \
  X (cuDevicePrimaryCtxRetain)                                                                     \
  X (cuCtxGetCurrent)                                                                              \
  X (cuCtxSetCurrent)                                                                              \
  X (cuMemAlloc)                                                                                   \
  X (cuMemFree)                                                                                    \
  X (cuMemGetInfo)                                                                                 \
  X (cuMemHostAlloc)                                                                               \
  X (cuMemFreeHost)                                                                                \
  X (cuMemcpyAsync)                                                                                \
  X (cuMemsetD8Async)                                                                              \
  X (cuPointerGetAttributes)                                                                       \
  X (cuStreamCreate)                                                                               \
  X (cuStreamDestroy)                                                                              \
  X (cuStreamSynchronize)                                                                          \
  X (cuStreamQuery)                                                                                \
  X (cuStreamWaitEvent)                                                                            \
  X (cuStreamBeginCapture)                                                                         \
  X (cuStreamEndCapture)                                                                           \
  X (cuLaunchHostFunc)                                                                             \
  X (cuEventCreate)                                                                                \
  X (cuEventDestroy)                                                                               \
  X (cuEventRecord)                                                                                \
  X (cuEventQuery)                                                                                 \
  X (cuEventSynchronize)                                                                           \
  X (cuEventElapsedTime)                                                                           \
  X (cuGraphInstantiateWithFlags)                                                                  \
  X (cuGraphUpload)                                                                                \
  X (cuGraphLaunch)                                                                                \
  X (cuGraphExecDestroy)                                                                           \
  X (cuGraphDestroy)                                                                               \
  X (cuLibraryLoadData)                                                                            \
  X (cuLibraryGetKernel)                                                                           \
  X (cuKernelGetFunction)                                                                          \
  X (cuKernelGetAttribute)                                                                         \
  X (cuKernelSetAttribute)                                                                         \
  X (cuLaunchKernelEx)                                                                             \
  X (cuOccupancyMaxActiveClusters)

#define NN_CU_CUBLAS_FUNCTIONS(X)                                                                  \
  X (cublasCreate)                                                                                 \
  X (cublasDestroy)                                                                                \
  X (cublasSetStream)                                                                              \
  X (cublasSetWorkspace)                                                                           \
  X (cublasSetMathMode)                                                                            \
  X (cublasSgemm)                                                                                  \
  X (cublasGetProperty)                                                                            \
  X (cublasGetStatusName)                                                                          \
  X (cublasGetStatusString)

#define NN_CU_CUDNN_FUNCTIONS(X)                                                                   \
  X (cudnnGetVersion)                                                                              \
  X (cudnnGetErrorString)                                                                          \
  X (cudnnCreate)                                                                                  \
  X (cudnnDestroy)                                                                                 \
  X (cudnnSetStream)                                                                               \
  X (cudnnCreateTensorDescriptor)                                                                  \
  X (cudnnDestroyTensorDescriptor)                                                                 \
  X (cudnnSetTensor4dDescriptor)                                                                   \
  X (cudnnCreateFilterDescriptor)                                                                  \
  X (cudnnDestroyFilterDescriptor)                                                                 \
  X (cudnnSetFilter4dDescriptor)                                                                   \
  X (cudnnCreateConvolutionDescriptor)                                                             \
  X (cudnnDestroyConvolutionDescriptor)                                                            \
  X (cudnnSetConvolution2dDescriptor)                                                              \
  X (cudnnSetConvolutionMathType)                                                                  \
  X (cudnnGetConvolution2dForwardOutputDim)                                                        \
  X (cudnnFindConvolutionForwardAlgorithm)                                                         \
  X (cudnnFindConvolutionBackwardDataAlgorithm)                                                    \
  X (cudnnFindConvolutionBackwardFilterAlgorithm)                                                  \
  X (cudnnConvolutionForward)                                                                      \
  X (cudnnConvolutionBackwardData)                                                                 \
  X (cudnnConvolutionBackwardFilter)

/* The pointers, each of its function's own type. cuda.h and cublas_v2.h
 * name some functions by their versioned symbols (cuMemAlloc is
 * cuMemAlloc_v2): the pointer takes that name too, so calls read as the
 * API's. */
namespace nn_cu
{
#define NN_CU_DECLARE(name) extern decltype (&::name) name;
NN_CU_DRIVER_FUNCTIONS (NN_CU_DECLARE)
NN_CU_CUBLAS_FUNCTIONS (NN_CU_DECLARE)
NN_CU_CUDNN_FUNCTIONS (NN_CU_DECLARE)
#undef NN_CU_DECLARE
} // namespace nn_cu

/* Which library failed to load, if any. */
typedef enum
{
  NN_CU_READY = 0,     /* all three loaded, the driver initialized */
  NN_CU_NO_DRIVER,     /* the driver library is missing or does not start */
  NN_CU_NO_LIBRARIES,  /* the driver is there; cuBLAS or cuDNN is not */
} NnCuState;

/* Loads the three libraries and initializes the driver, once per process
 * (later calls return the first answer). Returns NN_CU_READY, or the state
 * with `reason` saying what is missing and where it was looked for
 * ("no NVIDIA driver (nvcuda.dll not found)"). */
NnCuState _nn_cu_load (char *reason, size_t reason_size);

/* Where the libraries were loaded from, once _nn_cu_load is ready
 * ("cuBLAS /usr/local/cuda/lib64/libcublas.so.13, cuDNN ..."). */
const char *_nn_cu_libraries (void);

/* The driver's own version ("580.159.04") from NVML (libnvidia-ml.so.1,
 * nvml.dll), loaded only for this; false where NVML is not there. */
bool _nn_cu_driver_version (char *out, size_t size);

/* The driver's error name and text, for messages. */
const char *_nn_cu_error_name (CUresult err);
const char *_nn_cu_error_text (CUresult err);
