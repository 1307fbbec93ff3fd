// transpose: out (cols x rows) = in (rows x cols)^T through a 16x16 shared tile
// (row stride 17 words), blocks of 16x16 threads, one barrier between load and store.
.kernel transpose
.regs 12
.shared 1088
.param in, out, rows, cols

        ld.param.u32 %r0, [rows]
        ld.param.u32 %r1, [cols]
        mov.u32     %r2, %tid.x
        mov.u32     %r3, %tid.y
        shl.b32     %r4, %ctaid.x, 4
        add.s32     %r4, %r4, %r2                 // x = ctaid.x*16 + tid.x (column)
        shl.b32     %r5, %ctaid.y, 4
        add.s32     %r5, %r5, %r3                 // y = ctaid.y*16 + tid.y (row)
        setp.lt.u32 %p0, %r4, %r1
        setp.lt.u32 %p1, %r5, %r0
        and.pred    %p0, %p0, %p1
        @!%p0 bra   LOADED
        mad.lo.s32  %r6, %r5, %r1, %r4            // y*cols + x
        shl.b32     %r6, %r6, 2
        ld.param.u32 %r7, [in]
        add.s32     %r6, %r6, %r7
        ld.global.u32 %r8, [%r6]
        mov.u32     %r9, 17
        mad.lo.s32  %r10, %r3, %r9, %r2           // tile[ty][tx]
        shl.b32     %r10, %r10, 2
        st.shared.u32 [%r10], %r8
LOADED: bar.sync 0
        shl.b32     %r4, %ctaid.y, 4
        add.s32     %r4, %r4, %r2                 // x2 = ctaid.y*16 + tid.x (column of out)
        shl.b32     %r5, %ctaid.x, 4
        add.s32     %r5, %r5, %r3                 // y2 = ctaid.x*16 + tid.y (row of out)
        setp.lt.u32 %p0, %r4, %r0
        setp.lt.u32 %p1, %r5, %r1
        and.pred    %p0, %p0, %p1
        @!%p0 exit
        mov.u32     %r9, 17
        mad.lo.s32  %r10, %r2, %r9, %r3           // tile[tx][ty]
        shl.b32     %r10, %r10, 2
        ld.shared.u32 %r8, [%r10]
        mad.lo.s32  %r6, %r5, %r0, %r4            // y2*rows + x2
        shl.b32     %r6, %r6, 2
        ld.param.u32 %r7, [out]
        add.s32     %r6, %r6, %r7
        st.global.u32 [%r6], %r8
        exit
