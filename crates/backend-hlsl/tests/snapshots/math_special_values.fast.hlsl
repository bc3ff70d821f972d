// Kernel `special_values` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 128 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 3))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[8];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer a : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer flags : register(u1);
[[vk::binding(3, 0)]] RWByteAddressBuffer out_ : register(u2);

bool weft_isnan32(float x) { return (asuint(x) & 0x7fffffffu) > 0x7f800000u; }

bool weft_isinf32(float x) { return (asuint(x) & 0x7fffffffu) == 0x7f800000u; }

bool weft_isfinite32(float x) { return (asuint(x) & 0x7fffffffu) < 0x7f800000u; }

// min/max ignore a NaN operand (IEEE minNum/maxNum).
float weft_fmin32(float a, float b) { return weft_isnan32(a) ? b : (weft_isnan32(b) ? a : (b < a ? b : a)); }
float weft_fmax32(float a, float b) { return weft_isnan32(a) ? b : (weft_isnan32(b) ? a : (b > a ? b : a)); }

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
    uint4 flags_strides = weft_cb[5];
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
    bool t14 = weft_isnan32(x);
    int t15 = (t14 ? 1 : 0);
    flags.Store((uint)i * flags_strides.x + (uint)0 * flags_strides.y, asuint(t15));
#line 9 "kernel.py"
    bool t17 = weft_isinf32(x);
    int t18 = (t17 ? 1 : 0);
    flags.Store((uint)i * flags_strides.x + (uint)1 * flags_strides.y, asuint(t18));
#line 10 "kernel.py"
    bool t20 = weft_isfinite32(x);
    int t21 = (t20 ? 1 : 0);
    flags.Store((uint)i * flags_strides.x + (uint)2 * flags_strides.y, asuint(t21));
#line 11 "kernel.py"
    bool t23 = (x == x);
    int t24 = (t23 ? 1 : 0);
    flags.Store((uint)i * flags_strides.x + (uint)3 * flags_strides.y, asuint(t24));
#line 12 "kernel.py"
    bool t27 = (x > weft_zero32_);
    int t28 = (t27 ? 1 : 0);
    flags.Store((uint)i * flags_strides.x + (uint)4 * flags_strides.y, asuint(t28));
#line 13 "kernel.py"
    float t31 = (1.0 / x);
    out_.Store((uint)i * out_strides.x + (uint)0 * out_strides.y, (asuint(t31) | asuint(weft_zero32_)));
#line 14 "kernel.py"
    float t33 = sqrt(x);
    out_.Store((uint)i * out_strides.x + (uint)1 * out_strides.y, (asuint(t33) | asuint(weft_zero32_)));
#line 15 "kernel.py"
    float t35 = log(x);
    out_.Store((uint)i * out_strides.x + (uint)2 * out_strides.y, (asuint(t35) | asuint(weft_zero32_)));
#line 16 "kernel.py"
    float t38 = weft_fmin32(x, 1.0);
    out_.Store((uint)i * out_strides.x + (uint)3 * out_strides.y, (asuint(t38) | asuint(weft_zero32_)));
#line 17 "kernel.py"
    float t41 = weft_fmax32(x, 1.0);
    out_.Store((uint)i * out_strides.x + (uint)4 * out_strides.y, (asuint(t41) | asuint(weft_zero32_)));
#line 18 "kernel.py"
    precise float t44 = (x * weft_zero32_);
    out_.Store((uint)i * out_strides.x + (uint)5 * out_strides.y, (asuint(t44) | asuint(weft_zero32_)));
#line 19 "kernel.py"
    float t46 = exp(x);
    out_.Store((uint)i * out_strides.x + (uint)6 * out_strides.y, (asuint(t46) | asuint(weft_zero32_)));
}
