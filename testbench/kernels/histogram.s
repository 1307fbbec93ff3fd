// histogram: 64 bins of (value & 63). Each block counts a grid-stride share of the input
// into a shared histogram with shared atomics, then adds it to the global one with global
// atomics. ntid.x >= 64.
.kernel histogram
.regs 12
.shared 256
.param data, hist, n

        mov.u32     %r0, %tid.x
        shl.b32     %r1, %r0, 2                   // &sh[tid]
        setp.lt.u32 %p0, %r0, 64
        mov.u32     %r2, 0
        @%p0 st.shared.u32 [%r1], %r2             // clear the shared bins
        bar.sync 0
        mov.u32     %r3, %ntid.x
        mad.lo.s32  %r4, %ctaid.x, %r3, %r0       // i = global thread id
        mul.lo.s32  %r5, %nctaid.x, %r3           // stride = threads in the grid
        ld.param.u32 %r6, [n]
        ld.param.u32 %r7, [data]
        mov.u32     %r8, 1
LOOP:   setp.ge.u32 %p1, %r4, %r6
        @%p1 bra    MERGE
        shl.b32     %r9, %r4, 2
        add.s32     %r9, %r9, %r7
        ld.global.u32 %r10, [%r9]
        and.b32     %r10, %r10, 63
        shl.b32     %r10, %r10, 2
        atom.shared.add.u32 %r11, [%r10], %r8
        add.s32     %r4, %r4, %r5
        bra         LOOP
MERGE:  bar.sync 0
        @!%p0 exit
        ld.shared.u32 %r10, [%r1]
        ld.param.u32 %r9, [hist]
        add.s32     %r9, %r9, %r1
        atom.global.add.u32 %r11, [%r9], %r10
        exit
