// Kernel `double_kernel` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 96 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 2))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[6];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer x : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer y : register(u1);

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
    uint4 x_strides = weft_cb[3];
    uint4 y_strides = weft_cb[5];
#line 6 "kernel.py"
    int t2 = (int)weft_tid;
    int t3 = weft_dim.y;
    int t4 = weft_dim.z;
    int t5 = (t3 * t4);
    int t6 = weft_dim.w;
    int t7 = (t5 * t6);
    bool t9 = (t7 == 1);
    int tid;
    if (t9)
    {
        tid = t2;
    }
    else
    {
        int t11 = weft_div_i32(t2, t7);
        tid = t11;
    }
#line 7 "kernel.py"
    precise float t12 = asfloat(x.Load((uint)tid * x_strides.x));
    precise float t14 = (t12 * 2.0);
    y.Store((uint)tid * y_strides.x, (asuint(t14) | asuint(weft_zero32_)));
}
