// Arithmetic at the edges PTX defines: rounding toward zero, down and up
// (of floats and of doubles);
// saturating integer arithmetic and conversions; floats to 8-, 16- and
// 64-bit integers; shifts of 16-bit and 64-bit values by a register amount,
// clamped as PTX clamps them.

// Thirty results per element: add, sub, mul, fma, div, rcp and sqrt of
// floats, double to float, int and unsigned to float, each rounded toward
// zero, down and up.
__global__ void rounding(const float* a, const float* b, const float* c, const double* d,
                         const int* k, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  double w = d[i];
  int m = k[i];
  float* o = out + 30 * i;
  o[0] = __fadd_rz(x, y);  o[1] = __fadd_rd(x, y);  o[2] = __fadd_ru(x, y);
  o[3] = __fsub_rz(x, y);  o[4] = __fsub_rd(x, y);  o[5] = __fsub_ru(x, y);
  o[6] = __fmul_rz(x, y);  o[7] = __fmul_rd(x, y);  o[8] = __fmul_ru(x, y);
  o[9] = __fmaf_rz(x, y, z);  o[10] = __fmaf_rd(x, y, z);  o[11] = __fmaf_ru(x, y, z);
  o[12] = __fdiv_rz(x, y);  o[13] = __fdiv_rd(x, y);  o[14] = __fdiv_ru(x, y);
  o[15] = __frcp_rz(y);  o[16] = __frcp_rd(y);  o[17] = __frcp_ru(y);
  o[18] = __fsqrt_rz(x);  o[19] = __fsqrt_rd(x);  o[20] = __fsqrt_ru(x);
  o[21] = __double2float_rz(w);  o[22] = __double2float_rd(w);  o[23] = __double2float_ru(w);
  o[24] = __int2float_rz(m);  o[25] = __int2float_rd(m);  o[26] = __int2float_ru(m);
  o[27] = __uint2float_rz((unsigned)m);  o[28] = __uint2float_rd((unsigned)m);
  o[29] = __uint2float_ru((unsigned)m);
}

// Twenty-one results per element: add, sub, mul, fma, div, rcp and sqrt of
// doubles, each rounded toward zero, down and up.
__global__ void rounding_f64(const double* a, const double* b, const double* c, double* out,
                             int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i], z = c[i];
  double* o = out + 21 * i;
  o[0] = __dadd_rz(x, y);  o[1] = __dadd_rd(x, y);  o[2] = __dadd_ru(x, y);
  o[3] = __dsub_rz(x, y);  o[4] = __dsub_rd(x, y);  o[5] = __dsub_ru(x, y);
  o[6] = __dmul_rz(x, y);  o[7] = __dmul_rd(x, y);  o[8] = __dmul_ru(x, y);
  o[9] = __fma_rz(x, y, z);  o[10] = __fma_rd(x, y, z);  o[11] = __fma_ru(x, y, z);
  o[12] = __ddiv_rz(x, y);  o[13] = __ddiv_rd(x, y);  o[14] = __ddiv_ru(x, y);
  o[15] = __drcp_rz(y);  o[16] = __drcp_rd(y);  o[17] = __drcp_ru(y);
  o[18] = __dsqrt_rz(x);  o[19] = __dsqrt_rd(x);  o[20] = __dsqrt_ru(x);
}

// Saturating add and subtract of ints, and saturating narrowing, as PTX
// writes them.
__global__ void saturating(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i], s, t, u;
  short h;
  unsigned short g;
  asm("add.sat.s32 %0, %1, %2;" : "=r"(s) : "r"(x), "r"(y));
  asm("sub.sat.s32 %0, %1, %2;" : "=r"(t) : "r"(x), "r"(y));
  asm("cvt.sat.s16.s32 %0, %1;" : "=h"(h) : "r"(x));
  asm("cvt.sat.u16.s32 %0, %1;" : "=h"(g) : "r"(x));
  asm("cvt.sat.u32.s32 %0, %1;" : "=r"(u) : "r"(x));
  int* o = out + 5 * i;
  o[0] = s;  o[1] = t;  o[2] = h;  o[3] = g;  o[4] = u;
}

// Floats to narrow and wide integers: truncated and saturated.
__global__ void to_ints(const float* a, int* narrow, long long* wide, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  short s, c;
  unsigned short us, uc;
  asm("cvt.rzi.s16.f32 %0, %1;" : "=h"(s) : "f"(x));
  asm("cvt.rzi.u16.f32 %0, %1;" : "=h"(us) : "f"(x));
  asm("cvt.rzi.s8.f32 %0, %1;" : "=h"(c) : "f"(x));
  asm("cvt.rzi.u8.f32 %0, %1;" : "=h"(uc) : "f"(x));
  int* o = narrow + 4 * i;
  o[0] = s;  o[1] = us;  o[2] = c;  o[3] = uc;
  wide[2 * i] = (long long)x;
  wide[2 * i + 1] = __float2ll_rn(x);
}

