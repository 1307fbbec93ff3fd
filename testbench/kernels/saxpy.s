// saxpy: y[i] = alpha * x[i] + y[i] in FP32, one fused multiply-add per element.
.kernel saxpy
.regs 8
.param x, y, alpha, n

        mov.u32     %r1, %ntid.x
        mov.u32     %r3, %tid.x
        mad.lo.s32  %r0, %ctaid.x, %r1, %r3      // i
        ld.param.u32 %r4, [n]
        setp.ge.u32 %p0, %r0, %r4
        @%p0 exit
        shl.b32     %r0, %r0, 2
        ld.param.u32 %r4, [x]
        add.s32     %r4, %r4, %r0
        ld.global.f32 %r5, [%r4]                  // x[i]
        ld.param.u32 %r4, [y]
        add.s32     %r4, %r4, %r0
        ld.global.f32 %r6, [%r4]                  // y[i]
        ld.param.f32 %r7, [alpha]
        fma.rn.f32  %r6, %r7, %r5, %r6            // alpha * x + y, one rounding
        st.global.f32 [%r4], %r6
        exit
