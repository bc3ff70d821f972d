// Kernel `exp_log` (kernel.py:5) compiled by weft-backend-hlsl.
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

bool weft_isfinite32(float x) { return (asuint(x) & 0x7fffffffu) < 0x7f800000u; }

float weft_copysign32(float a, float b) { return asfloat((asuint(a) & 0x7fffffffu) | (asuint(b) & 0x80000000u)); }

float weft_cbrt32(float x)
{
    if (x == 0.0 || !weft_isfinite32(x))
        return x;
    float a = abs(x);
    float y = exp2(log2(a) * (1.0 / 3.0));
    y = y - (y - a / (y * y)) * (1.0 / 3.0);
    return weft_copysign32(y, x);
}

// C pow: negative bases with integral exponents, zeros and infinities.
float weft_pow32(float a, float b)
{
    if (b == 0.0 || a == 1.0)
        return 1.0;
    if (weft_isnan32(a) || weft_isnan32(b))
        return asfloat(0x7fc00000u);
    if (weft_isinf32(b))
        return abs(a) == 1.0 ? 1.0 : (abs(a) < 1.0 == b > 0.0 ? 0.0 : asfloat(0x7f800000u));
    bool integral = trunc(b) == b;
    bool odd = integral && frac(abs(b) * 0.5) != 0.0;
    if (a == 0.0)
        return b < 0.0 ? (odd ? weft_copysign32(asfloat(0x7f800000u), a) : asfloat(0x7f800000u))
                       : (odd ? a : 0.0);
    // An infinite base before the negative one: pow(-inf, 2.5) is +inf.
    if (a < 0.0 && !integral && !weft_isinf32(a))
        return asfloat(0x7fc00000u);
    float r = weft_isinf32(a) ? (b > 0.0 ? asfloat(0x7f800000u) : 0.0) : pow(abs(a), b);
    return (a < 0.0 && odd) ? -r : r;
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
    float t15 = exp(y);
    out_.Store((uint)i * out_strides.x + (uint)0 * out_strides.y, (asuint(t15) | asuint(weft_zero32_)));
#line 10 "kernel.py"
    float t17 = log(x);
    out_.Store((uint)i * out_strides.x + (uint)1 * out_strides.y, (asuint(t17) | asuint(weft_zero32_)));
#line 11 "kernel.py"
    float t19 = log2(x);
    out_.Store((uint)i * out_strides.x + (uint)2 * out_strides.y, (asuint(t19) | asuint(weft_zero32_)));
#line 12 "kernel.py"
    float t21 = log10(x);
    out_.Store((uint)i * out_strides.x + (uint)3 * out_strides.y, (asuint(t21) | asuint(weft_zero32_)));
#line 13 "kernel.py"
    float t23 = weft_pow32(x, y);
    out_.Store((uint)i * out_strides.x + (uint)4 * out_strides.y, (asuint(t23) | asuint(weft_zero32_)));
#line 14 "kernel.py"
    float t25 = sqrt(x);
    out_.Store((uint)i * out_strides.x + (uint)5 * out_strides.y, (asuint(t25) | asuint(weft_zero32_)));
#line 15 "kernel.py"
    float t28 = (y * 10.0);
    float t29 = weft_cbrt32(t28);
    out_.Store((uint)i * out_strides.x + (uint)6 * out_strides.y, (asuint(t29) | asuint(weft_zero32_)));
#line 16 "kernel.py"
    float t32 = weft_pow32(x, 0.5);
    out_.Store((uint)i * out_strides.x + (uint)7 * out_strides.y, (asuint(t32) | asuint(weft_zero32_)));
#line 17 "kernel.py"
    float t34 = (-x);
    float t36 = weft_pow32(t34, 3.0);
    out_.Store((uint)i * out_strides.x + (uint)8 * out_strides.y, (asuint(t36) | asuint(weft_zero32_)));
#line 18 "kernel.py"
    float t39 = (t34 * x);
    float t40 = exp(t39);
    out_.Store((uint)i * out_strides.x + (uint)9 * out_strides.y, (asuint(t40) | asuint(weft_zero32_)));
}
