// spec/crown.md §3.11 C2: the §2.7 kernel on two 8-thread warps whose branch condition comes
// from data so that the paths are complementary: warp 0 takes the then-block on lanes 4-7 and
// the else-block on lanes 0-3, warp 1 the other way round. The data is %laneid of a launch
// whose warp size is 12 (tids 0-3 and 12-15 have %laneid < 4): one instruction, as in §2.7.
.kernel crown_c2
.regs 4
.shared 4

        setp.lt.u32 %p0, %laneid, 4               // PC0: else-lanes
        @%p0 bra    ELSE                          // PC1: rpc = PC5
        add.s32     %r1, %r1, 3                   // PC2
        bra         JOIN                          // PC3
ELSE:   sub.s32     %r1, %r1, 3                   // PC4
JOIN:   atom.shared.add.u32 %r2, [%r0], %r1       // PC5
        exit                                      // PC6
