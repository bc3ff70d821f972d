// Kernel `inverse_trig` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 128 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 3))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[8];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer a : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer b : register(u1);
[[vk::binding(3, 0)]] RWByteAddressBuffer out_ : register(u2);

bool weft_isnan32(float x) { return (asuint(x) & 0x7fffffffu) > 0x7f800000u; }

bool weft_isinf32(float x) { return (asuint(x) & 0x7fffffffu) == 0x7f800000u; }

float weft_copysign32(float a, float b) { return asfloat((asuint(a) & 0x7fffffffu) | (asuint(b) & 0x80000000u)); }

// min/max ignore a NaN operand (IEEE minNum/maxNum).
float weft_fmin32(float a, float b) { return weft_isnan32(a) ? b : (weft_isnan32(b) ? a : (b < a ? b : a)); }
float weft_fmax32(float a, float b) { return weft_isnan32(a) ? b : (weft_isnan32(b) ? a : (b > a ? b : a)); }

// atan2 under `afn`: the intrinsic, with the NaN, zero and infinity cases
// kept exact (GLSL leaves atan(0, 0) undefined; lavapipe gives 3pi/4).
float weft_atan2_32_afn(float y, float x)
{
    if (weft_isnan32(x) || weft_isnan32(y))
        return x + y;
    bool xneg = (asuint(x) & 0x80000000u) != 0u;
    if (y == 0.0)
        return xneg ? weft_copysign32(3.14159265358979, y) : y;
    if (x == 0.0)
        return weft_copysign32(1.5707963267948966, y);
    if (weft_isinf32(x))
    {
        if (weft_isinf32(y))
            return weft_copysign32(xneg ? 2.356194490192345 : 0.7853981633974483, y);
        return weft_copysign32(xneg ? 3.14159265358979 : 0.0, y);
    }
    if (weft_isinf32(y))
        return weft_copysign32(1.5707963267948966, y);
    return atan2(y, x);
}

// asin/acos under `afn`: the intrinsics, NaN outside [-1, 1] (where GLSL
// leaves them undefined). The range test is on the bits, which no float
// optimisation of non-precise code may change.
float weft_asin32_afn(float x) { return (asuint(x) & 0x7fffffffu) <= 0x3f800000u ? asin(x) : asfloat(0x7fc00000u); }
float weft_acos32_afn(float x) { return (asuint(x) & 0x7fffffffu) <= 0x3f800000u ? acos(x) : asfloat(0x7fc00000u); }

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

[numthreads(64, 1, 1)]
void main(uint3 weft_id : SV_DispatchThreadID)
{
    float weft_zero32_ = asfloat(weft_cb[1].z);
    uint weft_tid = weft_cb[1].y + weft_id.x;
    if (weft_tid >= weft_cb[1].x)
        return;
    int4 weft_dim = asint(weft_cb[0]);
    uint4 a_strides = weft_cb[3];
    uint4 b_strides = weft_cb[5];
    uint4 out_strides = weft_cb[7];
#line 6 "kernel.py"
    int t3 = (int)weft_tid;
    int t4 = weft_dim.y;
    int t5 = weft_dim.z;
    int t6 = (t4 * t5);
    int t7 = weft_dim.w;
    int t8 = (t6 * t7);
    bool t10 = (t8 == 1);
    int i;
    if (t10)
    {
        i = t3;
    }
    else
    {
        int t12 = weft_div_i32(t3, t8);
        i = t12;
    }
#line 7 "kernel.py"
    float x = asfloat(a.Load((uint)i * a_strides.x));
#line 8 "kernel.py"
    float y = asfloat(b.Load((uint)i * b_strides.x));
#line 9 "kernel.py"
    float t16 = (x * 0.25);
    float t20 = weft_fmax32((-1.0), t16);
    float u = weft_fmin32(t20, 1.0);
#line 10 "kernel.py"
    float t24 = weft_fmax32(u, (-1.0));
    float t25 = weft_fmin32(t24, 1.0);
    float t26 = weft_asin32_afn(t25);
    out_.Store((uint)i * out_strides.x + (uint)0 * out_strides.y, (asuint(t26) | asuint(weft_zero32_)));
#line 11 "kernel.py"
    float t32 = weft_acos32_afn(t25);
    out_.Store((uint)i * out_strides.x + (uint)1 * out_strides.y, (asuint(t32) | asuint(weft_zero32_)));
#line 12 "kernel.py"
    float t34 = atan(x);
    out_.Store((uint)i * out_strides.x + (uint)2 * out_strides.y, (asuint(t34) | asuint(weft_zero32_)));
#line 13 "kernel.py"
    float t36 = weft_atan2_32_afn(y, x);
    out_.Store((uint)i * out_strides.x + (uint)3 * out_strides.y, (asuint(t36) | asuint(weft_zero32_)));
#line 14 "kernel.py"
    float t38 = weft_atan2_32_afn(x, y);
    out_.Store((uint)i * out_strides.x + (uint)4 * out_strides.y, (asuint(t38) | asuint(weft_zero32_)));
}
