// matmul: C (M x N) = A (M x K) * B (K x N) in FP32, 8x8 tiles in shared memory, blocks of
// 8x8 threads. Each thread accumulates with fma in k order 0, 1, 2, ...
.kernel matmul
.regs 24
.shared 512
.param a, b, c, m, n, k

        ld.param.u32 %r0, [m]
        ld.param.u32 %r1, [n]
        ld.param.u32 %r2, [k]
        mov.u32     %r3, %tid.x
        mov.u32     %r4, %tid.y
        shl.b32     %r5, %ctaid.y, 3
        add.s32     %r5, %r5, %r4                 // row
        shl.b32     %r6, %ctaid.x, 3
        add.s32     %r6, %r6, %r3                 // col
        mov.f32     %r7, 0.0                      // acc
        shl.b32     %r8, %r4, 3
        add.s32     %r8, %r8, %r3
        shl.b32     %r8, %r8, 2                   // &As[ty][tx] = &Bs[ty][tx] - 256
        shl.b32     %r9, %r4, 5                   // &As[ty][0]
        shl.b32     %r10, %r3, 2
        add.s32     %r10, %r10, 256               // &Bs[0][tx]
        setp.lt.u32 %p0, %r5, %r0                 // row < M
        setp.lt.u32 %p1, %r6, %r1                 // col < N
        ld.param.u32 %r20, [a]
        ld.param.u32 %r21, [b]
        mov.u32     %r11, 0                       // t: tile start along k
TILE:   setp.ge.u32 %p2, %r11, %r2
        @%p2 bra    STORE
        // As[ty][tx] = A[row][t + tx] (0 outside)
        add.s32     %r12, %r11, %r3
        setp.lt.u32 %p3, %r12, %r2
        and.pred    %p3, %p3, %p0
        mov.u32     %r13, 0
        mad.lo.s32  %r14, %r5, %r2, %r12
        shl.b32     %r14, %r14, 2
        add.s32     %r14, %r14, %r20
        @%p3 ld.global.f32 %r13, [%r14]
        st.shared.f32 [%r8], %r13
        // Bs[ty][tx] = B[t + ty][col] (0 outside)
        add.s32     %r12, %r11, %r4
        setp.lt.u32 %p3, %r12, %r2
        and.pred    %p3, %p3, %p1
        mov.u32     %r13, 0
        mad.lo.s32  %r14, %r12, %r1, %r6
        shl.b32     %r14, %r14, 2
        add.s32     %r14, %r14, %r21
        @%p3 ld.global.f32 %r13, [%r14]
        st.shared.f32 [%r8+256], %r13
        bar.sync 0
        ld.shared.f32 %r15, [%r9]
        ld.shared.f32 %r16, [%r10]
        fma.rn.f32  %r7, %r15, %r16, %r7
        ld.shared.f32 %r15, [%r9+4]
        ld.shared.f32 %r16, [%r10+32]
        fma.rn.f32  %r7, %r15, %r16, %r7
        ld.shared.f32 %r15, [%r9+8]
        ld.shared.f32 %r16, [%r10+64]
        fma.rn.f32  %r7, %r15, %r16, %r7
        ld.shared.f32 %r15, [%r9+12]
        ld.shared.f32 %r16, [%r10+96]
        fma.rn.f32  %r7, %r15, %r16, %r7
        ld.shared.f32 %r15, [%r9+16]
        ld.shared.f32 %r16, [%r10+128]
        fma.rn.f32  %r7, %r15, %r16, %r7
        ld.shared.f32 %r15, [%r9+20]
        ld.shared.f32 %r16, [%r10+160]
        fma.rn.f32  %r7, %r15, %r16, %r7
        ld.shared.f32 %r15, [%r9+24]
        ld.shared.f32 %r16, [%r10+192]
        fma.rn.f32  %r7, %r15, %r16, %r7
        ld.shared.f32 %r15, [%r9+28]
        ld.shared.f32 %r16, [%r10+224]
        fma.rn.f32  %r7, %r15, %r16, %r7
        bar.sync 0
        add.s32     %r11, %r11, 8
        bra         TILE
STORE:  and.pred    %p4, %p0, %p1
        @!%p4 exit
        mad.lo.s32  %r14, %r5, %r1, %r6
        shl.b32     %r14, %r14, 2
        ld.param.u32 %r22, [c]
        add.s32     %r14, %r14, %r22
        st.global.f32 [%r14], %r7
        exit
