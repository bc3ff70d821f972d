// Hand-written CUDA C of the four GPU workloads of scripts/gpu-check.sh,
// the same math as Weft's kernels (crates/devtools/src/gpu_bench.rs, `weft bench-gpu`):
//   nbody           examples/nbody.py's nbody_step (softened, eps2 = 0.0025,
//                   dt = 1e-3, grav = 1, 1/sqrt(r2) cubed), N = 100 000
//   saxpy           y = a*x + y, a = 2, 2^28 floats
//   transcendental  y = sin(v)*cos(v) + exp(-v*v) + sqrt(|v|), 2^28 floats
//   atomic_sum      atomicAdd of 2^26 floats into one cell
// Inputs as Weft's: xorshift bodies in the unit ball, x[i] = (i % 1024) / 2
// for saxpy, the ramp (i % 1000) * 0.001 - 0.5 for the other two.
// Each launch is timed twice, both medians reported: host clock from the
// launch until the stream is idle (what `weft bench-gpu` measures) and CUDA
// events around it. One untimed launch first. Each result is checked.
// Output: one JSON object a line (benches/gpu/table.py reads them).
//
// build: nvcc -O3 -arch=sm_90 -o workloads benches/gpu/workloads.cu
// usage: workloads [--label L] [--n N] [--steps S] [--saxpy-log2 K]
//                  [--transcendental-log2 K] [--atomic-log2 K]
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static const char *label = "cuda-c";
static char gpu_name[256] = "?";

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
              cudaGetErrorString(e_));                                         \
      printf("{\"impl\": \"%s\", \"error\": \"%s\"}\n", label,                 \
             cudaGetErrorString(e_));                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// ---- kernels (one thread per element, 256 a block)

__global__ void nbody_step(const float3 *__restrict__ pos,
                           const float3 *__restrict__ vel,
                           const float *__restrict__ mass,
                           float3 *__restrict__ new_pos,
                           float3 *__restrict__ new_vel, int n, float dt,
                           float grav, float eps2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 p = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int j = 0; j < n; j++) {
    float3 q = pos[j];
    float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
    float r2 = dx * dx + dy * dy + dz * dz + eps2;
    float inv_r = 1.0f / sqrtf(r2);
    float s = grav * mass[j] * inv_r * inv_r * inv_r;
    ax = ax + dx * s;
    ay = ay + dy * s;
    az = az + dz * s;
  }
  float3 v = vel[i];
  v.x = v.x + ax * dt;
  v.y = v.y + ay * dt;
  v.z = v.z + az * dt;
  new_vel[i] = v;
  new_pos[i] = make_float3(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt);
}

__global__ void saxpy_fill(float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = (float)(i % 1024) * 0.5f;
    y[i] = 1.0f;
  }
}

__global__ void saxpy(const float *__restrict__ x, float *__restrict__ y,
                      float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void ramp(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // Not contracted to an fma: the same values as Weft's host ramp.
  if (i < n) x[i] = __fadd_rn(__fmul_rn((float)(i % 1000), 1e-3f), -0.5f);
}

__global__ void transcendental(const float *__restrict__ x,
                               float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = sinf(v) * cosf(v) + expf(-v * v) + sqrtf(fabsf(v));
  }
}

__global__ void atomic_sum(const float *__restrict__ x, float *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}

// ---- timing

static unsigned blocks(long n) { return (unsigned)((n + 255) / 256); }

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timing {
  double host_ms, event_ms;
};

// One untimed launch, then `reps` timed ones.
template <class F> static Timing timed(F launch, int reps) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> host, ev;
  for (int r = 0; r < reps; r++) {
    auto t0 = std::chrono::steady_clock::now();
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaStreamSynchronize(0));
    auto t1 = std::chrono::steady_clock::now();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    host.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    ev.push_back(ms);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return {median(host), median(ev)};
}

static void row(const char *workload, long n, const std::string &size,
                Timing t, double work, const char *unit, bool ok,
                const std::string &check) {
  printf("{\"impl\": \"%s\", \"workload\": \"%s\", \"n\": %ld, \"size\": "
         "\"%s\", \"host_ms\": %.6f, \"event_ms\": %.6f, \"rate\": %.3f, "
         "\"unit\": \"%s\", \"check\": \"%s%s\", \"gpu\": \"%s\"}\n",
         label, workload, n, size.c_str(), t.host_ms, t.event_ms,
         work / (t.host_ms * 1e-3) / 1e9, unit, ok ? "" : "FAILED: ",
         check.c_str(), gpu_name);
  fflush(stdout);
}

