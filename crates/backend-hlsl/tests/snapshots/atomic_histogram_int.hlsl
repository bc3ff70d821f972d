// Kernel `histogram` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 144 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 3))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[9];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer vals : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer hist : register(u1);
[[vk::binding(3, 0)]] RWByteAddressBuffer neg : register(u2);

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
    uint weft_tid = weft_cb[1].y + weft_id.x;
    if (weft_tid >= weft_cb[1].x)
        return;
    int4 weft_dim = asint(weft_cb[0]);
    uint4 vals_strides = weft_cb[3];
    uint4 hist_shape = weft_cb[4];
    uint4 hist_strides = weft_cb[5];
    uint4 neg_strides = weft_cb[7];
    int nbins = asint(weft_cb[8].x);
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
    int v = asint(vals.Load((uint)i * vals_strides.x));
#line 8 "kernel.py"
    int b = weft_rem_i32(v, nbins);
#line 9 "kernel.py"
    bool t17 = (b < 0);
    int b_1;
    if (t17)
    {
#line 10 "kernel.py"
        int b_2 = (b + nbins);
        b_1 = b_2;
    }
    else
    {
#line 9 "kernel.py"
        b_1 = b;
    }
#line 11 "kernel.py"
    bool t22 = (b_1 < 0);
    int t23 = (int)hist_shape.x;
    int t24 = (b_1 + t23);
    int t25 = (t22 ? t24 : b_1);
    int t26;
    uint weft_old_;
    hist.InterlockedAdd((uint)t25 * hist_strides.x, asuint(1), weft_old_);
    t26 = asint(weft_old_);
#line 12 "kernel.py"
    bool t28 = (v < 0);
    if (t28)
    {
#line 13 "kernel.py"
        int t31;
        uint weft_old__1;
        neg.InterlockedAdd((uint)0 * neg_strides.x, asuint(1), weft_old__1);
        t31 = asint(weft_old__1);
#line 14 "kernel.py"
        int t34;
        uint weft_old__2;
        neg.InterlockedAdd((uint)1 * neg_strides.x, 0u - asuint(2), weft_old__2);
        t34 = asint(weft_old__2);
    }
}
