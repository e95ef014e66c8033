; Golden test: tests/golden/triad.py, llvm
; Regenerate with tools/update_golden.sh. Tack IR:
;   kernel triad(a: array<f32, 1>, b: array<f32, 1>, c: array<f32, 1>, s: f32) default_float=f32 {
;     parallel for i: i64 in range(0:i64, c.shape[0], 1:i64) {
;       c[i] = (a[i] + (s * b[i]))
;     }
;   }

; Function Attrs: alwaysinline nounwind
define internal void @tack_body(ptr nocapture %a, i64 %a.shape0, ptr nocapture %b, i64 %b.shape0, ptr nocapture %c, i64 %c.shape0, float %s, i64 %begin, i64 %end, ptr %status) #0 {
entry:
  %i = alloca i64, align 8
  %0 = icmp sgt i64 %c.shape0, 0
  %1 = sub i64 %c.shape0, 0
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
  %3 = getelementptr inbounds float, ptr %a, i64 %i1
  %4 = load float, ptr %3, align 1
  %i2 = load i64, ptr %i, align 8
  %5 = getelementptr inbounds float, ptr %b, i64 %i2
  %6 = load float, ptr %5, align 1
  %7 = fmul float %s, %6
  %8 = fadd float %4, %7
  %i3 = load i64, ptr %i, align 8
  %9 = getelementptr inbounds float, ptr %c, i64 %i3
  store float %8, ptr %9, align 1
  br label %iter.latch

iter.latch:                                       ; preds = %iter.body
  %iter.next = add nuw nsw i64 %iter, 1
  br label %iter.header
}

; Function Attrs: alwaysinline nounwind
define internal i64 @tack_count(ptr nocapture %a, i64 %a.shape0, ptr nocapture %b, i64 %b.shape0, ptr nocapture %c, i64 %c.shape0, float %s) #0 {
entry:
  %0 = icmp sgt i64 %c.shape0, 0
  %1 = sub i64 %c.shape0, 0
  %i.count = select i1 %0, i64 %1, i64 0
  %total = mul i64 1, %i.count
  ret i64 %total
}

; Function Attrs: nounwind
define void @tack_chunk_triad(ptr %args, i64 %begin, i64 %end, ptr %status) #1 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %a = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %b = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds i64, ptr %args, i64 3
  %5 = load i64, ptr %4, align 8
  %6 = getelementptr inbounds i64, ptr %args, i64 4
  %c = load ptr, ptr %6, align 8
  %7 = getelementptr inbounds i64, ptr %args, i64 5
  %8 = load i64, ptr %7, align 8
  %9 = getelementptr inbounds i64, ptr %args, i64 6
  %s.slot = load i64, ptr %9, align 8
  %10 = trunc i64 %s.slot to i32
  %11 = bitcast i32 %10 to float
  call void @tack_body(ptr %a, i64 %2, ptr %b, i64 %5, ptr %c, i64 %8, float %11, i64 %begin, i64 %end, ptr %status)
  ret void
}

; Function Attrs: nounwind
define i64 @tack_extent_triad(ptr %args) #1 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %a = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %b = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds i64, ptr %args, i64 3
  %5 = load i64, ptr %4, align 8
  %6 = getelementptr inbounds i64, ptr %args, i64 4
  %c = load ptr, ptr %6, align 8
  %7 = getelementptr inbounds i64, ptr %args, i64 5
  %8 = load i64, ptr %7, align 8
  %9 = getelementptr inbounds i64, ptr %args, i64 6
  %s.slot = load i64, ptr %9, align 8
  %10 = trunc i64 %s.slot to i32
  %11 = bitcast i32 %10 to float
  %12 = call i64 @tack_count(ptr %a, i64 %2, ptr %b, i64 %5, ptr %c, i64 %8, float %11)
  ret i64 %12
}

attributes #0 = { alwaysinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #1 = { nounwind "target-cpu"="<host>" "target-features"="<host>" }
