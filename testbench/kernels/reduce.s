// reduce: each block sums 2*ntid.x consecutive elements with a shared-memory tree
// (ntid.x a power of two, at most 256); out[ctaid.x] = the block's sum.
.kernel reduce
.regs 10
.shared 1024
.param in, out, n

        mov.u32     %r0, %tid.x
        mov.u32     %r1, %ntid.x
        shl.b32     %r2, %r1, 1
        mul.lo.s32  %r3, %ctaid.x, %r2
        add.s32     %r3, %r3, %r0                 // i = ctaid.x * 2*ntid + tid
        ld.param.u32 %r4, [n]
        ld.param.u32 %r5, [in]
        mov.u32     %r6, 0                        // sum
        shl.b32     %r7, %r3, 2
        add.s32     %r7, %r7, %r5                 // &in[i]
        setp.lt.u32 %p0, %r3, %r4
        @%p0 ld.global.u32 %r6, [%r7]
        add.s32     %r8, %r3, %r1                 // i + ntid
        setp.lt.u32 %p1, %r8, %r4
        shl.b32     %r9, %r1, 2
        add.s32     %r7, %r7, %r9
        @%p1 ld.global.u32 %r8, [%r7]
        @%p1 add.s32 %r6, %r6, %r8
        shl.b32     %r9, %r0, 2                   // &sh[tid]
        st.shared.u32 [%r9], %r6
        bar.sync 0
        shr.u32     %r2, %r1, 1                   // s = ntid / 2
LOOP:   setp.eq.u32 %p2, %r2, 0
        @%p2 bra    DONE
        setp.lt.u32 %p3, %r0, %r2
        @!%p3 bra   SKIP
        shl.b32     %r7, %r2, 2
        add.s32     %r7, %r7, %r9
        ld.shared.u32 %r8, [%r7]                  // sh[tid + s]
        ld.shared.u32 %r5, [%r9]
        add.s32     %r5, %r5, %r8
        st.shared.u32 [%r9], %r5
SKIP:   bar.sync 0
        shr.u32     %r2, %r2, 1
        bra         LOOP
DONE:   setp.ne.u32 %p4, %r0, 0
        @%p4 exit
        ld.shared.u32 %r5, [%r9]                  // tid 0: sh[0]
        ld.param.u32 %r7, [out]
        shl.b32     %r8, %ctaid.x, 2
        add.s32     %r7, %r7, %r8
        st.global.u32 [%r7], %r5
        exit
