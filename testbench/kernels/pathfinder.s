// pathfinder: dynamic programming down a grid of wall costs (Rodinia's path finder):
// cost[r][c] = wall[r][c] + min(cost[r-1][c-1], cost[r-1][c], cost[r-1][c+1]), edges
// clamped. One block; its threads stride over the columns (at most 2048); two shared rows,
// one barrier per grid row. out = the last row's costs.
.kernel pathfinder
.regs 20
.shared 16384
.param wall, out, rows, cols

        mov.u32     %r0, %tid.x
        mov.u32     %r1, %ntid.x
        ld.param.u32 %r2, [rows]
        ld.param.u32 %r3, [cols]
        ld.param.u32 %r4, [wall]
        mov.u32     %r5, 0                        // pin: previous row (byte offset)
        mov.u32     %r6, 8192                     // pout: row being computed
        mov.u32     %r7, %r0                      // c
INIT:   setp.ge.u32 %p0, %r7, %r3
        @%p0 bra    INITD
        shl.b32     %r8, %r7, 2
        add.s32     %r9, %r8, %r4
        ld.global.u32 %r10, [%r9]                 // wall[0][c]
        st.shared.u32 [%r8], %r10
        add.s32     %r7, %r7, %r1
        bra         INIT
INITD:  bar.sync 0
        mov.u32     %r11, 1                       // r
        sub.s32     %r12, %r3, 1                  // cols - 1
ROW:    setp.ge.u32 %p0, %r11, %r2
        @%p0 bra    OUT
        mul.lo.s32  %r13, %r11, %r3
        shl.b32     %r13, %r13, 2
        add.s32     %r13, %r13, %r4               // &wall[r][0]
        mov.u32     %r7, %r0
COL:    setp.ge.u32 %p0, %r7, %r3
        @%p0 bra    COLD
        shl.b32     %r8, %r7, 2
        add.s32     %r9, %r8, %r5
        ld.shared.u32 %r14, [%r9]                 // best = prev[c]
        setp.ne.u32 %p1, %r7, 0
        @%p1 ld.shared.u32 %r15, [%r9-4]
        @%p1 min.u32 %r14, %r14, %r15
        setp.lt.u32 %p2, %r7, %r12
        @%p2 ld.shared.u32 %r15, [%r9+4]
        @%p2 min.u32 %r14, %r14, %r15
        add.s32     %r9, %r8, %r13
        ld.global.u32 %r15, [%r9]
        add.s32     %r14, %r14, %r15
        add.s32     %r9, %r8, %r6
        st.shared.u32 [%r9], %r14
        add.s32     %r7, %r7, %r1
        bra         COL
COLD:   bar.sync 0
        mov.u32     %r16, %r5                     // swap pin, pout
        mov.u32     %r5, %r6
        mov.u32     %r6, %r16
        add.s32     %r11, %r11, 1
        bra         ROW
OUT:    ld.param.u32 %r17, [out]
        mov.u32     %r7, %r0
OL:     setp.ge.u32 %p0, %r7, %r3
        @%p0 exit
        shl.b32     %r8, %r7, 2
        add.s32     %r9, %r8, %r5
        ld.shared.u32 %r14, [%r9]
        add.s32     %r9, %r8, %r17
        st.global.u32 [%r9], %r14
        add.s32     %r7, %r7, %r1
        bra         OL