static std::string pow2(int k) { return "2^" + std::to_string(k); }

// ---- workloads

// Weft's bodies (crates/devtools/src/gpu_bench.rs): xorshift64 in the unit ball.
static void bodies(int n, std::vector<float> &p, std::vector<float> &v,
                   std::vector<float> &m) {
  uint64_t s = 0x2545f4914f6cdd1dULL;
  auto rnd = [&]() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (float)(s >> 40) / 16777216.0f * 2.0f - 1.0f;
  };
  p.clear();
  while ((int)p.size() < 3 * n) {
    float x = rnd(), y = rnd(), z = rnd();
    if (x * x + y * y + z * z <= 1.0f) {
      p.push_back(x);
      p.push_back(y);
      p.push_back(z);
    }
  }
  v.assign(3 * n, 0.0f);
  for (int i = 0; i < n; i++) {
    v[3 * i] = -p[3 * i + 1] * 0.3f;
    v[3 * i + 1] = p[3 * i] * 0.3f;
  }
  m.assign(n, 1.0f / (float)n);
}

static bool run_nbody(int n, int steps) {
  const float dt = 1e-3f, grav = 1.0f, eps2 = 0.0025f;
  std::vector<float> p, v, m;
  bodies(n, p, v, m);
  size_t b3 = sizeof(float3) * n;
  float3 *dp, *dv, *np_, *nv;
  float *dm;
  CK(cudaMalloc(&dp, b3));
  CK(cudaMalloc(&dv, b3));
  CK(cudaMalloc(&np_, b3));
  CK(cudaMalloc(&nv, b3));
  CK(cudaMalloc(&dm, sizeof(float) * n));
  CK(cudaMemcpy(dp, p.data(), b3, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, v.data(), b3, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dm, m.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  // Every timed step from the same state (Weft swaps buffers: same work).
  Timing t = timed(
      [&] {
        nbody_step<<<blocks(n), 256>>>(dp, dv, dm, np_, nv, n, dt, grav, eps2);
      },
      steps);
  std::vector<float> gp(3 * n), gv(3 * n);
  CK(cudaMemcpy(gp.data(), np_, b3, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gv.data(), nv, b3, cudaMemcpyDeviceToHost));
  // 64 bodies in f64; error relative to the largest magnitude, as Weft's.
  double err = 0, scale = 1e-30;
  for (int k = 0; k < 64; k++) {
    int i = (int)((long)k * n / 64);
    double a[3] = {0, 0, 0};
    for (int j = 0; j < n; j++) {
      double d[3], r2 = eps2;
      for (int c = 0; c < 3; c++) {
        d[c] = (double)p[3 * j + c] - p[3 * i + c];
        r2 += d[c] * d[c];
      }
      double s = grav * (double)m[j] / (r2 * std::sqrt(r2));
      for (int c = 0; c < 3; c++) a[c] += d[c] * s;
    }
    for (int c = 0; c < 3; c++) {
      double wv = v[3 * i + c] + a[c] * dt, wp = p[3 * i + c] + wv * dt;
      err = std::max(err, std::max(std::fabs(wv - gv[3 * i + c]),
                                   std::fabs(wp - gp[3 * i + c])));
      scale = std::max(scale, std::max(std::fabs(wv), std::fabs(wp)));
    }
  }
  err /= scale;
  char check[96];
  snprintf(check, sizeof check, "64 bodies vs f64: max rel err %.1e", err);
  row("nbody", n, "N = " + std::to_string(n), t, 20.0 * n * (double)n,
      "GFLOP/s", err < 1e-3, check);
  cudaFree(dp), cudaFree(dv), cudaFree(np_), cudaFree(nv), cudaFree(dm);
  return err < 1e-3;
}

static bool run_saxpy(int k) {
  int n = 1 << k;
  float *x, *y;
  CK(cudaMalloc(&x, sizeof(float) * n));
  CK(cudaMalloc(&y, sizeof(float) * n));
  saxpy_fill<<<blocks(n), 256>>>(x, y, n);
  Timing t = timed([&] { saxpy<<<blocks(n), 256>>>(x, y, 2.0f, n); }, 20);
  saxpy_fill<<<blocks(n), 256>>>(x, y, n);
  saxpy<<<blocks(n), 256>>>(x, y, 2.0f, n);
  std::vector<float> got(n);
  CK(cudaMemcpy(got.data(), y, sizeof(float) * n, cudaMemcpyDeviceToHost));
  long bad = -1;
  for (long i = 0; i < n && bad < 0; i++)
    if (got[i] != 2.0f * ((float)(i % 1024) * 0.5f) + 1.0f) bad = i;
  std::string check = bad < 0 ? "exact, every element"
                              : "y[" + std::to_string(bad) + "] wrong";
  row("saxpy", n, pow2(k), t, 12.0 * n, "GB/s", bad < 0, check);
  cudaFree(x), cudaFree(y);
  return bad < 0;
}

static bool run_transcendental(int k) {
  int n = 1 << k;
  float *x, *y;
  CK(cudaMalloc(&x, sizeof(float) * n));
  CK(cudaMalloc(&y, sizeof(float) * n));
  ramp<<<blocks(n), 256>>>(x, n);
  Timing t = timed([&] { transcendental<<<blocks(n), 256>>>(x, y, n); }, 20);
  std::vector<float> xs(n), got(n);
  CK(cudaMemcpy(xs.data(), x, sizeof(float) * n, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got.data(), y, sizeof(float) * n, cudaMemcpyDeviceToHost));
  double err = 0;
  auto at = [&](long i) {
    double v = xs[i];
    double w = std::sin(v) * std::cos(v) + std::exp(-v * v) + std::sqrt(std::fabs(v));
    err = std::max(err, std::fabs(got[i] - w));
  };
  for (long i = 0; i < n; i += 4099) at(i);
  for (long i = std::max(0, n - 1000); i < n; i++) at(i);
  char check[96];
  snprintf(check, sizeof check, "vs f64, every 4099th: max abs err %.1e", err);
  row("transcendental", n, pow2(k), t, n, "Gelem/s", err < 1e-5, check);
  cudaFree(x), cudaFree(y);
  return err < 1e-5;
}

static bool run_atomic(int k) {
  int n = 1 << k;
  float *x, *total;
  CK(cudaMalloc(&x, sizeof(float) * n));
  CK(cudaMalloc(&total, sizeof(float)));
  ramp<<<blocks(n), 256>>>(x, n);
  CK(cudaMemset(total, 0, sizeof(float)));
  Timing t = timed([&] { atomic_sum<<<blocks(n), 256>>>(x, total, n); }, 10);
  CK(cudaMemset(total, 0, sizeof(float)));
  atomic_sum<<<blocks(n), 256>>>(x, total, n);
  float got = 0;
  CK(cudaMemcpy(&got, total, sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> xs(n);
  CK(cudaMemcpy(xs.data(), x, sizeof(float) * n, cudaMemcpyDeviceToHost));
  double want = 0;
  for (float v : xs) want += v;
  double rel = std::fabs(got - want) / std::max(std::fabs(want), 1e-30);
  bool ok = rel <= 1e-2;  // NaN fails
  char check[96];
  snprintf(check, sizeof check, "vs f64 sum: rel err %.1e", rel);
  row("atomic_sum", n, pow2(k), t, n, "Gelem/s", ok, check);
  cudaFree(x), cudaFree(total);
  return ok;
}

int main(int argc, char **argv) {
  int n = 100000, steps = 10, sk = 28, tk = 28, ak = 26;
  for (int a = 1; a + 1 < argc; a += 2) {
    std::string o = argv[a];
    const char *v = argv[a + 1];
    if (o == "--label") label = v;
    else if (o == "--n") n = atoi(v);
    else if (o == "--steps") steps = atoi(v);
    else if (o == "--saxpy-log2") sk = atoi(v);
    else if (o == "--transcendental-log2") tk = atoi(v);
    else if (o == "--atomic-log2") ak = atoi(v);
    else {
      fprintf(stderr, "unknown option %s\n", o.c_str());
      return 2;
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  snprintf(gpu_name, sizeof gpu_name, "%s", prop.name);
  CK(cudaFree(0));  // create the context before timing
  bool ok = run_nbody(n, steps);
  ok = run_saxpy(sk) && ok;
  ok = run_transcendental(tk) && ok;
  ok = run_atomic(ak) && ok;
  return ok ? 0 : 1;
}
