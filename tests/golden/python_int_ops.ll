; Golden test of the LLVM code generator (unoptimized IR), options: default
; Regenerate with tools/update_golden.sh. Tack IR:
;   kernel python_int_ops(a: array<i32, 1>, q: array<i32, 1>, d: i32) default_float=f32 {
;     parallel for i: i64 in range(0:i64, a.shape[0], 1:i64) {
;       q[i] = ((a[i] // d) + (a[i] % d))
;       a[i] = (a[i] >> d)
;     }
;   }

; Function Attrs: alwaysinline nounwind
define internal void @tack_body(ptr nocapture %a, i64 %a.shape0, ptr nocapture %q, i64 %q.shape0, i32 %d, i64 %begin, i64 %end, ptr %status) #0 {
entry:
  %i = alloca i64, align 8
  %0 = icmp sgt i64 %a.shape0, 0
  %1 = sub i64 %a.shape0, 0
  %i.count = select i1 %0, i64 %1, i64 0
  br label %iter.header

parallel.exit:                                    ; preds = %iter.header
  ret void

iter.header:                                      ; preds = %iter.latch, %entry
  %iter = phi i64 [ %begin, %entry ], [ %iter.next, %iter.latch ]
  %2 = icmp slt i64 %iter, %end
  br i1 %2, label %iter.body, label %parallel.exit

iter.body:                                        ; preds = %iter.header
  store i64 %iter, ptr %i, align 8
  %i1 = load i64, ptr %i, align 8
  %3 = getelementptr inbounds i32, ptr %a, i64 %i1
  %4 = load i32, ptr %3, align 1
  %5 = icmp eq i32 %d, 0
  %6 = icmp eq i32 %d, -1
  %7 = icmp eq i32 %4, -2147483648
  %8 = and i1 %7, %6
  %9 = or i1 %5, %8
  %10 = select i1 %9, i32 1, i32 %d
  %11 = sdiv i32 %4, %10
  %12 = srem i32 %4, %10
  %13 = xor i32 %12, %10
  %14 = icmp slt i32 %13, 0
  %15 = icmp ne i32 %12, 0
  %16 = and i1 %15, %14
  %17 = sub i32 %11, 1
  %18 = select i1 %16, i32 %17, i32 %11
  %19 = select i1 %5, i32 0, i32 %18
  %i2 = load i64, ptr %i, align 8
  %20 = getelementptr inbounds i32, ptr %a, i64 %i2
  %21 = load i32, ptr %20, align 1
  %22 = icmp eq i32 %d, 0
  %23 = icmp eq i32 %d, -1
  %24 = icmp eq i32 %21, -2147483648
  %25 = and i1 %24, %23
  %26 = or i1 %22, %25
  %27 = select i1 %26, i32 1, i32 %d
  %28 = sdiv i32 %21, %27
  %29 = srem i32 %21, %27
  %30 = xor i32 %29, %27
  %31 = icmp slt i32 %30, 0
  %32 = icmp ne i32 %29, 0
  %33 = and i1 %32, %31
  %34 = add i32 %29, %27
  %35 = select i1 %33, i32 %34, i32 %29
  %36 = select i1 %22, i32 0, i32 %35
  %37 = add i32 %19, %36
  %i3 = load i64, ptr %i, align 8
  %38 = getelementptr inbounds i32, ptr %q, i64 %i3
  store i32 %37, ptr %38, align 1
  %i4 = load i64, ptr %i, align 8
  %39 = getelementptr inbounds i32, ptr %a, i64 %i4
  %40 = load i32, ptr %39, align 1
  %41 = icmp uge i32 %d, 32
  %42 = select i1 %41, i32 31, i32 %d
  %43 = ashr i32 %40, %42
  %i5 = load i64, ptr %i, align 8
  %44 = getelementptr inbounds i32, ptr %a, i64 %i5
  store i32 %43, ptr %44, align 1
  br label %iter.latch

iter.latch:                                       ; preds = %iter.body
  %iter.next = add nuw nsw i64 %iter, 1
  br label %iter.header
}

; Function Attrs: alwaysinline nounwind
define internal i64 @tack_count(ptr nocapture %a, i64 %a.shape0, ptr nocapture %q, i64 %q.shape0, i32 %d) #0 {
entry:
  %0 = icmp sgt i64 %a.shape0, 0
  %1 = sub i64 %a.shape0, 0
  %i.count = select i1 %0, i64 %1, i64 0
  %total = mul i64 1, %i.count
  ret i64 %total
}

; Function Attrs: nounwind
define void @tack_chunk_python_int_ops(ptr %args, i64 %begin, i64 %end, ptr %status) #1 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %a = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %q = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds i64, ptr %args, i64 3
  %5 = load i64, ptr %4, align 8
  %6 = getelementptr inbounds i64, ptr %args, i64 4
  %d.slot = load i64, ptr %6, align 8
  %7 = trunc i64 %d.slot to i32
  call void @tack_body(ptr %a, i64 %2, ptr %q, i64 %5, i32 %7, i64 %begin, i64 %end, ptr %status)
  ret void
}

; Function Attrs: nounwind
define i64 @tack_extent_python_int_ops(ptr %args) #1 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %a = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %q = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds i64, ptr %args, i64 3
  %5 = load i64, ptr %4, align 8
  %6 = getelementptr inbounds i64, ptr %args, i64 4
  %d.slot = load i64, ptr %6, align 8
  %7 = trunc i64 %d.slot to i32
  %8 = call i64 @tack_count(ptr %a, i64 %2, ptr %q, i64 %5, i32 %7)
  ret i64 %8
}

attributes #0 = { alwaysinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #1 = { nounwind "target-cpu"="<host>" "target-features"="<host>" }
