// spec/crown.md §7.2.11, the one-sided branch: threads 0-2 jump straight to the
// reconvergence point, the others run one instruction first.
.kernel crown_one_sided
.regs 4
.shared 4

        setp.lt.u32 %p0, %tid.x, 3                // PC0
        @%p0 bra    JOIN                          // PC1: target = rpc = PC3
        add.s32     %r1, %r1, 3                   // PC2
JOIN:   atom.shared.add.u32 %r2, [%r0], %r1       // PC3
        exit                                      // PC4
