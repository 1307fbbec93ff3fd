// stencil: one Jacobi step of a 5-point FP32 stencil on a width x height grid,
// out = (((c + north) + south) + west + east) * 0.2 inside, out = in on the border.
// Blocks of 16x16 threads load an 18x18 shared tile with its halo, then one barrier.
.kernel stencil
.regs 24
.shared 1296
.param in, out, width, height

        ld.param.u32 %r0, [width]
        ld.param.u32 %r1, [height]
        mov.u32     %r2, %tid.x
        mov.u32     %r3, %tid.y
        shl.b32     %r4, %ctaid.x, 4
        add.s32     %r4, %r4, %r2                 // x
        shl.b32     %r5, %ctaid.y, 4
        add.s32     %r5, %r5, %r3                 // y
        setp.lt.u32 %p0, %r4, %r0
        setp.lt.u32 %p1, %r5, %r1
        and.pred    %p0, %p0, %p1                 // inside the grid
        mad.lo.s32  %r6, %r5, %r0, %r4
        shl.b32     %r6, %r6, 2                   // (y*W + x)*4
        ld.param.u32 %r7, [in]
        add.s32     %r8, %r6, %r7                 // &in[y][x]
        add.s32     %r9, %r3, 1
        mov.u32     %r10, 18
        mad.lo.s32  %r9, %r9, %r10, %r2
        add.s32     %r9, %r9, 1
        shl.b32     %r9, %r9, 2                   // &tile[ty+1][tx+1]
        shl.b32     %r11, %r0, 2                  // row pitch in bytes
        @%p0 ld.global.f32 %r12, [%r8]
        @%p0 st.shared.f32 [%r9], %r12
        // left halo: tx == 0 and x > 0
        setp.eq.u32 %p2, %r2, 0
        setp.ne.u32 %p3, %r4, 0
        and.pred    %p2, %p2, %p3
        and.pred    %p2, %p2, %p0
        @%p2 ld.global.f32 %r13, [%r8-4]
        @%p2 st.shared.f32 [%r9-4], %r13
        // right halo: tx == 15 and x + 1 < W
        setp.eq.u32 %p2, %r2, 15
        add.s32     %r14, %r4, 1
        setp.lt.u32 %p3, %r14, %r0
        and.pred    %p2, %p2, %p3
        and.pred    %p2, %p2, %p0
        @%p2 ld.global.f32 %r13, [%r8+4]
        @%p2 st.shared.f32 [%r9+4], %r13
        // top halo: ty == 0 and y > 0
        setp.eq.u32 %p2, %r3, 0
        setp.ne.u32 %p3, %r5, 0
        and.pred    %p2, %p2, %p3
        and.pred    %p2, %p2, %p0
        sub.s32     %r15, %r8, %r11
        @%p2 ld.global.f32 %r13, [%r15]
        @%p2 st.shared.f32 [%r9-72], %r13
        // bottom halo: ty == 15 and y + 1 < H
        setp.eq.u32 %p2, %r3, 15
        add.s32     %r14, %r5, 1
        setp.lt.u32 %p3, %r14, %r1
        and.pred    %p2, %p2, %p3
        and.pred    %p2, %p2, %p0
        add.s32     %r15, %r8, %r11
        @%p2 ld.global.f32 %r13, [%r15]
        @%p2 st.shared.f32 [%r9+72], %r13
        bar.sync 0
        @!%p0 exit
        ld.param.u32 %r16, [out]
        add.s32     %r16, %r6, %r16               // &out[y][x]
        // border: x == 0 or y == 0 or x == W-1 or y == H-1
        setp.eq.u32 %p4, %r4, 0
        setp.eq.u32 %p5, %r5, 0
        or.pred     %p4, %p4, %p5
        sub.s32     %r17, %r0, 1
        setp.eq.u32 %p5, %r4, %r17
        or.pred     %p4, %p4, %p5
        sub.s32     %r17, %r1, 1
        setp.eq.u32 %p5, %r5, %r17
        or.pred     %p4, %p4, %p5
        @!%p4 bra   INNER
        st.global.f32 [%r16], %r12
        exit
INNER:  ld.shared.f32 %r18, [%r9-72]              // north
        add.f32     %r19, %r12, %r18
        ld.shared.f32 %r18, [%r9+72]              // south
        add.f32     %r19, %r19, %r18
        ld.shared.f32 %r18, [%r9-4]               // west
        add.f32     %r19, %r19, %r18
        ld.shared.f32 %r18, [%r9+4]               // east
        add.f32     %r19, %r19, %r18
        mul.f32     %r19, %r19, 0.2
        st.global.f32 [%r16], %r19
        exit
