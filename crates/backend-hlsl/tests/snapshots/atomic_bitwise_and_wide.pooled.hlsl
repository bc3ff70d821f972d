// Kernel `atomic_bits` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 320 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 2))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[20];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer weft_pool_ : register(u0); // every array, each at its base
[[vk::binding(2, 0)]] RWByteAddressBuffer weft_locks_ : register(u1); // lock table of 64-bit atomics

// The bits of a double: x = low word, y = high word.
uint2 weft_bits64(double x)
{
#ifdef WEFT_GLSLANG
    // glslang's asuint(double) converts to float first: compute the bits.
    if (!(x == x))
        return uint2(0u, 0x7ff80000u);
    uint sign = (x < 0.0L || (x == 0.0L && 1.0L / x < 0.0L)) ? 0x80000000u : 0u;
    double a = abs(x);
    if (a == 0.0L)
        return uint2(0u, sign);
    if (a > 1.7976931348623157e308L)
        return uint2(0u, sign | 0x7ff00000u);
    if (a < 2.2250738585072014e-308L)
    {
        // Subnormal: the bits are a / 2^-1074.
        double m = a * 4.4989137945431964e161L * 4.4989137945431964e161L;
        uint mh = (uint)(m * 2.3283064365386962890625e-10L);
        return uint2((uint)(m - (double)mh * 4294967296.0L), sign | mh);
    }
    // Scale into [1, 2) by powers 2^512, 2^256, ..., 2 (exact), written
    // out with literal powers of two: lavapipe miscomputed the loop form
    // (asdouble of the loop counter) in kernels with other loops.
    int e = 0;
    if (a >= 1.3407807929942597e+154L) { a *= 7.458340731200207e-155L; e += 512; }
    if (a >= 1.157920892373162e+77L) { a *= 8.636168555094445e-78L; e += 256; }
    if (a >= 3.402823669209385e+38L) { a *= 2.938735877055719e-39L; e += 128; }
    if (a >= 1.8446744073709552e+19L) { a *= 5.421010862427522e-20L; e += 64; }
    if (a >= 4294967296.0L) { a *= 2.3283064365386963e-10L; e += 32; }
    if (a >= 65536.0L) { a *= 1.52587890625e-05L; e += 16; }
    if (a >= 256.0L) { a *= 0.00390625L; e += 8; }
    if (a >= 16.0L) { a *= 0.0625L; e += 4; }
    if (a >= 4.0L) { a *= 0.25L; e += 2; }
    if (a >= 2.0L) { a *= 0.5L; e += 1; }
    if (a < 1.4916681462400413e-154L) { a *= 1.3407807929942597e+154L; e -= 512; }
    if (a < 1.727233711018889e-77L) { a *= 1.157920892373162e+77L; e -= 256; }
    if (a < 5.877471754111438e-39L) { a *= 3.402823669209385e+38L; e -= 128; }
    if (a < 1.0842021724855044e-19L) { a *= 1.8446744073709552e+19L; e -= 64; }
    if (a < 4.656612873077393e-10L) { a *= 4294967296.0L; e -= 32; }
    if (a < 3.0517578125e-05L) { a *= 65536.0L; e -= 16; }
    if (a < 0.0078125L) { a *= 256.0L; e -= 8; }
    if (a < 0.125L) { a *= 16.0L; e -= 4; }
    if (a < 0.5L) { a *= 4.0L; e -= 2; }
    if (a < 1.0L) { a *= 2.0L; e -= 1; }
    double f = (a - 1.0L) * 4503599627370496.0L;
    uint hi = (uint)(f * 2.3283064365386962890625e-10L);
    return uint2((uint)(f - (double)hi * 4294967296.0L), sign | ((uint)(e + 1023) << 20) | hi);
#else
    uint lo, hi;
    asuint(x, lo, hi);
    return uint2(lo, hi);
#endif
}