// Shifts by a register amount: 64-bit values as C writes them (amounts
// below 64), and 16-bit and 64-bit values with amounts past their width,
// which PTX clamps; and 64-bit bit fields.
__global__ void shifts(const unsigned long long* v, const unsigned* by,
                       unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = v[i];
  unsigned s = by[i];
  unsigned long long* o = out + 10 * i;
  o[0] = x << (s & 63);
  o[1] = x >> (s & 63);
  o[2] = (unsigned long long)((long long)x >> (s & 63));
  unsigned long long l, r, q;
  asm("shl.b64 %0, %1, %2;" : "=l"(l) : "l"(x), "r"(s));
  asm("shr.u64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(s));
  asm("shr.s64 %0, %1, %2;" : "=l"(q) : "l"(x), "r"(s));
  o[3] = l;  o[4] = r;  o[5] = q;
  unsigned short h = (unsigned short)x, hl, hr, hs;
  asm("shl.b16 %0, %1, %2;" : "=h"(hl) : "h"(h), "r"(s));
  asm("shr.u16 %0, %1, %2;" : "=h"(hr) : "h"(h), "r"(s));
  asm("shr.s16 %0, %1, %2;" : "=h"(hs) : "h"(h), "r"(s));
  o[6] = (unsigned long long)hl | (unsigned long long)hr << 16 | (unsigned long long)hs << 32;
  // Bit fields of 64-bit values across the boundary between their words.
  unsigned long long e, f, g, a = s;
  asm("bfe.u64 %0, %1, 28, 8;" : "=l"(e) : "l"(x));
  asm("bfe.s64 %0, %1, 30, 12;" : "=l"(f) : "l"(x));
  asm("bfi.b64 %0, %1, %2, 28, 8;" : "=l"(g) : "l"(a), "l"(x));
  o[7] = e;  o[8] = f;  o[9] = g;
}

// 64-bit integers to float: to nearest, as C converts, and toward zero,
// down and up.
__global__ void wide_to_float(const long long* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = x[i];
  unsigned long long u = (unsigned long long)v;
  float* o = out + 8 * i;
  o[0] = (float)v;  o[1] = __ll2float_rz(v);  o[2] = __ll2float_rd(v);  o[3] = __ll2float_ru(v);
  o[4] = (float)u;  o[5] = __ull2float_rz(u);  o[6] = __ull2float_rd(u);  o[7] = __ull2float_ru(u);
}

// The same integers to doubles, rounded to nearest, toward zero, down and up.
__global__ void wide_to_double(const long long* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = x[i];
  unsigned long long u = (unsigned long long)v;
  double* o = out + 8 * i;
  o[0] = (double)v;  o[1] = __ll2double_rz(v);  o[2] = __ll2double_rd(v);  o[3] = __ll2double_ru(v);
  o[4] = (double)u;  o[5] = __ull2double_rz(u);  o[6] = __ull2double_rd(u);  o[7] = __ull2double_ru(u);
}

// Conversions to half precision (f16 and bf16) from floats, doubles and
// 32- and 64-bit integers, to nearest, toward zero, down and up; doubles
// rounded to integral values, and to integers the same ways.
#define HALVES(o, kind, src, x)                                               \
  asm("cvt.rn.f16." kind " %0, %1;" : "=h"(o[0]) : src(x));                   \
  asm("cvt.rz.f16." kind " %0, %1;" : "=h"(o[1]) : src(x));                   \
  asm("cvt.rm.f16." kind " %0, %1;" : "=h"(o[2]) : src(x));                   \
  asm("cvt.rp.f16." kind " %0, %1;" : "=h"(o[3]) : src(x));                   \
  asm("cvt.rn.bf16." kind " %0, %1;" : "=h"(o[4]) : src(x));                  \
  asm("cvt.rz.bf16." kind " %0, %1;" : "=h"(o[5]) : src(x));                  \
  asm("cvt.rm.bf16." kind " %0, %1;" : "=h"(o[6]) : src(x));                  \
  asm("cvt.rp.bf16." kind " %0, %1;" : "=h"(o[7]) : src(x));
__global__ void to_half(const float* f, const double* d, const long long* w, unsigned short* out,
                        double* whole, long long* ints, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  double y = d[i];
  long long v = w[i];
  int s = (int)v;
  unsigned long long u = (unsigned long long)v;
  unsigned short* o = out + 44 * i;
  HALVES(o, "f32", "f", x)
  HALVES((o + 8), "f64", "d", y)
  HALVES((o + 16), "s64", "l", v)
  HALVES((o + 24), "s32", "r", s)
  HALVES((o + 34), "u64", "l", u)
  // A subnormal float flushed first; a half rounded to an integral half.
  asm("cvt.rp.ftz.f16.f32 %0, %1;" : "=h"(o[42]) : "f"(x));
  asm("cvt.rni.f16.f16 %0, %1;" : "=h"(o[43]) : "h"(o[0]));
  // Clamped to [0, 1], and a half back to a double (exactly).
  asm("cvt.rn.sat.f16.f32 %0, %1;" : "=h"(o[32]) : "f"(x));
  double back;
  asm("cvt.f64.f16 %0, %1;" : "=d"(back) : "h"(o[0]));
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(o[33]) : "d"(back));
  double* r = whole + 4 * i;
  r[0] = rint(y);  r[1] = trunc(y);  r[2] = floor(y);  r[3] = ceil(y);
  long long* k = ints + 3 * i;
  k[0] = __double2int_rn(y);  k[1] = __double2ll_rd(y);  k[2] = __double2uint_ru(y);
}
