// bfs: breadth-first search levels on a graph in CSR form (rowptr, cols), one block whose
// threads stride over the vertices; one level per iteration with barriers, a shared
// "changed" flag. cost[v] = level of v, 0xffffffff when unreachable; cost must come in as
// 0 for the source and 0xffffffff elsewhere.
.kernel bfs
.regs 20
.shared 4
.param rowptr, cols, cost, n

        mov.u32     %r0, %tid.x
        mov.u32     %r1, %ntid.x
        ld.param.u32 %r2, [n]
        ld.param.u32 %r3, [rowptr]
        ld.param.u32 %r4, [cols]
        ld.param.u32 %r5, [cost]
        mov.u32     %r6, 0                        // level
        mov.u32     %r7, 0                        // &changed (shared address 0)
        mov.u32     %r8, 1
        setp.eq.u32 %p0, %r0, 0
LEVEL:  @%p0 st.shared.u32 [%r7], %r7             // changed = 0
        bar.sync 0
        add.s32     %r9, %r6, 1                   // level + 1
        mov.u32     %r10, %r0                     // v
VLOOP:  setp.ge.u32 %p1, %r10, %r2
        @%p1 bra    VDONE
        shl.b32     %r11, %r10, 2
        add.s32     %r12, %r11, %r5
        ld.global.u32 %r13, [%r12]                // cost[v]
        setp.ne.u32 %p2, %r13, %r6
        @%p2 bra    VNEXT
        add.s32     %r12, %r11, %r3
        ld.global.u32 %r14, [%r12]                // e = rowptr[v]
        ld.global.u32 %r15, [%r12+4]              // end = rowptr[v+1]
ELOOP:  setp.ge.u32 %p3, %r14, %r15
        @%p3 bra    VNEXT
        shl.b32     %r16, %r14, 2
        add.s32     %r16, %r16, %r4
        ld.global.u32 %r17, [%r16]                // u = cols[e]
        shl.b32     %r17, %r17, 2
        add.s32     %r17, %r17, %r5
        ld.global.u32 %r18, [%r17]                // cost[u]
        setp.ne.u32 %p4, %r18, -1
        @%p4 bra    ENEXT
        st.global.u32 [%r17], %r9                 // cost[u] = level + 1
        st.shared.u32 [%r7], %r8                  // changed = 1
ENEXT:  add.s32     %r14, %r14, 1
        bra         ELOOP
VNEXT:  add.s32     %r10, %r10, %r1
        bra         VLOOP
VDONE:  bar.sync 0
        ld.shared.u32 %r19, [%r7]
        bar.sync 0                                // all have read the flag before it is cleared
        setp.eq.u32 %p5, %r19, 0
        @%p5 exit
        mov.u32     %r6, %r9
        bra         LEVEL
