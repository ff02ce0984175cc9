#pragma once
// Element-wise math is written once and compiled for both backends: under nvcc these functions
// are __host__ __device__, elsewhere plain inline C++. The CPU tests therefore check the GPU
// path's arithmetic.

#if defined(__CUDACC__)
#define AMPSCOPE_HD __host__ __device__ inline
#else
#define AMPSCOPE_HD inline
#endif