// Integer division truncates; x / 0 = 0 and INT_MIN / -1 wraps.
int weft_div_i32(int a, int b)
{
    if (b == 0)
        return 0;
    if (b == -1)
        return (int)(0u - (uint)a);
    return a / b;
}
int weft_rem_i32(int a, int b)
{
    if (b == 0 || b == -1)
        return 0;
    return a - (a / b) * b;
}
uint weft_div_u32(uint a, uint b)
{
    if (b == 0u)
        return 0u;
    return a / b;
}
uint weft_rem_u32(uint a, uint b)
{
    if (b == 0u)
        return 0u;
    return a - (a / b) * b;
}

// 64-bit integers as uint2 (x = low word, y = high word), wrapping.
uint2 weft_i64_add(uint2 a, uint2 b)
{
    uint lo = a.x + b.x;
    return uint2(lo, a.y + b.y + (lo < a.x ? 1u : 0u));
}
uint2 weft_i64_sub(uint2 a, uint2 b) { return uint2(a.x - b.x, a.y - b.y - (a.x < b.x ? 1u : 0u)); }
uint2 weft_i64_neg(uint2 a) { return weft_i64_sub(uint2(0u, 0u), a); }
uint2 weft_mul32_wide(uint a, uint b)
{
    uint a0 = a & 0xffffu, a1 = a >> 16, b0 = b & 0xffffu, b1 = b >> 16;
    uint p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint mid = (p00 >> 16) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return uint2((p00 & 0xffffu) | (mid << 16), p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16));
}
uint2 weft_i64_mul(uint2 a, uint2 b)
{
    uint2 p = weft_mul32_wide(a.x, b.x);
    return uint2(p.x, p.y + a.x * b.y + a.y * b.x);
}
uint2 weft_i64_shl(uint2 a, uint n)
{
    n &= 63u;
    if (n == 0u)
        return a;
    if (n >= 32u)
        return uint2(0u, a.x << (n - 32u));
    return uint2(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}
uint2 weft_u64_shr(uint2 a, uint n)
{
    n &= 63u;
    if (n == 0u)
        return a;
    if (n >= 32u)
        return uint2(a.y >> (n - 32u), 0u);
    return uint2((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}
uint2 weft_i64_shr(uint2 a, uint n)
{
    n &= 63u;
    if (n == 0u)
        return a;
    uint sign = (uint)((int)a.y >> 31);
    if (n >= 32u)
        return uint2((uint)((int)a.y >> (n - 32u)), sign);
    return uint2((a.x >> n) | (a.y << (32u - n)), (uint)((int)a.y >> n));
}
bool weft_i64_eq(uint2 a, uint2 b) { return a.x == b.x && a.y == b.y; }
bool weft_u64_lt(uint2 a, uint2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool weft_i64_lt(uint2 a, uint2 b) { return (int)a.y < (int)b.y || (a.y == b.y && a.x < b.x); }
uint2 weft_i64_min(uint2 a, uint2 b) { return weft_i64_lt(b, a) ? b : a; }
uint2 weft_i64_max(uint2 a, uint2 b) { return weft_i64_lt(a, b) ? b : a; }
uint2 weft_u64_min(uint2 a, uint2 b) { return weft_u64_lt(b, a) ? b : a; }
uint2 weft_u64_max(uint2 a, uint2 b) { return weft_u64_lt(a, b) ? b : a; }
uint2 weft_i64_abs(uint2 a) { return (int)a.y < 0 ? weft_i64_neg(a) : a; }
uint2 weft_i64_popcount(uint2 a) { return uint2(countbits(a.x) + countbits(a.y), 0u); }
// Unsigned long division; d != 0.
uint2 weft_u64_divrem(uint2 n, uint2 d, out uint2 rem)
{
    uint2 q = uint2(0u, 0u);
    uint2 r = uint2(0u, 0u);
    [loop] for (int i = 63; i >= 0; --i)
    {
        r = weft_i64_shl(r, 1u);
        r.x |= (i >= 32 ? (n.y >> (uint)(i - 32)) : (n.x >> (uint)i)) & 1u;
        if (!weft_u64_lt(r, d))
        {
            r = weft_i64_sub(r, d);
            if (i >= 32)
                q.y |= 1u << (uint)(i - 32);
            else
                q.x |= 1u << (uint)i;
        }
    }
    rem = r;
    return q;
}
uint2 weft_u64_div(uint2 a, uint2 b)
{
    uint2 r;
    return (b.x | b.y) == 0u ? uint2(0u, 0u) : weft_u64_divrem(a, b, r);
}
uint2 weft_u64_rem(uint2 a, uint2 b)
{
    uint2 r = uint2(0u, 0u);
    if ((b.x | b.y) != 0u)
        weft_u64_divrem(a, b, r);
    return r;
}
uint2 weft_i64_div(uint2 a, uint2 b)
{
    if ((b.x | b.y) == 0u)
        return uint2(0u, 0u);
    uint2 r;
    uint2 q = weft_u64_divrem(weft_i64_abs(a), weft_i64_abs(b), r);
    return ((a.y ^ b.y) & 0x80000000u) != 0u ? weft_i64_neg(q) : q;
}
uint2 weft_i64_rem(uint2 a, uint2 b)
{
    if ((b.x | b.y) == 0u)
        return uint2(0u, 0u);
    uint2 r;
    weft_u64_divrem(weft_i64_abs(a), weft_i64_abs(b), r);
    return (int)a.y < 0 ? weft_i64_neg(r) : r;
}

double weft_load_f64(RWByteAddressBuffer buf, uint off)
{
    uint2 w = buf.Load2(off);
    return asdouble(w.x, w.y);
}

[numthreads(64, 1, 1)]
void main(uint3 weft_id : SV_DispatchThreadID)
{
    uint weft_tid = weft_cb[1].y + weft_id.x;
    if (weft_tid >= weft_cb[1].x)
        return;
    int4 weft_dim = asint(weft_cb[0]);
    uint4 k_strides = weft_cb[3];
    uint k_base = weft_cb[18].x;
    uint4 x_strides = weft_cb[5];
    uint x_base = weft_cb[18].y;
    uint4 masks_strides = weft_cb[7];
    uint masks_base = weft_cb[18].z;
    uint4 any_bits_shape = weft_cb[8];
    uint4 any_bits_strides = weft_cb[9];
    uint any_bits_base = weft_cb[18].w;
    uint4 all_bits_shape = weft_cb[10];
    uint4 all_bits_strides = weft_cb[11];
    uint all_bits_base = weft_cb[19].x;
    uint4 parity_shape = weft_cb[12];
    uint4 parity_strides = weft_cb[13];
    uint parity_base = weft_cb[19].y;
    uint4 big_shape = weft_cb[14];
    uint4 big_strides = weft_cb[15];
    uint big_base = weft_cb[19].z;
    uint4 dsum_shape = weft_cb[16];
    uint4 dsum_strides = weft_cb[17];
    uint dsum_base = weft_cb[19].w;
#line 8 "kernel.py"
    int t8 = (int)weft_tid;
    int t9 = weft_dim.y;
    int t10 = weft_dim.z;
    int t11 = (t9 * t10);
    int t12 = weft_dim.w;
    int t13 = (t11 * t12);
    bool t15 = (t13 == 1);
    int i;
    if (t15)
    {
        i = t8;
    }
    else
    {
        int t17 = weft_div_i32(t8, t13);
        i = t17;
    }
#line 9 "kernel.py"
    int b = asint(weft_pool_.Load(k_base + (uint)i * k_strides.x));
#line 10 "kernel.py"
    uint m = weft_pool_.Load(masks_base + (uint)i * masks_strides.x);
#line 11 "kernel.py"
    bool t21 = (b < 0);
    int t22 = (int)any_bits_shape.x;
    int t23 = (b + t22);
    int t24 = (t21 ? t23 : b);
    uint t25;
    uint weft_old_;
    weft_pool_.InterlockedOr(any_bits_base + (uint)t24 * any_bits_strides.x, asuint(m), weft_old_);
    t25 = weft_old_;
#line 12 "kernel.py"
    int t28 = (int)all_bits_shape.x;
    int t29 = (b + t28);
    int t30 = (t21 ? t29 : b);
    uint t31;
    uint weft_old__1;
    weft_pool_.InterlockedAnd(all_bits_base + (uint)t30 * all_bits_strides.x, asuint(m), weft_old__1);
    t31 = weft_old__1;
#line 13 "kernel.py"
    int t34 = (int)parity_shape.x;
    int t35 = (b + t34);
    int t36 = (t21 ? t35 : b);
    uint t37;
    uint weft_old__2;
    weft_pool_.InterlockedXor(parity_base + (uint)t36 * parity_strides.x, asuint(m), weft_old__2);
    t37 = weft_old__2;
#line 14 "kernel.py"
    uint2 t38 = uint2(m, 0u);
    uint2 t40 = weft_i64_mul(t38, uint2(1000003u, 0u));
    int t43 = (int)big_shape.x;
    int t44 = (b + t43);
    int t45 = (t21 ? t44 : b);
    uint2 t46;
    uint weft_lock_ = (((big_base + (uint)t45 * big_strides.x) >> 3u) & 4095u) * 4u;
    uint weft_got_;
    weft_locks_.InterlockedAdd(weft_lock_ + 16384u, 1u, weft_got_);
    bool weft_done_ = false;
    [loop] for (; !weft_done_;)
    {
        weft_locks_.InterlockedCompareExchange(weft_lock_, 0u, 1u, weft_got_);
        if (weft_got_ == 0u)
        {
            uint weft_at_ = big_base + (uint)t45 * big_strides.x;
            uint weft_lo_, weft_hi_;
            weft_pool_.InterlockedOr(weft_at_, 0u, weft_lo_);
            weft_pool_.InterlockedOr(weft_at_ + 4u, 0u, weft_hi_);
            t46 = uint2(weft_lo_, weft_hi_);
            uint2 weft_new_ = weft_i64_add(t46, t40);
            weft_pool_.InterlockedExchange(weft_at_, weft_new_.x, weft_lo_);
            weft_pool_.InterlockedExchange(weft_at_ + 4u, weft_new_.y, weft_hi_);
            weft_locks_.InterlockedAdd(weft_lock_ + 16384u, 0xffffffffu, weft_got_);
            weft_locks_.InterlockedExchange(weft_lock_, weft_cb[1].z & (weft_lo_ | weft_hi_), weft_got_);
            weft_done_ = true;
        }
        else
        {
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
            weft_locks_.InterlockedOr(weft_lock_, 0u, weft_got_);
        }
    }
#line 15 "kernel.py"
    precise double t47 = weft_load_f64(weft_pool_, x_base + (uint)i * x_strides.x);
    int t50 = (int)dsum_shape.x;
    int t51 = (b + t50);
    int t52 = (t21 ? t51 : b);
    double t53;
    uint weft_lock__1 = (((dsum_base + (uint)t52 * dsum_strides.x) >> 3u) & 4095u) * 4u;
    uint weft_got__1;
    weft_locks_.InterlockedAdd(weft_lock__1 + 16384u, 1u, weft_got__1);
    bool weft_done__1 = false;
    [loop] for (; !weft_done__1;)
    {
        weft_locks_.InterlockedCompareExchange(weft_lock__1, 0u, 1u, weft_got__1);
        if (weft_got__1 == 0u)
        {
            uint weft_at__1 = dsum_base + (uint)t52 * dsum_strides.x;
            uint weft_lo__1, weft_hi__1;
            weft_pool_.InterlockedOr(weft_at__1, 0u, weft_lo__1);
            weft_pool_.InterlockedOr(weft_at__1 + 4u, 0u, weft_hi__1);
            t53 = asdouble(weft_lo__1, weft_hi__1);
            uint2 weft_new__1 = weft_bits64((t53 + t47));
            weft_pool_.InterlockedExchange(weft_at__1, weft_new__1.x, weft_lo__1);
            weft_pool_.InterlockedExchange(weft_at__1 + 4u, weft_new__1.y, weft_hi__1);
            weft_locks_.InterlockedAdd(weft_lock__1 + 16384u, 0xffffffffu, weft_got__1);
            weft_locks_.InterlockedExchange(weft_lock__1, weft_cb[1].z & (weft_lo__1 | weft_hi__1), weft_got__1);
            weft_done__1 = true;
        }
        else
        {
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
            weft_locks_.InterlockedOr(weft_lock__1, 0u, weft_got__1);
        }
    }
}
