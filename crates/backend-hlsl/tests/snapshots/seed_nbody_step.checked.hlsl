// Kernel `nbody_step` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 208 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 6))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[13];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer pos : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer vel : register(u1);
[[vk::binding(3, 0)]] RWByteAddressBuffer mass : register(u2);
[[vk::binding(4, 0)]] RWByteAddressBuffer new_pos : register(u3);
[[vk::binding(5, 0)]] RWByteAddressBuffer new_vel : register(u4);
[[vk::binding(6, 0)]] RWByteAddressBuffer weft_trap_ : register(u5); // trap record (bounds-checked mode)

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

[numthreads(64, 1, 1)]
void main(uint3 weft_id : SV_DispatchThreadID)
{
    float weft_zero32_ = asfloat(weft_cb[1].z);
    bool weft_on0_ = ((weft_cb[1].z >> 0u) == 0u);
    uint weft_tid = weft_cb[1].y + weft_id.x;
    if (weft_tid >= weft_cb[1].x)
        return;
    int4 weft_dim = asint(weft_cb[0]);
    uint4 pos_shape = weft_cb[2];
    uint4 pos_strides = weft_cb[3];
    uint4 vel_shape = weft_cb[4];
    uint4 vel_strides = weft_cb[5];
    uint4 mass_shape = weft_cb[6];
    uint4 mass_strides = weft_cb[7];
    uint4 new_pos_shape = weft_cb[8];
    uint4 new_pos_strides = weft_cb[9];
    uint4 new_vel_shape = weft_cb[10];
    uint4 new_vel_strides = weft_cb[11];
    int n = asint(weft_cb[12].x);
    precise float dt = asfloat(weft_cb[12].y);
    precise float grav = asfloat(weft_cb[12].z);
    precise float eps2 = asfloat(weft_cb[12].w);
#line 16 "kernel.py"
    int t9 = (int)weft_tid;
    int t10 = weft_dim.y;
    int t11 = weft_dim.z;
    int t12 = (t10 * t11);
    int t13 = weft_dim.w;
    int t14 = (t12 * t13);
    bool t16 = (t14 == 1);
    int i;
    if (t16)
    {
        i = t9;
    }
    else
    {
        bool t148 = (t14 != 0);
        if (!t148)
        {
            uint weft_trap_prev_;
            weft_trap_.InterlockedCompareExchange(0u, 0u, 1u, weft_trap_prev_);
            if (weft_trap_prev_ == 0u)
            {
                weft_trap_.Store4(4u, uint4(256u, 0u, 16u, 9u));
                weft_trap_.Store(20u, weft_tid);
                weft_trap_.Store4(24u, uint4(uint2(0u, 0u), uint2(0u, 0u)));
            }
            return;
        }
        int t18 = weft_div_i32(t9, t14);
        i = t18;
    }
#line 17 "kernel.py"
    uint2 t123 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
    int t124 = (int)pos_shape.x;
    uint2 t125 = uint2((uint)t124, t124 < 0 ? 0xffffffffu : 0u);
    bool t126 = weft_u64_lt(t123, t125);
    if (!t126)
    {
        uint2 t127 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
        uint2 t128 = uint2((uint)t124, t124 < 0 ? 0xffffffffu : 0u);
        uint weft_trap_prev__1;
        weft_trap_.InterlockedCompareExchange(0u, 0u, 1u, weft_trap_prev__1);
        if (weft_trap_prev__1 == 0u)
        {
            weft_trap_.Store4(4u, uint4(0u, 0u, 17u, 9u));
            weft_trap_.Store(20u, weft_tid);
            weft_trap_.Store4(24u, uint4(t127, t128));
        }
        return;
    }
    precise float3 p = asfloat(pos.Load3((uint)i * pos_strides.x));
#line 18 "kernel.py"
    precise float3 acc = float3(weft_zero32_, weft_zero32_, weft_zero32_);
#line 19 "kernel.py"
    int j = 0;
    precise float3 acc_1 = acc;
    float3 acc_2 = (float3)0;
    [loop] for (; weft_on0_;)
    {
        bool t31 = (j < n);
        int t32 = (j + 1);
        if (!t31)
        {
            acc_2 = acc_1;
            break;
        }
#line 20 "kernel.py"
        uint2 t149 = uint2((uint)j, j < 0 ? 0xffffffffu : 0u);
        int t150 = (int)pos_shape.x;
        uint2 t151 = uint2((uint)t150, t150 < 0 ? 0xffffffffu : 0u);
        bool t152 = weft_u64_lt(t149, t151);
        if (!t152)
        {
            uint2 t153 = uint2((uint)j, j < 0 ? 0xffffffffu : 0u);
            uint2 t154 = uint2((uint)t150, t150 < 0 ? 0xffffffffu : 0u);
            uint weft_trap_prev__2;
            weft_trap_.InterlockedCompareExchange(0u, 0u, 1u, weft_trap_prev__2);
            if (weft_trap_prev__2 == 0u)
            {
                weft_trap_.Store4(4u, uint4(0u, 0u, 20u, 13u));
                weft_trap_.Store(20u, weft_tid);
                weft_trap_.Store4(24u, uint4(t153, t154));
            }
            return;
        }
        precise float3 t33 = asfloat(pos.Load3((uint)j * pos_strides.x));
        precise float t40 = (t33.x - p.x);
        precise float t41 = (t33.y - p.y);
        precise float t42 = (t33.z - p.z);
#line 670 "<prelude>"
        precise float t110 = (t40 * t40);
        precise float t115 = (t41 * t41);
        precise float t116 = (t110 + t115);
        precise float t121 = (t42 * t42);
        precise float t122 = (t116 + t121);
#line 21 "kernel.py"
        precise float r2 = (t122 + eps2);
#line 22 "kernel.py"
        precise float t47 = sqrt(r2);
        precise float inv_r = (1.0 / t47);
#line 23 "kernel.py"
        uint2 t155 = uint2((uint)j, j < 0 ? 0xffffffffu : 0u);
        int t156 = (int)mass_shape.x;
        uint2 t157 = uint2((uint)t156, t156 < 0 ? 0xffffffffu : 0u);
        bool t158 = weft_u64_lt(t155, t157);
        if (!t158)
        {
            uint2 t159 = uint2((uint)j, j < 0 ? 0xffffffffu : 0u);
            uint2 t160 = uint2((uint)t156, t156 < 0 ? 0xffffffffu : 0u);
            uint weft_trap_prev__3;
            weft_trap_.InterlockedCompareExchange(0u, 0u, 1u, weft_trap_prev__3);
            if (weft_trap_prev__3 == 0u)
            {
                weft_trap_.Store4(4u, uint4(0u, 0u, 23u, 33u));
                weft_trap_.Store(20u, weft_tid);
                weft_trap_.Store4(24u, uint4(t159, t160));
            }
            return;
        }
        precise float t49 = asfloat(mass.Load((uint)j * mass_strides.x));
        precise float t50 = (grav * t49);
        precise float t51 = (t50 * inv_r);
        precise float t52 = (t51 * inv_r);
        precise float t53 = (t52 * inv_r);
        precise float t57 = (t40 * t53);
        precise float t58 = (t41 * t53);
        precise float t59 = (t42 * t53);
        precise float t67 = (acc_1.x + t57);
        precise float t68 = (acc_1.y + t58);
        precise float t69 = (acc_1.z + t59);
        precise float3 acc_3 = float3(t67, t68, t69);
        j = t32;
        acc_1 = acc_3;
    }
#line 24 "kernel.py"
    uint2 t129 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
    int t130 = (int)vel_shape.x;
    uint2 t131 = uint2((uint)t130, t130 < 0 ? 0xffffffffu : 0u);
    bool t132 = weft_u64_lt(t129, t131);
    if (!t132)
    {
        uint2 t133 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
        uint2 t134 = uint2((uint)t130, t130 < 0 ? 0xffffffffu : 0u);
        uint weft_trap_prev__4;
        weft_trap_.InterlockedCompareExchange(0u, 0u, 1u, weft_trap_prev__4);
        if (weft_trap_prev__4 == 0u)
        {
            weft_trap_.Store4(4u, uint4(0u, 0u, 24u, 9u));
            weft_trap_.Store(20u, weft_tid);
            weft_trap_.Store4(24u, uint4(t133, t134));
        }
        return;
    }
    precise float3 t71 = asfloat(vel.Load3((uint)i * vel_strides.x));
    precise float t75 = (acc_2.x * dt);
    precise float t76 = (acc_2.y * dt);
    precise float t77 = (acc_2.z * dt);
    precise float t85 = (t71.x + t75);
    precise float t86 = (t71.y + t76);
    precise float t87 = (t71.z + t77);
    precise float3 v = float3(t85, t86, t87);
#line 25 "kernel.py"
    uint2 t135 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
    int t136 = (int)new_vel_shape.x;
    uint2 t137 = uint2((uint)t136, t136 < 0 ? 0xffffffffu : 0u);
    bool t138 = weft_u64_lt(t135, t137);
    if (!t138)
    {
        uint2 t139 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
        uint2 t140 = uint2((uint)t136, t136 < 0 ? 0xffffffffu : 0u);
        uint weft_trap_prev__5;
        weft_trap_.InterlockedCompareExchange(0u, 0u, 1u, weft_trap_prev__5);
        if (weft_trap_prev__5 == 0u)
        {
            weft_trap_.Store4(4u, uint4(0u, 0u, 25u, 5u));
            weft_trap_.Store(20u, weft_tid);
            weft_trap_.Store4(24u, uint4(t139, t140));
        }
        return;
    }
    new_vel.Store3((uint)i * new_vel_strides.x, (asuint(v) | asuint(weft_zero32_)));
#line 26 "kernel.py"
    precise float t92 = (t85 * dt);
    precise float t93 = (t86 * dt);
    precise float t94 = (t87 * dt);
    precise float t102 = (p.x + t92);
    precise float t103 = (p.y + t93);
    precise float t104 = (p.z + t94);
    precise float3 t105 = float3(t102, t103, t104);
    uint2 t141 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
    int t142 = (int)new_pos_shape.x;
    uint2 t143 = uint2((uint)t142, t142 < 0 ? 0xffffffffu : 0u);
    bool t144 = weft_u64_lt(t141, t143);
    if (!t144)
    {
        uint2 t145 = uint2((uint)i, i < 0 ? 0xffffffffu : 0u);
        uint2 t146 = uint2((uint)t142, t142 < 0 ? 0xffffffffu : 0u);
        uint weft_trap_prev__6;
        weft_trap_.InterlockedCompareExchange(0u, 0u, 1u, weft_trap_prev__6);
        if (weft_trap_prev__6 == 0u)
        {
            weft_trap_.Store4(4u, uint4(0u, 0u, 26u, 5u));
            weft_trap_.Store(20u, weft_tid);
            weft_trap_.Store4(24u, uint4(t145, t146));
        }
        return;
    }
    new_pos.Store3((uint)i * new_pos_strides.x, (asuint(t105) | asuint(weft_zero32_)));
}
