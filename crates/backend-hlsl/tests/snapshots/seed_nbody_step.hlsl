// Kernel `nbody_step` (kernel.py:5) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 208 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 5))"

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[13];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer pos : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer vel : register(u1);
[[vk::binding(3, 0)]] RWByteAddressBuffer mass : register(u2);
[[vk::binding(4, 0)]] RWByteAddressBuffer new_pos : register(u3);
[[vk::binding(5, 0)]] RWByteAddressBuffer new_vel : register(u4);

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
    bool weft_on0_ = ((weft_cb[1].z >> 0u) == 0u);
    uint weft_tid = weft_cb[1].y + weft_id.x;
    if (weft_tid >= weft_cb[1].x)
        return;
    int4 weft_dim = asint(weft_cb[0]);
    uint4 pos_strides = weft_cb[3];
    uint4 vel_strides = weft_cb[5];
    uint4 mass_strides = weft_cb[7];
    uint4 new_pos_strides = weft_cb[9];
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
        int t18 = weft_div_i32(t9, t14);
        i = t18;
    }
#line 17 "kernel.py"
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
    precise float3 t71 = asfloat(vel.Load3((uint)i * vel_strides.x));
    precise float t75 = (acc_2.x * dt);
    precise float t76 = (acc_2.y * dt);
    precise float t77 = (acc_2.z * dt);
    precise float t85 = (t71.x + t75);
    precise float t86 = (t71.y + t76);
    precise float t87 = (t71.z + t77);
    precise float3 v = float3(t85, t86, t87);
#line 25 "kernel.py"
    new_vel.Store3((uint)i * new_vel_strides.x, (asuint(v) | asuint(weft_zero32_)));
#line 26 "kernel.py"
    precise float t92 = (t85 * dt);
    precise float t93 = (t86 * dt);
    precise float t94 = (t87 * dt);
    precise float t102 = (p.x + t92);
    precise float t103 = (p.y + t93);
    precise float t104 = (p.z + t94);
    precise float3 t105 = float3(t102, t103, t104);
    new_pos.Store3((uint)i * new_pos_strides.x, (asuint(t105) | asuint(weft_zero32_)));
}
