// scan: inclusive prefix sum within each block of ntid.x elements (Hillis-Steele, double
// buffered in shared memory, one barrier per step). ntid.x at most 256.
.kernel scan
.regs 12
.shared 2048
.param in, out, n

        mov.u32     %r0, %tid.x
        mov.u32     %r1, %ntid.x
        mad.lo.s32  %r2, %ctaid.x, %r1, %r0       // i
        ld.param.u32 %r3, [n]
        setp.lt.u32 %p0, %r2, %r3                 // i < n
        shl.b32     %r4, %r2, 2
        ld.param.u32 %r5, [in]
        add.s32     %r5, %r5, %r4
        mov.u32     %r6, 0
        @%p0 ld.global.u32 %r6, [%r5]
        shl.b32     %r7, %r0, 2                   // &buf[tid] (bytes)
        st.shared.u32 [%r7], %r6
        mov.u32     %r8, 0                        // pin: input buffer offset
        shl.b32     %r9, %r1, 2                   // pout: output buffer offset = ntid*4
        mov.u32     %r10, 1                       // off
        bar.sync 0
STEP:   setp.ge.u32 %p1, %r10, %r1
        @%p1 bra    FINISH
        add.s32     %r11, %r8, %r7
        ld.shared.u32 %r6, [%r11]                 // x = in[tid]
        setp.ge.u32 %p2, %r0, %r10                // tid >= off
        shl.b32     %r3, %r10, 2
        sub.s32     %r11, %r11, %r3
        @%p2 ld.shared.u32 %r3, [%r11]            // in[tid - off]
        @%p2 add.s32 %r6, %r6, %r3
        add.s32     %r11, %r9, %r7
        st.shared.u32 [%r11], %r6                 // out[tid] = x
        bar.sync 0
        mov.u32     %r3, %r8                      // swap pin, pout
        mov.u32     %r8, %r9
        mov.u32     %r9, %r3
        shl.b32     %r10, %r10, 1
        bra         STEP
FINISH: @!%p0 exit
        add.s32     %r11, %r8, %r7
        ld.shared.u32 %r6, [%r11]
        ld.param.u32 %r5, [out]
        add.s32     %r5, %r5, %r4
        st.global.u32 [%r5], %r6
        exit
