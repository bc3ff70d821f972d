// Kernel `diffuse3d` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 112 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 2))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[7];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer u : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer out_ : register(u1);

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
    uint4 u_shape = weft_cb[2];
    uint4 u_strides = weft_cb[3];
    uint4 out_strides = weft_cb[5];
    precise float k = asfloat(weft_cb[6].x);
#line 6 "kernel.py"
    int t3 = (int)weft_tid;
    int t4 = weft_dim.w;
    bool t6 = (t4 == 1);
    int t7;
    if (t6)
    {
        t7 = t3;
    }
    else
    {
        int t8 = weft_div_i32(t3, t4);
        t7 = t8;
    }
    int t9 = weft_dim.z;
    int l = weft_rem_i32(t7, t9);
    int t11 = weft_div_i32(t7, t9);
    int t12 = weft_dim.y;
    int j = weft_rem_i32(t11, t12);
    int i = weft_div_i32(t11, t12);
#line 7 "kernel.py"
    int nx = (int)u_shape.x;
#line 8 "kernel.py"
    int ny = (int)u_shape.y;
#line 9 "kernel.py"
    int nz = (int)u_shape.z;
#line 10 "kernel.py"
    precise float c = asfloat(u.Load((uint)i * u_strides.x + (uint)j * u_strides.y + (uint)l * u_strides.z));
#line 13 "kernel.py"
    bool t25 = (i > 0);
    float acc;
    int cnt;
    if (t25)
    {
#line 14 "kernel.py"
        int t27 = (i - 1);
        bool t29 = (t27 < 0);
        int t31 = (t27 + nx);
        int t32 = (t29 ? t31 : t27);
        precise float t33 = asfloat(u.Load((uint)t32 * u_strides.x + (uint)j * u_strides.y + (uint)l * u_strides.z));
        precise float acc_1 = (weft_zero32_ + t33);
#line 15 "kernel.py"
        acc = acc_1;
        cnt = 1;
    }
    else
    {
#line 13 "kernel.py"
        acc = weft_zero32_;
        cnt = 0;
    }
#line 16 "kernel.py"
    int t40 = (nx - 1);
    bool t41 = (i < t40);
    float acc_2;
    int cnt_1;
    if (t41)
    {
#line 17 "kernel.py"
        int t43 = (i + 1);
        precise float t44 = asfloat(u.Load((uint)t43 * u_strides.x + (uint)j * u_strides.y + (uint)l * u_strides.z));
        precise float acc_3 = (acc + t44);
#line 18 "kernel.py"
        int cnt_2 = (cnt + 1);
        acc_2 = acc_3;
        cnt_1 = cnt_2;
    }
    else
    {
#line 16 "kernel.py"
        acc_2 = acc;
        cnt_1 = cnt;
    }
#line 19 "kernel.py"
    bool t51 = (j > 0);
    float acc_4;
    int cnt_3;
    if (t51)
    {
#line 20 "kernel.py"
        int t53 = (j - 1);
        bool t55 = (t53 < 0);
        int t57 = (t53 + ny);
        int t58 = (t55 ? t57 : t53);
        precise float t59 = asfloat(u.Load((uint)i * u_strides.x + (uint)t58 * u_strides.y + (uint)l * u_strides.z));
        precise float acc_5 = (acc_2 + t59);
#line 21 "kernel.py"
        int cnt_4 = (cnt_1 + 1);
        acc_4 = acc_5;
        cnt_3 = cnt_4;
    }
    else
    {
#line 19 "kernel.py"
        acc_4 = acc_2;
        cnt_3 = cnt_1;
    }
#line 22 "kernel.py"
    int t66 = (ny - 1);
    bool t67 = (j < t66);
    float acc_6;
    int cnt_5;
    if (t67)
    {
#line 23 "kernel.py"
        int t69 = (j + 1);
        precise float t70 = asfloat(u.Load((uint)i * u_strides.x + (uint)t69 * u_strides.y + (uint)l * u_strides.z));
        precise float acc_7 = (acc_4 + t70);
#line 24 "kernel.py"
        int cnt_6 = (cnt_3 + 1);
        acc_6 = acc_7;
        cnt_5 = cnt_6;
    }
    else
    {
#line 22 "kernel.py"
        acc_6 = acc_4;
        cnt_5 = cnt_3;
    }
#line 25 "kernel.py"
    bool t77 = (l > 0);
    float acc_8;
    int cnt_7;
    if (t77)
    {
#line 26 "kernel.py"
        int t79 = (l - 1);
        bool t81 = (t79 < 0);
        int t83 = (t79 + nz);
        int t84 = (t81 ? t83 : t79);
        precise float t85 = asfloat(u.Load((uint)i * u_strides.x + (uint)j * u_strides.y + (uint)t84 * u_strides.z));
        precise float acc_9 = (acc_6 + t85);
#line 27 "kernel.py"
        int cnt_8 = (cnt_5 + 1);
        acc_8 = acc_9;
        cnt_7 = cnt_8;
    }
    else
    {
#line 25 "kernel.py"
        acc_8 = acc_6;
        cnt_7 = cnt_5;
    }
#line 28 "kernel.py"
    int t92 = (nz - 1);
    bool t93 = (l < t92);
    float acc_10;
    int cnt_9;
    if (t93)
    {
#line 29 "kernel.py"
        int t95 = (l + 1);
        precise float t96 = asfloat(u.Load((uint)i * u_strides.x + (uint)j * u_strides.y + (uint)t95 * u_strides.z));
        precise float acc_11 = (acc_8 + t96);
#line 30 "kernel.py"
        int cnt_10 = (cnt_7 + 1);
        acc_10 = acc_11;
        cnt_9 = cnt_10;
    }
    else
    {
#line 28 "kernel.py"
        acc_10 = acc_8;
        cnt_9 = cnt_7;
    }
#line 31 "kernel.py"
    precise float t102 = ((float)cnt_9 + weft_zero32_);
    precise float t103 = (t102 * c);
    precise float t104 = (acc_10 - t103);
    precise float t105 = (k * t104);
    precise float t106 = (c + t105);
    out_.Store((uint)i * out_strides.x + (uint)j * out_strides.y + (uint)l * out_strides.z, (asuint(t106) | asuint(weft_zero32_)));
}
