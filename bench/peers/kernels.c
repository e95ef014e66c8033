/* The C reference every peer's process times beside its own kernels (bench/peers/run.py builds
   it once with -O3 -march=native -fopenmp): the same loops on the same threads. */
#include <math.h>

void triad(float* a, const float* b, const float* c, float s, long n) {
#pragma omp parallel for
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void sinexp(const float* x, float* out, long n) {
#pragma omp parallel for
  for (long i = 0; i < n; ++i) out[i] = sinf(x[i]) * expf(-x[i] * x[i]);
}

void stencil(const float* u, float* v, long rows, long cols) {
#pragma omp parallel for
  for (long i = 1; i < rows - 1; ++i)
    for (long j = 1; j < cols - 1; ++j)
      v[i * cols + j] = 0.25f * (u[(i - 1) * cols + j] + u[(i + 1) * cols + j] +
                                 u[i * cols + j - 1] + u[i * cols + j + 1]);
}

void add_one(const float* x, float* y, long n) {
  for (long i = 0; i < n; ++i) y[i] = x[i] + 1.0f;
}
