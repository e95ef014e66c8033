; Golden test: tests/golden/stencil2d.py, llvm
; Regenerate with tools/update_golden.sh. Tack IR:
;   kernel stencil2d(src: array<f64, 2>, dst: array<f64, 2>) default_float=f64 {
;     let rows: i64 = src.shape[0]
;     parallel for i: i64 in range(1:i64, rows, 1:i64), j: i64 in range(0:i64, src.shape[1], 1:i64) {
;       dst[i, j] = (0.5:f64 * (src[(i - 1:i64), j] + src[i, j]))
;     }
;   }

; Function Attrs: alwaysinline nounwind
define internal void @tack_body(ptr nocapture %src, i64 %src.shape0, i64 %src.shape1, ptr nocapture %dst, i64 %dst.shape0, i64 %dst.shape1, i64 %begin, i64 %end, ptr %status) #0 {
entry:
  %j = alloca i64, align 8
  %i = alloca i64, align 8
  %rows = alloca i64, align 8
  store i64 %src.shape0, ptr %rows, align 8
  %rows1 = load i64, ptr %rows, align 8
  %0 = icmp sgt i64 %rows1, 1
  %1 = sub i64 %rows1, 1
  %i.count = select i1 %0, i64 %1, i64 0
  %2 = icmp sgt i64 %src.shape1, 0
  %3 = sub i64 %src.shape1, 0
  %j.count = select i1 %2, i64 %3, i64 0
  br label %row.header

parallel.exit:                                    ; preds = %row.header
  ret void

row.header:                                       ; preds = %row.latch, %entry
  %linear = phi i64 [ %begin, %entry ], [ %linear.next, %row.latch ]
  %4 = icmp slt i64 %linear, %end
  br i1 %4, label %row.body, label %parallel.exit

row.body:                                         ; preds = %row.header
  %row = udiv i64 %linear, %j.count
  %col.begin = urem i64 %linear, %j.count
  %5 = sub i64 %end, %linear
  %6 = add i64 %col.begin, %5
  %col.end = call i64 @llvm.umin.i64(i64 %j.count, i64 %6)
  br label %iter.header

row.latch:                                        ; preds = %iter.header
  %7 = sub i64 %col.end, %col.begin
  %linear.next = add i64 %linear, %7
  br label %row.header

iter.header:                                      ; preds = %iter.latch, %row.body
  %iter = phi i64 [ %col.begin, %row.body ], [ %iter.next, %iter.latch ]
  %8 = icmp slt i64 %iter, %col.end
  br i1 %8, label %iter.body, label %row.latch

iter.body:                                        ; preds = %iter.header
  %9 = add i64 1, %row
  store i64 %9, ptr %i, align 8
  store i64 %iter, ptr %j, align 8
  %i2 = load i64, ptr %i, align 8
  %10 = sub i64 %i2, 1
  %j3 = load i64, ptr %j, align 8
  %11 = mul nsw i64 %10, %src.shape1
  %12 = add nsw i64 %11, %j3
  %13 = getelementptr inbounds double, ptr %src, i64 %12
  %14 = load double, ptr %13, align 1
  %i4 = load i64, ptr %i, align 8
  %j5 = load i64, ptr %j, align 8
  %15 = mul nsw i64 %i4, %src.shape1
  %16 = add nsw i64 %15, %j5
  %17 = getelementptr inbounds double, ptr %src, i64 %16
  %18 = load double, ptr %17, align 1
  %19 = fadd double %14, %18
  %20 = fmul double 5.000000e-01, %19
  %i6 = load i64, ptr %i, align 8
  %j7 = load i64, ptr %j, align 8
  %21 = mul nsw i64 %i6, %dst.shape1
  %22 = add nsw i64 %21, %j7
  %23 = getelementptr inbounds double, ptr %dst, i64 %22
  store double %20, ptr %23, align 1
  br label %iter.latch

iter.latch:                                       ; preds = %iter.body
  %iter.next = add nuw nsw i64 %iter, 1
  br label %iter.header
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.umin.i64(i64, i64) #1

; Function Attrs: alwaysinline nounwind
define internal i64 @tack_count(ptr nocapture %src, i64 %src.shape0, i64 %src.shape1, ptr nocapture %dst, i64 %dst.shape0, i64 %dst.shape1) #0 {
entry:
  %rows = alloca i64, align 8
  store i64 %src.shape0, ptr %rows, align 8
  %rows1 = load i64, ptr %rows, align 8
  %0 = icmp sgt i64 %rows1, 1
  %1 = sub i64 %rows1, 1
  %i.count = select i1 %0, i64 %1, i64 0
  %2 = icmp sgt i64 %src.shape1, 0
  %3 = sub i64 %src.shape1, 0
  %j.count = select i1 %2, i64 %3, i64 0
  %total = mul i64 1, %i.count
  %total2 = mul i64 %total, %j.count
  ret i64 %total2
}

; Function Attrs: nounwind
define void @tack_chunk_stencil2d(ptr %args, i64 %begin, i64 %end, ptr %status) #2 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %src = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %4 = load i64, ptr %3, align 8
  %5 = getelementptr inbounds i64, ptr %args, i64 3
  %dst = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds i64, ptr %args, i64 4
  %7 = load i64, ptr %6, align 8
  %8 = getelementptr inbounds i64, ptr %args, i64 5
  %9 = load i64, ptr %8, align 8
  call void @tack_body(ptr %src, i64 %2, i64 %4, ptr %dst, i64 %7, i64 %9, i64 %begin, i64 %end, ptr %status)
  ret void
}

; Function Attrs: nounwind
define i64 @tack_extent_stencil2d(ptr %args) #2 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %src = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %4 = load i64, ptr %3, align 8
  %5 = getelementptr inbounds i64, ptr %args, i64 3
  %dst = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds i64, ptr %args, i64 4
  %7 = load i64, ptr %6, align 8
  %8 = getelementptr inbounds i64, ptr %args, i64 5
  %9 = load i64, ptr %8, align 8
  %10 = call i64 @tack_count(ptr %src, i64 %2, i64 %4, ptr %dst, i64 %7, i64 %9)
  ret i64 %10
}

attributes #0 = { alwaysinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind "target-cpu"="<host>" "target-features"="<host>" }
