; Golden test: tests/golden/python_int_ops.py, llvm
; Regenerate with tools/update_golden.sh. Tack IR:
;   kernel python_int_ops(a: array<i32, 1>, q: array<i32, 1>, d: i32) default_float=f32 {
;     parallel for i: i64 in range(0:i64, a.shape[0], 1:i64) {
;       let x: i32 = a[i]
;       q[i] = ((x // d) + (x % d))
;       a[i] = (x >> d)
;     }
;   }

; Function Attrs: alwaysinline nounwind
define internal void @tack_body(ptr nocapture %a, i64 %a.shape0, ptr nocapture %q, i64 %q.shape0, i32 %d, i64 %begin, i64 %end, ptr %status) #0 {
entry:
  %x = alloca i32, align 4
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
  store i32 %4, ptr %x, align 4
  %x2 = load i32, ptr %x, align 4
  %5 = icmp eq i32 %d, 0
  %6 = icmp eq i32 %d, -1
  %7 = icmp eq i32 %x2, -2147483648
  %8 = and i1 %7, %6
  %9 = or i1 %5, %8
  %10 = select i1 %9, i32 1, i32 %d
  %11 = sdiv i32 %x2, %10
  %12 = srem i32 %x2, %10
  %13 = xor i32 %12, %10
  %14 = icmp slt i32 %13, 0
  %15 = icmp ne i32 %12, 0
  %16 = and i1 %15, %14
  %17 = sub i32 %11, 1
  %18 = select i1 %16, i32 %17, i32 %11
  %19 = select i1 %5, i32 0, i32 %18
  %x3 = load i32, ptr %x, align 4
  %20 = icmp eq i32 %d, 0
  %21 = icmp eq i32 %d, -1
  %22 = icmp eq i32 %x3, -2147483648
  %23 = and i1 %22, %21
  %24 = or i1 %20, %23
  %25 = select i1 %24, i32 1, i32 %d
  %26 = sdiv i32 %x3, %25
  %27 = srem i32 %x3, %25
  %28 = xor i32 %27, %25
  %29 = icmp slt i32 %28, 0
  %30 = icmp ne i32 %27, 0
  %31 = and i1 %30, %29
  %32 = add i32 %27, %25
  %33 = select i1 %31, i32 %32, i32 %27
  %34 = select i1 %20, i32 0, i32 %33
  %35 = add i32 %19, %34
  %i4 = load i64, ptr %i, align 8
  %36 = getelementptr inbounds i32, ptr %q, i64 %i4
  store i32 %35, ptr %36, align 1
  %x5 = load i32, ptr %x, align 4
  %37 = icmp uge i32 %d, 32
  %38 = select i1 %37, i32 31, i32 %d
  %39 = ashr i32 %x5, %38
  %i6 = load i64, ptr %i, align 8
  %40 = getelementptr inbounds i32, ptr %a, i64 %i6
  store i32 %39, ptr %40, align 1
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
