// Kernel `minmax_interp` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 160 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 4))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[10];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer a : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer b : register(u1);
[[vk::binding(3, 0)]] RWByteAddressBuffer t : register(u2);
[[vk::binding(4, 0)]] RWByteAddressBuffer out_ : register(u3);

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
    uint4 t_strides = weft_cb[7];
    uint4 out_strides = weft_cb[9];
#line 6 "kernel.py"
    int t4 = (int)weft_tid;
    int t5 = weft_dim.y;
    int t6 = weft_dim.z;
    int t7 = (t5 * t6);
    int t8 = weft_dim.w;
    int t9 = (t7 * t8);
    bool t11 = (t9 == 1);
    int i;
    if (t11)
    {
        i = t4;
    }
    else
    {
        int t13 = weft_div_i32(t4, t9);
        i = t13;
    }
#line 7 "kernel.py"
    float x = asfloat(a.Load((uint)i * a_strides.x));
#line 8 "kernel.py"
    float y = asfloat(b.Load((uint)i * b_strides.x));
#line 9 "kernel.py"
    float s = asfloat(t.Load((uint)i * t_strides.x));
#line 10 "kernel.py"
    float t17 = min(x, y);
    out_.Store((uint)i * out_strides.x + (uint)0 * out_strides.y, (asuint(t17) | asuint(weft_zero32_)));
#line 11 "kernel.py"
    float t19 = max(x, y);
    out_.Store((uint)i * out_strides.x + (uint)1 * out_strides.y, (asuint(t19) | asuint(weft_zero32_)));
#line 12 "kernel.py"
    float t24 = max((-0.5), x);
    float t25 = min(t24, 0.75);
    out_.Store((uint)i * out_strides.x + (uint)2 * out_strides.y, (asuint(t25) | asuint(weft_zero32_)));
#line 13 "kernel.py"
    bool t29 = (x < weft_zero32_);
    float t30 = (t29 ? 1.0 : weft_zero32_);
    out_.Store((uint)i * out_strides.x + (uint)3 * out_strides.y, (asuint(t30) | asuint(weft_zero32_)));
#line 14 "kernel.py"
    float t33 = (1.0 - s);
    float t34 = (x * t33);
    float t35 = (y * s);
    float t36 = (t34 + t35);
    out_.Store((uint)i * out_strides.x + (uint)4 * out_strides.y, (asuint(t36) | asuint(weft_zero32_)));
#line 768 "<prelude>"
    float t56 = (x - (-1.0));
    float t58 = (t56 / 2.0);
    float t59 = max(weft_zero32_, t58);
    float t_1 = min(t59, 1.0);
#line 769 "<prelude>"
    float t62 = (t_1 * t_1);
    float t65 = (2.0 * t_1);
    float t66 = (3.0 - t65);
    float t67 = (t62 * t66);
#line 15 "kernel.py"
    out_.Store((uint)i * out_strides.x + (uint)5 * out_strides.y, (asuint(t67) | asuint(weft_zero32_)));
#line 768 "<prelude>"
    float t69 = (y - weft_zero32_);
    float t71 = (t69 / 2.0);
    float t72 = max(weft_zero32_, t71);
    float t_2 = min(t72, 1.0);
#line 769 "<prelude>"
    float t75 = (t_2 * t_2);
    float t78 = (2.0 * t_2);
    float t79 = (3.0 - t78);
    float t80 = (t75 * t79);
#line 16 "kernel.py"
    out_.Store((uint)i * out_strides.x + (uint)6 * out_strides.y, (asuint(t80) | asuint(weft_zero32_)));
#line 17 "kernel.py"
    float t48 = min(t19, s);
    out_.Store((uint)i * out_strides.x + (uint)7 * out_strides.y, (asuint(t48) | asuint(weft_zero32_)));
#line 18 "kernel.py"
    float t51 = (y + 1.0);
    float t52 = max(y, s);
    float t53 = min(t52, t51);
    out_.Store((uint)i * out_strides.x + (uint)8 * out_strides.y, (asuint(t53) | asuint(weft_zero32_)));
}
