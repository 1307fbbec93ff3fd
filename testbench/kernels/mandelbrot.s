// mandelbrot: escape-time iteration count per pixel, FP32. c = (x*dx + x0, y*dy + y0),
// z = z^2 + c until |z|^2 > 4 or maxit iterations; out[y*width + x] = iterations.
.kernel mandelbrot
.regs 24
.param out, width, height, x0, y0, dx, dy, maxit

        mov.u32     %r0, %ntid.x
        mov.u32     %r1, %tid.x
        mad.lo.s32  %r2, %ctaid.x, %r0, %r1       // x
        mov.u32     %r0, %ntid.y
        mov.u32     %r1, %tid.y
        mad.lo.s32  %r3, %ctaid.y, %r0, %r1       // y
        ld.param.u32 %r4, [width]
        ld.param.u32 %r5, [height]
        setp.ge.u32 %p0, %r2, %r4
        setp.ge.u32 %p1, %r3, %r5
        or.pred     %p0, %p0, %p1
        @%p0 exit
        ld.param.f32 %r6, [x0]
        ld.param.f32 %r7, [y0]
        ld.param.f32 %r8, [dx]
        ld.param.f32 %r9, [dy]
        ld.param.u32 %r10, [maxit]
        cvt.rn.f32.u32 %r11, %r2
        mul.f32     %r11, %r11, %r8
        add.f32     %r11, %r11, %r6               // cr
        cvt.rn.f32.u32 %r12, %r3
        mul.f32     %r12, %r12, %r9
        add.f32     %r12, %r12, %r7               // ci
        mov.f32     %r13, 0.0                     // zr
        mov.f32     %r14, 0.0                     // zi
        mov.u32     %r15, 0                       // it
LOOP:   setp.ge.u32 %p2, %r15, %r10
        @%p2 bra    DONE
        mul.f32     %r16, %r13, %r13              // zr^2
        mul.f32     %r17, %r14, %r14              // zi^2
        add.f32     %r18, %r16, %r17
        setp.gt.f32 %p3, %r18, 4.0
        @%p3 bra    DONE
        mul.f32     %r19, %r13, %r14
        add.f32     %r19, %r19, %r19
        add.f32     %r14, %r19, %r12              // zi = 2 zr zi + ci
        sub.f32     %r13, %r16, %r17
        add.f32     %r13, %r13, %r11              // zr = zr^2 - zi^2 + cr
        add.s32     %r15, %r15, 1
        bra         LOOP
DONE:   mad.lo.s32  %r20, %r3, %r4, %r2
        shl.b32     %r20, %r20, 2
        ld.param.u32 %r21, [out]
        add.s32     %r20, %r20, %r21
        st.global.u32 [%r20], %r15
        exit
