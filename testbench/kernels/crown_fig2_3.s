// The worked example of spec/crown.md §2.7 (thesis Fig 2-3), one 8-thread warp:
//   1: a = threadIdx.x;  2: if (a > 4)  3: { f += g*h; }  4: else { f -= g*h; }  5: k[a] = f;
// with the digest's PCs: the test and the branch at PC0-1, then-block PC2-3, else-block PC4,
// the reconvergence point PC5, exit PC6. Here g*h = 3, f starts at 0 and line 5 adds each
// thread's f into a shared k.
.kernel crown_fig2_3
.regs 4
.shared 4

        setp.le.u32 %p0, %tid.x, 4                // PC0 [1,2] a = tid; a <= 4 ?
        @%p0 bra    ELSE                          // PC1 [2]   rpc = PC5 (IPDOM)
        add.s32     %r1, %r1, 3                   // PC2 [3]   f += g*h
        bra         JOIN                          // PC3 [3]
ELSE:   sub.s32     %r1, %r1, 3                   // PC4 [4]   f -= g*h
JOIN:   atom.shared.add.u32 %r2, [%r0], %r1       // PC5 [5]   k += f
        exit                                      // PC6
