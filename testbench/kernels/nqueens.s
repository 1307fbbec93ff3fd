// nqueens: counts the solutions of the N-queens problem per placement of the first two
// rows. Block c0 (ctaid.x) puts row 0's queen in column c0, thread c1 (tid.x) puts row 1's
// in column c1; each thread then backtracks over the other rows with bitmasks, keeping its
// stack in shared memory (16 levels of {cols, ld, rd, avail}). counts[c0*N + c1] = solutions.
// N in 4..=16, grid N blocks of N threads.
.kernel nqueens
.regs 20
.shared 4096
.param counts, n

        ld.param.u32 %r0, [n]
        mov.u32     %r1, 1
        shl.b32     %r1, %r1, %r0
        sub.s32     %r1, %r1, 1                   // all = (1 << N) - 1
        mov.u32     %r2, %ctaid.x                 // c0
        mov.u32     %r3, %tid.x                   // c1
        mov.u32     %r4, 0                        // count
        mov.u32     %r5, 1
        shl.b32     %r5, %r5, %r2                 // b0
        mov.u32     %r6, %r5                      // cols
        shl.b32     %r7, %r5, 1                   // ld
        shr.u32     %r8, %r5, 1                   // rd
        mov.u32     %r9, 1
        shl.b32     %r9, %r9, %r3                 // b1
        or.b32      %r10, %r6, %r7
        or.b32      %r10, %r10, %r8
        and.b32     %r10, %r10, %r9
        setp.ne.u32 %p0, %r10, 0
        @%p0 bra    STORE                         // rows 0 and 1 attack each other
        or.b32      %r6, %r6, %r9
        or.b32      %r7, %r7, %r9
        shl.b32     %r7, %r7, 1
        or.b32      %r8, %r8, %r9
        shr.u32     %r8, %r8, 1
        mov.u32     %r11, 2                       // l: rows placed
        shl.b32     %r12, %r3, 8                  // this thread's stack (256 bytes)
        sub.s32     %r14, %r0, 1                  // N - 1
        or.b32      %r13, %r6, %r7
        or.b32      %r13, %r13, %r8
        not.b32     %r13, %r13
        and.b32     %r13, %r13, %r1               // avail
LOOP:   setp.ne.u32 %p1, %r13, 0
        @%p1 bra    PLACE
        setp.eq.u32 %p2, %r11, 2
        @%p2 bra    STORE                         // row 2 exhausted: done
        sub.s32     %r11, %r11, 1                 // back up one row
        shl.b32     %r15, %r11, 4
        add.s32     %r15, %r15, %r12
        ld.shared.u32 %r6, [%r15]
        ld.shared.u32 %r7, [%r15+4]
        ld.shared.u32 %r8, [%r15+8]
        ld.shared.u32 %r13, [%r15+12]
        bra         LOOP
PLACE:  neg.s32     %r15, %r13
        and.b32     %r15, %r15, %r13              // bit = lowest available column
        xor.b32     %r13, %r13, %r15
        setp.eq.u32 %p3, %r11, %r14
        @!%p3 bra   DEEPER
        add.s32     %r4, %r4, 1                   // the last row placed: a solution
        bra         LOOP
DEEPER: shl.b32     %r16, %r11, 4
        add.s32     %r16, %r16, %r12
        st.shared.u32 [%r16], %r6
        st.shared.u32 [%r16+4], %r7
        st.shared.u32 [%r16+8], %r8
        st.shared.u32 [%r16+12], %r13
        or.b32      %r6, %r6, %r15
        or.b32      %r7, %r7, %r15
        shl.b32     %r7, %r7, 1
        or.b32      %r8, %r8, %r15
        shr.u32     %r8, %r8, 1
        add.s32     %r11, %r11, 1
        or.b32      %r17, %r6, %r7
        or.b32      %r17, %r17, %r8
        not.b32     %r17, %r17
        and.b32     %r13, %r17, %r1
        bra         LOOP
STORE:  mad.lo.s32  %r18, %r2, %r0, %r3
        shl.b32     %r18, %r18, 2
        ld.param.u32 %r19, [counts]
        add.s32     %r18, %r18, %r19
        st.global.u32 [%r18], %r4
        exit
