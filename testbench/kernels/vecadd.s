// vecadd: c[i] = a[i] + b[i] (32-bit wrapping), one thread per element.
.kernel vecadd
.regs 8
.param a, b, c, n

        mov.u32     %r1, %ntid.x
        mov.u32     %r3, %tid.x
        mad.lo.s32  %r2, %ctaid.x, %r1, %r3      // i = ctaid.x * ntid.x + tid.x
        ld.param.u32 %r4, [n]
        setp.ge.u32 %p0, %r2, %r4
        @%p0 bra    DONE                          // i >= n: nothing to do
        shl.b32     %r2, %r2, 2                   // byte offset
        ld.param.u32 %r4, [a]
        add.s32     %r4, %r4, %r2
        ld.global.u32 %r5, [%r4]
        ld.param.u32 %r4, [b]
        add.s32     %r4, %r4, %r2
        ld.global.u32 %r6, [%r4]
        add.s32     %r5, %r5, %r6
        ld.param.u32 %r4, [c]
        add.s32     %r4, %r4, %r2
        st.global.u32 [%r4], %r5
DONE:   exit
