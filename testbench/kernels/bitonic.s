// bitonic: each block sorts its own ntid.x consecutive words (a power of two) ascending,
// in shared memory, one barrier after every compare-exchange step.
.kernel bitonic
.regs 14
.shared 4096
.param data

        mov.u32     %r0, %tid.x
        mov.u32     %r1, %ntid.x
        mad.lo.s32  %r2, %ctaid.x, %r1, %r0
        shl.b32     %r2, %r2, 2
        ld.param.u32 %r3, [data]
        add.s32     %r2, %r2, %r3                 // &data[block start + tid]
        ld.global.u32 %r4, [%r2]
        shl.b32     %r5, %r0, 2                   // &sh[tid]
        st.shared.u32 [%r5], %r4
        bar.sync 0
        mov.u32     %r6, 2                        // k
KLOOP:  setp.gt.u32 %p0, %r6, %r1
        @%p0 bra    WRITE
        shr.u32     %r7, %r6, 1                   // j = k / 2
JLOOP:  setp.eq.u32 %p1, %r7, 0
        @%p1 bra    KNEXT
        xor.b32     %r8, %r0, %r7                 // partner = tid ^ j
        setp.le.u32 %p2, %r8, %r0
        @%p2 bra    SYNC                          // the lower index of a pair acts
        shl.b32     %r9, %r8, 2
        ld.shared.u32 %r10, [%r5]                 // x = sh[tid]
        ld.shared.u32 %r11, [%r9]                 // y = sh[partner]
        and.b32     %r12, %r0, %r6
        setp.eq.u32 %p3, %r12, 0                  // ascending half
        setp.gt.u32 %p4, %r10, %r11
        setp.lt.u32 %p5, %r10, %r11
        and.pred    %p4, %p3, %p4                 // up and x > y
        not.pred    %p6, %p3
        and.pred    %p5, %p6, %p5                 // down and x < y
        or.pred     %p4, %p4, %p5
        @%p4 st.shared.u32 [%r5], %r11
        @%p4 st.shared.u32 [%r9], %r10
SYNC:   bar.sync 0
        shr.u32     %r7, %r7, 1
        bra         JLOOP
KNEXT:  shl.b32     %r6, %r6, 1
        bra         KLOOP
WRITE:  ld.shared.u32 %r4, [%r5]
        st.global.u32 [%r2], %r4
        exit
