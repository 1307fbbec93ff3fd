// strmatch: naive string matching, one thread per text position (one character per word).
// matches[i] = 1 where the pattern occurs at i, else 0, for i in 0..=n-m; count += matches
// (global atomic). A thread stops at its first mismatching character.
.kernel strmatch
.regs 16
.param text, pat, matches, count, n, m

        mov.u32     %r0, %ntid.x
        mov.u32     %r1, %tid.x
        mad.lo.s32  %r2, %ctaid.x, %r0, %r1       // i
        ld.param.u32 %r3, [n]
        ld.param.u32 %r4, [m]
        sub.s32     %r5, %r3, %r4                 // n - m
        setp.gt.u32 %p0, %r2, %r5
        @%p0 exit
        ld.param.u32 %r6, [text]
        shl.b32     %r7, %r2, 2
        add.s32     %r6, %r6, %r7                 // &text[i]
        ld.param.u32 %r8, [pat]
        ld.param.u32 %r9, [matches]
        add.s32     %r9, %r9, %r7                 // &matches[i]
        mov.u32     %r10, 0                       // j
LOOP:   setp.ge.u32 %p1, %r10, %r4
        @%p1 bra    FOUND
        shl.b32     %r11, %r10, 2
        add.s32     %r12, %r11, %r6
        ld.global.u32 %r13, [%r12]
        add.s32     %r12, %r11, %r8
        ld.global.u32 %r14, [%r12]
        setp.ne.u32 %p2, %r13, %r14
        @%p2 bra    MISS
        add.s32     %r10, %r10, 1
        bra         LOOP
FOUND:  mov.u32     %r15, 1
        st.global.u32 [%r9], %r15
        ld.param.u32 %r12, [count]
        atom.global.add.u32 %r13, [%r12], %r15
        exit
MISS:   mov.u32     %r15, 0
        st.global.u32 [%r9], %r15
        exit
