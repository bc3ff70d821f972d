// Kernel `step_particles` (kernel.py:13) compiled by weft-backend-hlsl.
// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1
// Constant buffer b0 (set 0, binding 0): 144 bytes, see the binding layout.
#define WEFT_ROOT_SIGNATURE "CBV(b0), DescriptorTable(UAV(u0, numDescriptors = 3))"

struct Particle
{
    float3 pos;
    float3 vel;
    float mass;
    int id;
    int active;
};

[[vk::binding(0, 0)]] cbuffer weft_params : register(b0)
{
    uint4 weft_cb[9];
};

[[vk::binding(1, 0)]] RWByteAddressBuffer ps : register(u0);
[[vk::binding(2, 0)]] RWByteAddressBuffer f : register(u1);
[[vk::binding(3, 0)]] RWByteAddressBuffer ke : register(u2);

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
    uint4 ps_strides = weft_cb[3];
    uint4 f_strides = weft_cb[5];
    uint4 ke_strides = weft_cb[7];
    precise float dt = asfloat(weft_cb[8].x);
#line 14 "kernel.py"
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
#line 15 "kernel.py"
    uint ps_at = (uint)i * ps_strides.x;
    Particle p;
    p.pos.x = asfloat(ps.Load(ps_at));
    p.pos.y = asfloat(ps.Load(ps_at + 4u));
    p.pos.z = asfloat(ps.Load(ps_at + 8u));
    p.vel.x = asfloat(ps.Load(ps_at + 12u));
    p.vel.y = asfloat(ps.Load(ps_at + 16u));
    p.vel.z = asfloat(ps.Load(ps_at + 20u));
    p.mass = asfloat(ps.Load(ps_at + 24u));
    p.id = asint(ps.Load(ps_at + 28u));
    p.active = asint(ps.Load(ps_at + 32u));
#line 16 "kernel.py"
    bool t17 = (p.active != 0);
    Particle p_1;
    if (t17)
    {
#line 17 "kernel.py"
        precise float3 t19 = asfloat(f.Load3((uint)i * f_strides.x));
        precise float t21 = (dt / p.mass);
        precise float t25 = (t19.x * t21);
        precise float t26 = (t19.y * t21);
        precise float t27 = (t19.z * t21);
        precise float t35 = (p.vel.x + t25);
        precise float t36 = (p.vel.y + t26);
        precise float t37 = (p.vel.z + t27);
        precise float3 t38 = float3(t35, t36, t37);
        Particle p_2 = p;
        p_2.vel = t38;
#line 18 "kernel.py"
        precise float t45 = (t35 * dt);
        precise float t46 = (t36 * dt);
        precise float t47 = (t37 * dt);
        precise float t55 = (p.pos.x + t45);
        precise float t56 = (p.pos.y + t46);
        precise float t57 = (p.pos.z + t47);
        precise float3 t58 = float3(t55, t56, t57);
        Particle p_3 = p_2;
        p_3.pos = t58;
#line 19 "kernel.py"
        int t62 = (p.id + 1000);
        Particle p_4 = p_3;
        p_4.id = t62;
        p_1 = p_4;
    }
    else
    {
#line 16 "kernel.py"
        p_1 = p;
    }
#line 20 "kernel.py"
    uint ps_at_1 = (uint)i * ps_strides.x;
    ps.Store(ps_at_1, (asuint(p_1.pos.x) | asuint(weft_zero32_)));
    ps.Store(ps_at_1 + 4u, (asuint(p_1.pos.y) | asuint(weft_zero32_)));
    ps.Store(ps_at_1 + 8u, (asuint(p_1.pos.z) | asuint(weft_zero32_)));
    ps.Store(ps_at_1 + 12u, (asuint(p_1.vel.x) | asuint(weft_zero32_)));
    ps.Store(ps_at_1 + 16u, (asuint(p_1.vel.y) | asuint(weft_zero32_)));
    ps.Store(ps_at_1 + 20u, (asuint(p_1.vel.z) | asuint(weft_zero32_)));
    ps.Store(ps_at_1 + 24u, (asuint(p_1.mass) | asuint(weft_zero32_)));
    ps.Store(ps_at_1 + 28u, asuint(p_1.id));
    ps.Store(ps_at_1 + 32u, asuint(p_1.active));
#line 21 "kernel.py"
    precise float t67 = (0.5 * p_1.mass);
#line 670 "<prelude>"
    precise float t76 = (p_1.vel.x * p_1.vel.x);
    precise float t81 = (p_1.vel.y * p_1.vel.y);
    precise float t82 = (t76 + t81);
    precise float t87 = (p_1.vel.z * p_1.vel.z);
    precise float t88 = (t82 + t87);
#line 21 "kernel.py"
    precise float t71 = (t67 * t88);
    ke.Store((uint)i * ke_strides.x, (asuint(t71) | asuint(weft_zero32_)));
}
