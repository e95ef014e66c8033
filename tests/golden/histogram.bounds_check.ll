; Golden test: tests/golden/histogram.py, llvm bounds_check
; Regenerate with tools/update_golden.sh. Tack IR:
;   kernel histogram(values: array<f32, 1>, bins: array<i32, 1>) default_float=f32 {
;     parallel for i: i64 in range(0:i64, values.shape[0], 1:i64) {
;       let b: i64 = i64(floor((values[i] * f32(bins.shape[0]))))
;       if ((b >= 0:i64) and (b < bins.shape[0])) {
;         eval atomic_add(bins[b], 1:i32)
;       }
;     }
;   }

; Function Attrs: alwaysinline nounwind
define internal void @tack_body(ptr nocapture %values, i64 %values.shape0, ptr nocapture %bins, i64 %bins.shape0, i64 %begin, i64 %end, ptr %status) #0 {
entry:
  %b = alloca i64, align 8
  %i = alloca i64, align 8
  %0 = icmp sgt i64 %values.shape0, 0
  %1 = sub i64 %values.shape0, 0
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
  %3 = icmp ult i64 %i1, %values.shape0
  %4 = and i1 true, %3
  br i1 %4, label %inbounds, label %oob, !prof !0

iter.latch:                                       ; preds = %if.end
  %iter.next = add nuw nsw i64 %iter, 1
  br label %iter.header

inbounds:                                         ; preds = %iter.body
  %5 = getelementptr inbounds float, ptr %values, i64 %i1
  %6 = load float, ptr %5, align 1
  br label %access.end

oob:                                              ; preds = %iter.body
  %7 = xor i1 %3, true
  %8 = select i1 %7, i32 0, i32 0
  %9 = select i1 %7, i64 %i1, i64 %i1
  %10 = select i1 %7, i64 %values.shape0, i64 %values.shape0
  call void @tack_oob(ptr %status, i32 0, i32 %8, i64 %9, i64 %10, i64 0)
  br label %access.end

access.end:                                       ; preds = %inbounds, %oob
  %11 = phi float [ %6, %inbounds ], [ 0.000000e+00, %oob ]
  %12 = sitofp i64 %bins.shape0 to float
  %13 = fmul float %11, %12
  %14 = call float @llvm.floor.f32(float %13)
  %15 = call i64 @llvm.fptosi.sat.i64.f32(float %14)
  store i64 %15, ptr %b, align 8
  %b2 = load i64, ptr %b, align 8
  %16 = icmp sge i64 %b2, 0
  br i1 %16, label %and.rhs, label %and.end

and.rhs:                                          ; preds = %access.end
  %b3 = load i64, ptr %b, align 8
  %17 = icmp slt i64 %b3, %bins.shape0
  br label %and.end

and.end:                                          ; preds = %and.rhs, %access.end
  %18 = phi i1 [ false, %access.end ], [ %17, %and.rhs ]
  br i1 %18, label %if.then, label %if.end

if.then:                                          ; preds = %and.end
  %b4 = load i64, ptr %b, align 8
  %19 = icmp ult i64 %b4, %bins.shape0
  %20 = and i1 true, %19
  br i1 %20, label %inbounds5, label %oob6, !prof !0

if.end:                                           ; preds = %access.end7, %and.end
  br label %iter.latch

inbounds5:                                        ; preds = %if.then
  %21 = getelementptr inbounds i32, ptr %bins, i64 %b4
  %22 = atomicrmw add ptr %21, i32 1 monotonic, align 4
  br label %access.end7

oob6:                                             ; preds = %if.then
  %23 = xor i1 %19, true
  %24 = select i1 %23, i32 0, i32 0
  %25 = select i1 %23, i64 %b4, i64 %b4
  %26 = select i1 %23, i64 %bins.shape0, i64 %bins.shape0
  call void @tack_oob(ptr %status, i32 1, i32 %24, i64 %25, i64 %26, i64 0)
  br label %access.end7

access.end7:                                      ; preds = %inbounds5, %oob6
  %27 = phi i32 [ %22, %inbounds5 ], [ 0, %oob6 ]
  br label %if.end
}

; Function Attrs: cold noinline nounwind
define internal void @tack_oob(ptr %0, i32 %1, i32 %2, i64 %3, i64 %4, i64 %5) #1 {
entry:
  %6 = icmp eq ptr %0, null
  br i1 %6, label %done, label %try

try:                                              ; preds = %entry
  %7 = cmpxchg ptr %0, i32 0, i32 1 monotonic monotonic, align 4
  %8 = extractvalue { i32, i1 } %7, 1
  br i1 %8, label %fill, label %done

fill:                                             ; preds = %try
  %9 = getelementptr inbounds i8, ptr %0, i64 4
  store i32 %1, ptr %9, align 4
  %10 = getelementptr inbounds i8, ptr %0, i64 8
  store i32 %2, ptr %10, align 4
  %11 = getelementptr inbounds i8, ptr %0, i64 16
  store i64 %3, ptr %11, align 8
  %12 = getelementptr inbounds i8, ptr %0, i64 24
  store i64 %4, ptr %12, align 8
  %13 = getelementptr inbounds i8, ptr %0, i64 32
  store i64 %5, ptr %13, align 8
  br label %done

done:                                             ; preds = %fill, %try, %entry
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.floor.f32(float) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.fptosi.sat.i64.f32(float) #2

; Function Attrs: alwaysinline nounwind
define internal i64 @tack_count(ptr nocapture %values, i64 %values.shape0, ptr nocapture %bins, i64 %bins.shape0) #0 {
entry:
  %0 = icmp sgt i64 %values.shape0, 0
  %1 = sub i64 %values.shape0, 0
  %i.count = select i1 %0, i64 %1, i64 0
  %total = mul i64 1, %i.count
  ret i64 %total
}

; Function Attrs: nounwind
define void @tack_chunk_histogram(ptr %args, i64 %begin, i64 %end, ptr %status) #3 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %values = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %bins = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds i64, ptr %args, i64 3
  %5 = load i64, ptr %4, align 8
  call void @tack_body(ptr %values, i64 %2, ptr %bins, i64 %5, i64 %begin, i64 %end, ptr %status)
  ret void
}

; Function Attrs: nounwind
define i64 @tack_extent_histogram(ptr %args) #3 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %values = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 2
  %bins = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds i64, ptr %args, i64 3
  %5 = load i64, ptr %4, align 8
  %6 = call i64 @tack_count(ptr %values, i64 %2, ptr %bins, i64 %5)
  ret i64 %6
}

attributes #0 = { alwaysinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #1 = { cold noinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind "target-cpu"="<host>" "target-features"="<host>" }

!0 = !{!"branch_weights", i32 1048575, i32 1}
